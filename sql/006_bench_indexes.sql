-- Indexes found missing by the benchmark (bench/run.ts, bench/RESULTS.md).
--
-- "The newest submission per (task, student) of a whole course" is read by the teacher's
-- learning overview (src/modules/learning/submission-queries.ts, learningOverview) and by the
-- grade overview (src/modules/grades/queries.ts, studentTotals):
--
--   select distinct on (s.task_id, s.student_id) s.student_id, s.status, s.score
--     from learning_submissions s
--    where s.course_id = $1
--    order by s.task_id, s.student_id, s.submitted_at desc, s.id desc
--
-- With only (course_id, student_id) PostgreSQL fetched every submission of the course through
-- a bitmap heap scan and sorted them (about 14,000 rows for a 300-student course with 100
-- tasks: a 2 MB quicksort on uuid keys, most of the query's time). This index returns the rows
-- of one course already in DISTINCT ON order, and INCLUDE (status, score) makes it an
-- index-only scan: no sort, no heap access.
create index learning_submissions_course_newest_idx
  on learning_submissions (course_id, task_id, student_id, submitted_at desc, id desc)
  include (status, score);
