-- The course's conversation (issue 53): class comments under an announcement or a task, and
-- private comments on one student's work for a task (task_id and student_id: that student and
-- the course's teachers only). Rich text sanitised on write (src/lib/richtext.ts), stored as
-- returned. Copies and exports of a course read none of this.
create table comments (
  id              uuid primary key,
  course_id       uuid not null references courses (id) on delete cascade,
  announcement_id uuid references announcements (id) on delete cascade,
  task_id         uuid references learning_tasks (id) on delete cascade,
  -- Set: a private thread (the task's work of this student); null: a class comment.
  student_id      uuid references users (id) on delete cascade,
  author_id       uuid not null references users (id) on delete cascade,
  content         text not null,
  created_at      timestamptz not null,
  -- Null until the author edits it (within 15 minutes of created_at, checked by the service).
  edited_at       timestamptz,
  -- A teacher hid this class comment: students other than its author no longer see it.
  hidden          boolean not null default false,
  check (num_nonnulls(announcement_id, task_id) = 1),
  check (student_id is null or task_id is not null),
  check (not (hidden and student_id is not null))
);

-- One index per kind of thread, in the order pages are read (oldest first, the id breaking
-- ties): a page after a cursor is one range scan whatever the thread's length. They also serve
-- the cascades from announcements and tasks, and "who wrote in this thread" (COMMENT_REPLY).
create index comments_announcement_thread_idx on comments (announcement_id, created_at, id) where announcement_id is not null;
create index comments_task_thread_idx on comments (task_id, created_at, id) where task_id is not null and student_id is null;
create index comments_private_thread_idx on comments (task_id, student_id, created_at, id) where student_id is not null;
-- Deleting an account cascades here.
create index comments_author_idx on comments (author_id);
create index comments_student_idx on comments (student_id) where student_id is not null;

-- A teacher's switch: false turns class comments off for the course's students (reading stays).
alter table courses add column student_comments boolean not null default true;

-- A deleted comment's notifications are retracted (the announcement's way, sql/036).
create index notifications_comment_idx
  on notifications ((params ->> 'commentId')) where notification_type in ('COMMENT_REPLY', 'PRIVATE_COMMENT');
