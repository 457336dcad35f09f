-- Grading teachers expect (issue 54): grades released when the teacher says, rubrics.
--
-- Release. A task's (and an experiment's) grade_release is AUTOMATIC (as before: a grade is
-- the student's when it is saved) or MANUAL. Under MANUAL a grade is kept in the held_*
-- columns of the sheet and the sheet's own score, feedback and status stay as they were
-- (SUBMITTED, null) until the teacher releases the task: the release moves held_* into the
-- sheet's columns in one statement. So every route, total, trigger and export that reads the
-- sheet's score (grade_totals, the gradebook, the homework centre, the CSV, notifications…)
-- shows a held grade to nobody without knowing about release at all: nothing to forget in a
-- student-facing route. The teacher's own lists of sheets show the held grade (released: false).
alter table learning_tasks
  add column grade_release text not null default 'AUTOMATIC' check (grade_release in ('AUTOMATIC', 'MANUAL')),
  -- { criteria: [{ id, title, description, questionId?, levels: [{ id, title, description, points }] }] }
  add column rubric jsonb;
alter table experiments
  add column grade_release text not null default 'AUTOMATIC' check (grade_release in ('AUTOMATIC', 'MANUAL')),
  add column rubric jsonb;

alter table learning_submissions
  add column held_score numeric(6, 2) check (held_score between 0 and 100),
  add column held_question_scores jsonb,
  add column held_feedback text,
  -- [{ criterionId, levelId }]: the rubric levels of the held grade.
  add column held_rubric jsonb,
  -- Set while a grade is held (when it was given); null when nothing waits for release.
  add column held_at timestamptz,
  -- The rubric levels of the released grade.
  add column rubric_choices jsonb,
  add check (held_at is null or held_score is not null);
alter table experiment_submissions
  add column held_score numeric(6, 2) check (held_score between 0 and 100),
  add column held_feedback text,
  add column held_rubric jsonb,
  add column held_at timestamptz,
  add column rubric_choices jsonb,
  add check (held_at is null or held_score is not null);

-- A release reads only the sheets that wait for it, whatever the task's history.
create index learning_submissions_held_idx on learning_submissions (task_id) where held_at is not null;
create index experiment_submissions_held_idx on experiment_submissions (experiment_id) where held_at is not null;
