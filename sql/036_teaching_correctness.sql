-- Teaching correctness (issue 29): what the learning pages need to be exact.

-- One hand-in per attempt: a student's client sends an Idempotency-Key with each attempt; the
-- same key again (a double click, a retry after a lost answer) finds the first submission
-- instead of making a second. Unique per task and student, only where a key was given.
alter table learning_submissions add column if not exists idempotency_key text;
create unique index if not exists learning_submissions_idempotency_idx
  on learning_submissions (task_id, student_id, idempotency_key) where idempotency_key is not null;

-- An announcement's notifications follow it: an edit rewrites them, a delete retracts them
-- (the counters of sql/012 follow by their triggers). Found by the announcement id in params.
create index if not exists notifications_announcement_idx
  on notifications ((params ->> 'announcementId')) where notification_type = 'ANNOUNCEMENT';


-- One authoritative total (issue 29.5): what a student hands in is homework, quizzes and
-- experiments, the gradebook's columns. Submissions to reading/video material (the API takes
-- them; the web app never offers it) no longer count in grade_totals, so the gradebook, the
-- learning overview and the student's Grades page read the same numbers. As sql/029 with one
-- condition added on the learning tasks.
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
         task_scores = t.task_scores
    from (select p.c, p.s,
                 count(*) filter (where x.lab = false)::int as task_count,
                 count(*) filter (where x.lab = false and x.graded)::int as task_graded,
                 coalesce(sum(x.score) filter (where x.lab = false and x.graded), 0) as task_score_sum,
                 count(*) filter (where x.lab)::int as lab_count,
                 count(*) filter (where x.lab and x.graded)::int as lab_graded,
                 coalesce(sum(x.score) filter (where x.lab and x.graded), 0) as lab_score_sum,
                 coalesce(json_object_agg(x.item_id, x.score) filter (where x.lab = false and x.score is not null), '{}') as task_scores
            from (select distinct c, s from unnest(p_courses, p_students) as u (c, s)) p
            left join lateral (
                   -- Per task of the course, its newest submission by this student: one
                   -- probe of learning_submissions_task_student_idx, however many attempts
                   -- came before (was: every submission of the student, sorted).
                   (select false as lab, t.id as item_id, ls.score, (ls.status = 'GRADED' and ls.score is not null) as graded
                      from learning_tasks t
                      cross join lateral (
                            select sub.score, sub.status
                              from learning_submissions sub
                             where sub.task_id = t.id and sub.student_id = p.s
                             order by sub.submitted_at desc, sub.id desc
                             limit 1) ls
                     where t.course_id = p.c and (t.task_kind = 'HOMEWORK' or t.task_type = 'QUIZ'))
                   union all
                   -- The same per experiment (experiment_submissions_exp_student_idx).
                   (select true, e.id, es.score, es.score is not null
                      from experiments e
                      cross join lateral (
                            select sub.score
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

-- A task that becomes (or stops being) homework or a quiz changes what its sheets count for.
create or replace function grade_totals_after_task_kind() returns trigger
language plpgsql as $$
begin
  perform refresh_grade_totals(array_agg(d.course_id), array_agg(d.student_id))
     from (select distinct s.course_id, s.student_id
             from new_rows n
             join old_rows o on o.id = n.id
             join learning_submissions s on s.task_id = n.id
            where (n.task_kind, n.task_type) is distinct from (o.task_kind, o.task_type)) d
   having count(*) > 0;
  return null;
end
$$;

drop trigger if exists learning_tasks_grade_totals_kind on learning_tasks;
create trigger learning_tasks_grade_totals_kind after update on learning_tasks
  referencing old table as old_rows new table as new_rows for each statement execute function grade_totals_after_task_kind();

-- Recount what is there with the new rule.
select refresh_grade_totals(array_agg(d.course_id), array_agg(d.student_id))
  from (select distinct course_id, student_id from learning_submissions) d
having count(*) > 0;
