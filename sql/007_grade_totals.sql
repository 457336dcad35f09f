-- Per (course, student) totals behind the teacher's learning overview and the grade overview,
-- maintained by triggers.
--
-- Both count, per student, the newest submission of every learning task (and, for grades,
-- every experiment) of the course: how many, how many graded, their average score. Computing
-- that from the submissions on every read took 13-15 ms of database time for a 300-student
-- course with 100 tasks (14,000 submissions, bench/RESULTS.md), the largest cost of both
-- endpoints. Here it is kept up to date on write, for the one (course, student) pair a
-- submission or a grading touches, so the overviews read one row per student.
--
-- Statement-level triggers with transition tables recompute each touched pair once per
-- statement, whatever wrote the rows (routes, cascades from deleting a task or a course,
-- bulk loads). Recomputing rather than adding deltas keeps the rule in one place.

create table grade_totals (
  course_id        uuid not null references courses (id) on delete cascade,
  student_id       uuid not null references users (id) on delete cascade,
  -- newest submission per learning task: how many, how many graded, the sum of their scores
  task_count       int not null,
  task_graded      int not null,
  task_score_sum   numeric not null,
  -- the same per experiment
  lab_count        int not null,
  lab_graded       int not null,
  lab_score_sum    numeric not null,
  primary key (course_id, student_id)
);

create function refresh_grade_totals(p_courses uuid[], p_students uuid[]) returns void
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
         lab_count = t.lab_count, lab_graded = t.lab_graded, lab_score_sum = t.lab_score_sum
    from (select p.c, p.s,
                 count(*) filter (where x.lab = false)::int as task_count,
                 count(*) filter (where x.lab = false and x.graded)::int as task_graded,
                 coalesce(sum(x.score) filter (where x.lab = false and x.graded), 0) as task_score_sum,
                 count(*) filter (where x.lab)::int as lab_count,
                 count(*) filter (where x.lab and x.graded)::int as lab_graded,
                 coalesce(sum(x.score) filter (where x.lab and x.graded), 0) as lab_score_sum
            from (select distinct c, s from unnest(p_courses, p_students) as u (c, s)) p
            left join lateral (
                   (select distinct on (ls.task_id) false as lab, ls.score,
                           (ls.status = 'GRADED' and ls.score is not null) as graded
                      from learning_submissions ls
                     where ls.course_id = p.c and ls.student_id = p.s
                     order by ls.task_id, ls.submitted_at desc, ls.id desc)
                   union all
                   (select distinct on (es.experiment_id) true, es.score, es.score is not null
                      from experiment_submissions es
                     where es.course_id = p.c and es.student_id = p.s
                     order by es.experiment_id, es.submitted_at desc, es.id desc)
                 ) x on true
           group by p.c, p.s) t
   where g.course_id = t.c and g.student_id = t.s;

  delete from grade_totals g
   using unnest(p_courses, p_students) as p (c, s)
   where g.course_id = p.c and g.student_id = p.s and g.task_count = 0 and g.lab_count = 0;
end
$$;

-- `changed` is the transition table of the trigger that calls this (new rows for INSERT and
-- UPDATE, old rows for DELETE). A submission never moves to another course or student.
create function grade_totals_after_change() returns trigger
language plpgsql as $$
begin
  perform refresh_grade_totals(array_agg(d.course_id), array_agg(d.student_id))
     from (select distinct course_id, student_id from changed) d
   having count(*) > 0;
  return null;
end
$$;

create trigger learning_submissions_totals_ins after insert on learning_submissions
  referencing new table as changed for each statement execute function grade_totals_after_change();
create trigger learning_submissions_totals_upd after update on learning_submissions
  referencing new table as changed for each statement execute function grade_totals_after_change();
create trigger learning_submissions_totals_del after delete on learning_submissions
  referencing old table as changed for each statement execute function grade_totals_after_change();
create trigger experiment_submissions_totals_ins after insert on experiment_submissions
  referencing new table as changed for each statement execute function grade_totals_after_change();
create trigger experiment_submissions_totals_upd after update on experiment_submissions
  referencing new table as changed for each statement execute function grade_totals_after_change();
create trigger experiment_submissions_totals_del after delete on experiment_submissions
  referencing old table as changed for each statement execute function grade_totals_after_change();

-- What is already there.
select refresh_grade_totals(array_agg(d.course_id), array_agg(d.student_id))
  from (select course_id, student_id from learning_submissions
         union
        select course_id, student_id from experiment_submissions) d
having count(*) > 0;
