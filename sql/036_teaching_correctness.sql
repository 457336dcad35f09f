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
