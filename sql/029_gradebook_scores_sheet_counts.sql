-- The gradebook's task scores kept with the per-student totals, the newest experiment
-- submissions of a course readable in order, and answer sheets counted per task and student.
--
-- The grade overview's cells are the score of each student's newest submission per task. They
-- were read on every request from learning_submissions: for the 2,000-student course 85,000
-- index entries and 52,000 rows sent to the service (about 60 ms; 13 ms for a page of 200
-- students, bench/RESULTS.md, issue 15). refresh_grade_totals (sql/007) already finds those
-- newest submissions for every (course, student) it touches; it now also keeps their scores,
-- task id → score for the graded ones, so the overview reads them with the totals: one row
-- per student.

-- json, not jsonb: written whole and read whole, never searched; json's text is sent as stored
-- (2,000 rows: 3.5 ms against 9.6 ms for jsonb's output).
alter table grade_totals add column task_scores json not null default '{}';

-- As in sql/007, plus task_scores; and the newest submission per task and per experiment is
-- found by one index probe each (learning_submissions_task_student_idx,
-- experiment_submissions_exp_student_idx) instead of reading and sorting every submission the
-- student ever made in the course, so a submission or a grading costs the same whatever the
-- student's history (issue 11 soak: ~2,000 lab uploads per student; issue 15: 10,000 older
-- answer sheets). Tasks and experiments belong to one course, and so do their submissions.
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
                     where t.course_id = p.c)
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

-- What is already there, in one pass over the newest-submission index (sql/006).
update grade_totals g
   set task_scores = n.task_scores
  from (select course_id, student_id, json_object_agg(task_id, score) as task_scores
          from (select distinct on (course_id, task_id, student_id) course_id, task_id, student_id, score
                  from learning_submissions
                 order by course_id, task_id, student_id, submitted_at desc, id desc) newest
         where score is not null
         group by course_id, student_id) n
 where g.course_id = n.course_id and g.student_id = n.student_id;

-- A student's newest submission per experiment, in (student, experiment) order with no sort:
-- the grade overview (a course, or a page of its students) and refresh_grade_totals. It
-- serves every lookup the (course_id, student_id) index did.
create index experiment_submissions_course_student_newest_idx
    on experiment_submissions (course_id, student_id, experiment_id, submitted_at desc, id desc);
drop index experiment_submissions_course_student_idx;

-- Answer sheets per (task, student), kept by triggers: the `total` of a task's submission list
-- (GET …/learning/tasks/{taskId}/submissions). Counting them on every request read every
-- sheet of the student (or of the task) whatever the page: 10,085 sheets of one student on a
-- task took 2 ms of index scan for a page of 50 (0.14 ms), and the request rate fell with the
-- length of the history. A student submits again and again; every submission is kept.
create table learning_sheet_counts (
  task_id    uuid not null references learning_tasks (id) on delete cascade,
  student_id uuid not null references users (id) on delete cascade,
  sheets     int not null,
  primary key (task_id, student_id)
);

-- Statement-level, like grade_totals: bulk inserts and cascades count once per statement.
-- Sheets never move to another task or student, so updates need no trigger.
create function learning_sheet_counts_after_insert() returns trigger
language plpgsql as $$
begin
  insert into learning_sheet_counts (task_id, student_id, sheets)
  select task_id, student_id, count(*)::int from added group by task_id, student_id
   order by 1, 2
  on conflict (task_id, student_id) do update set sheets = learning_sheet_counts.sheets + excluded.sheets;
  return null;
end
$$;

create function learning_sheet_counts_after_delete() returns trigger
language plpgsql as $$
begin
  -- A cascade from a deleted task or user has already removed the counter rows: nothing to do.
  update learning_sheet_counts c
     set sheets = c.sheets - d.n
    from (select task_id, student_id, count(*)::int as n from removed group by task_id, student_id) d
   where c.task_id = d.task_id and c.student_id = d.student_id;
  delete from learning_sheet_counts c
   using (select distinct task_id, student_id from removed) d
   where c.task_id = d.task_id and c.student_id = d.student_id and c.sheets <= 0;
  return null;
end
$$;

create trigger learning_submissions_sheets_ins after insert on learning_submissions
  referencing new table as added for each statement execute function learning_sheet_counts_after_insert();
create trigger learning_submissions_sheets_del after delete on learning_submissions
  referencing old table as removed for each statement execute function learning_sheet_counts_after_delete();

insert into learning_sheet_counts (task_id, student_id, sheets)
select task_id, student_id, count(*)::int from learning_submissions group by task_id, student_id;

analyze grade_totals;
analyze experiment_submissions;
analyze learning_sheet_counts;
