-- Background fan-out for large courses (issue 26). A homework or an announcement in a course of
-- 100,000 students writes 300,000 reminder events or 100,000 notifications: seconds of database
-- work that the teacher's request used to wait for. Above FANOUT_INLINE_STUDENTS students the
-- request now commits the task or the announcement together with one of these rows, and the
-- fan-out runs right after the commit in chunks of FANOUT_CHUNK_STUDENTS students, each chunk a
-- transaction that also advances `after_user` (src/modules/fanout). A row is the durable promise:
-- a crash between chunks leaves it, and the next runner (any instance, FANOUT_CRON) goes on from
-- `after_user`. Runners claim rows FOR UPDATE SKIP LOCKED, so each chunk is done once.

-- A homework's events brought in line with its current times, for students after `after_user`
-- (course_members order). One row per task: a later edit merges into it and starts over.
create table reminder_fanout (
  task_id      uuid primary key references learning_tasks (id) on delete cascade,
  course_id    uuid not null references courses (id) on delete cascade,
  -- The time of the request: the reminder rules' `now` (START at `now` for an open homework).
  requested_at timestamptz not null,
  -- As homeworkScheduleChanged's `published`: START at `now` when the homework is open.
  published    boolean not null,
  -- The triggers whose events are regenerated (the others keep theirs).
  triggers     text[] not null,
  after_user   uuid,
  queued_at    timestamptz not null default now()
);
create index reminder_fanout_queue_idx on reminder_fanout (queued_at);
create index reminder_fanout_course_idx on reminder_fanout (course_id);

-- An announcement's notifications for students after `after_user`.
create table announcement_fanout (
  announcement_id uuid primary key references announcements (id) on delete cascade,
  course_id       uuid not null references courses (id) on delete cascade,
  after_user      uuid,
  queued_at       timestamptz not null default now()
);
create index announcement_fanout_queue_idx on announcement_fanout (queued_at);
create index announcement_fanout_course_idx on announcement_fanout (course_id);
