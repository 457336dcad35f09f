-- Learning structure: unit -> knowledge point -> task, and answer sheets.
-- course_id is repeated on points and tasks so that "does this id belong to that course"
-- is one indexed lookup and course-wide reads need no joins up the tree.

create table learning_units (
  id          uuid primary key,
  course_id   uuid not null references courses (id) on delete cascade,
  title       text not null,
  description text not null default '',
  sort_order  integer not null,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz
);
create index learning_units_course_idx on learning_units (course_id, sort_order);

create table knowledge_points (
  id          uuid primary key,
  unit_id     uuid not null references learning_units (id) on delete cascade,
  course_id   uuid not null references courses (id) on delete cascade,
  title       text not null,
  description text not null default '',
  sort_order  integer not null,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz
);
create index knowledge_points_unit_idx on knowledge_points (unit_id, sort_order);
create index knowledge_points_course_idx on knowledge_points (course_id);

create table learning_tasks (
  id                    uuid primary key,
  point_id              uuid not null references knowledge_points (id) on delete cascade,
  course_id             uuid not null references courses (id) on delete cascade,
  title                 text not null,
  task_kind             text not null check (task_kind in ('LEARNING', 'HOMEWORK')),
  task_type             text not null check (task_type in ('MEDIA', 'QUIZ')),
  material_type         text check (material_type in ('FILE', 'LINK', 'TEXT')),
  content               text not null default '',
  url                   text,
  -- A FILE course resource of the same course, checked by the application on write
  -- (course_resources is created by a later migration, so no foreign key here).
  resource_id           uuid,
  -- [{ id, type, stem, options, correctOptions, points }]
  questions             jsonb not null default '[]',
  start_at              timestamptz,
  due_at                timestamptz,
  notify_on_start       boolean not null default true,
  notify_before_due_24h boolean not null default true,
  notify_on_due         boolean not null default true,
  sort_order            integer not null,
  created_at            timestamptz not null default now(),
  updated_at            timestamptz,
  check (task_kind = 'LEARNING' or (start_at is not null and due_at is not null and due_at > start_at))
);
create index learning_tasks_point_idx on learning_tasks (point_id, sort_order);
create index learning_tasks_course_idx on learning_tasks (course_id);
create index learning_tasks_homework_idx on learning_tasks (course_id, due_at) where task_kind = 'HOMEWORK';

create table learning_submissions (
  id           uuid primary key,
  task_id      uuid not null references learning_tasks (id) on delete cascade,
  course_id    uuid not null references courses (id) on delete cascade,
  student_id   uuid not null references users (id) on delete cascade,
  content      text,
  -- [{ questionId, selectedOptions, text }]
  answers      jsonb,
  auto_score   numeric(6, 2),
  score        numeric(6, 2) check (score between 0 and 100),
  feedback     text,
  status       text not null check (status in ('SUBMITTED', 'GRADED')),
  late         boolean not null default false,
  submitted_at timestamptz not null,
  graded_at    timestamptz,
  graded_by    uuid references users (id),
  check (status = 'SUBMITTED' or (score is not null and graded_at is not null))
);
-- "The newest submission of a student for a task" is the hot lookup.
create index learning_submissions_task_student_idx on learning_submissions (task_id, student_id, submitted_at desc, id desc);
-- The teacher's list of a task's submissions, newest first.
create index learning_submissions_task_newest_idx on learning_submissions (task_id, submitted_at desc, id desc);
create index learning_submissions_course_student_idx on learning_submissions (course_id, student_id);
