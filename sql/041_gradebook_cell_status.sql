-- Missing / Late / Not graded in the gradebook (issue 29.6).
--
-- A gradebook cell with no score was "—" whether nothing was handed in or the work waited for
-- grading, and late work was not marked. The overview reads one grade_totals row per student
-- (sql/029); that row now also keeps, per homework/quiz, when the student's newest submission
-- was handed in: task id → submitted_at in epoch milliseconds, for every newest submission
-- (graded or not). With the scores (task_scores) and the task's due time the overview tells
-- apart: a score (graded), handed in without a score (not graded), handed in after the due
-- time (late, src/lib/due.ts against the task's current due time), nothing handed in and past
-- due (missing). Experiments are read from experiment_submissions already (submitted_at there).
--
-- json, as task_scores: written whole and read whole, never searched.
alter table grade_totals add column task_submitted json not null default '{}';

-- As sql/036, plus task_submitted.
create or replace function refresh_grade_totals(p_courses uuid[], p_students uuid[]) returns void
language plpgsql as $$
begin
  -- One row per pair, locked in key order before recomputing. Under READ COMMITTED every
  -- statement below takes a fresh snapshot, so a writer that waited here for another one sees
  -- that one's submissions: concurrent submissions of one student cannot lose an update.
  insert into grade_totals (course_id, student_id, task_count, task_graded, task_score_sum, lab_count, lab_graded, lab_score_sum)
  select distinct p.c, p.s, 0, 0, 0, 0, 0, 0
    from unnest(p_courses, p_students) as p (c, s)
   where exists (select 1 from courses c where c.id = p.c)
     and exists (select 1 from users u where u.id = p.s)
   order by 1, 2
  on conflict do nothing;

  perform 1
     from grade_totals g
     join unnest(p_courses, p_students) as p (c, s) on g.course_id = p.c and g.student_id = p.s
    order by g.course_id, g.student_id
      for update of g;

  update grade_totals g
     set task_count = t.task_count, task_graded = t.task_graded, task_score_sum = t.task_score_sum,
         lab_count = t.lab_count, lab_graded = t.lab_graded, lab_score_sum = t.lab_score_sum,
         task_scores = t.task_scores, task_submitted = t.task_submitted
    from (select p.c, p.s,
                 count(*) filter (where x.lab = false)::int as task_count,
                 count(*) filter (where x.lab = false and x.graded)::int as task_graded,
                 coalesce(sum(x.score) filter (where x.lab = false and x.graded), 0) as task_score_sum,
                 count(*) filter (where x.lab)::int as lab_count,
                 count(*) filter (where x.lab and x.graded)::int as lab_graded,
                 coalesce(sum(x.score) filter (where x.lab and x.graded), 0) as lab_score_sum,
                 coalesce(json_object_agg(x.item_id, x.score) filter (where x.lab = false and x.score is not null), '{}') as task_scores,
                 coalesce(json_object_agg(x.item_id, (extract(epoch from x.submitted_at) * 1000)::bigint) filter (where x.lab = false), '{}') as task_submitted
            from (select distinct c, s from unnest(p_courses, p_students) as u (c, s)) p
            left join lateral (
                   -- Per task of the course, its newest submission by this student: one
                   -- probe of learning_submissions_task_student_idx.
                   (select false as lab, t.id as item_id, ls.score, (ls.status = 'GRADED' and ls.score is not null) as graded, ls.submitted_at
                      from learning_tasks t
                      cross join lateral (
                            select sub.score, sub.status, sub.submitted_at
                              from learning_submissions sub
                             where sub.task_id = t.id and sub.student_id = p.s
                             order by sub.submitted_at desc, sub.id desc
                             limit 1) ls
                     where t.course_id = p.c and (t.task_kind = 'HOMEWORK' or t.task_type = 'QUIZ'))
                   union all
                   -- The same per experiment (experiment_submissions_exp_student_idx).
                   (select true, e.id, es.score, es.score is not null, es.submitted_at
                      from experiments e
                      cross join lateral (
                            select sub.score, sub.submitted_at
                              from experiment_submissions sub
                             where sub.experiment_id = e.id and sub.student_id = p.s
                             order by sub.submitted_at desc, sub.id desc
                             limit 1) es
                     where e.course_id = p.c)
                 ) x on true
           group by p.c, p.s) t
   where g.course_id = t.c and g.student_id = t.s;

  delete from grade_totals g
   using unnest(p_courses, p_students) as p (c, s)
   where g.course_id = p.c and g.student_id = p.s and g.task_count = 0 and g.lab_count = 0;
end
$$;

-- What is already there, in one pass over the newest-submission index (sql/006).
update grade_totals g
   set task_submitted = n.task_submitted
  from (select newest.course_id, newest.student_id,
               json_object_agg(newest.task_id, (extract(epoch from newest.submitted_at) * 1000)::bigint) as task_submitted
          from (select distinct on (course_id, task_id, student_id) course_id, task_id, student_id, submitted_at
                  from learning_submissions
                 order by course_id, task_id, student_id, submitted_at desc, id desc) newest
          join learning_tasks t on t.id = newest.task_id and (t.task_kind = 'HOMEWORK' or t.task_type = 'QUIZ')
         group by newest.course_id, newest.student_id) n
 where g.course_id = n.course_id and g.student_id = n.student_id;
