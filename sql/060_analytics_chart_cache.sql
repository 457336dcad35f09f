-- The charts' answers (issue 54), kept per course, chart and subject (the task, or the course for
-- the totals) with the course's gradebook version (sql/030) they were computed at.
--
-- Every input of a chart raises that version in the writing transaction: a hand-in, a grading,
-- a release, a regrade or any other write to learning_submissions refreshes the student's
-- grade_totals row (sql/007, sql/029), which raises it; so do writes to course_members (a
-- student joining, leaving, or deleted with their account), learning_tasks (a due time, the
-- questions, a task deleted) and grade_totals itself. Two snapshots that read the same version
-- therefore read the same chart, and an entry is served only when its version is the course's
-- current one (src/modules/analytics/service.ts): a keyed read instead of an aggregate over the
-- task's sheets, on any instance. The answer is computed again after any write to the course.
--
-- Written by the reader that missed, outside its snapshot, and only forwards (the version only
-- grows): a slow reader of an older version does not replace a newer entry.
create table analytics_chart_cache (
  course_id uuid not null references courses (id) on delete cascade,
  chart     text not null,
  subject   uuid not null,
  version   bigint not null,
  data      jsonb not null,
  primary key (course_id, chart, subject)
);
