-- Experiments with file submissions, and course resources. Files live in storage under
-- generated keys; the client's file name is metadata only.

create table experiments (
  id          uuid primary key,
  course_id   uuid not null references courses (id) on delete cascade,
  title       text not null,
  description text not null,
  due_at      timestamptz not null,
  created_at  timestamptz not null default now(),
  updated_at  timestamptz
);
create index experiments_course_idx on experiments (course_id, due_at);

create table experiment_submissions (
  id            uuid primary key,
  experiment_id uuid not null references experiments (id) on delete cascade,
  course_id     uuid not null references courses (id) on delete cascade,
  student_id    uuid not null references users (id) on delete cascade,
  storage_key   text not null,
  file_name     text not null,
  file_size     bigint not null,
  content_type  text not null,
  note          text,
  late          boolean not null default false,
  submitted_at  timestamptz not null,
  score         numeric(6, 2) check (score between 0 and 100),
  feedback      text,
  graded_at     timestamptz,
  graded_by     uuid references users (id)
);
create index experiment_submissions_exp_student_idx on experiment_submissions (experiment_id, student_id, submitted_at desc, id desc);
-- The teacher's list of an experiment's submissions, newest first.
create index experiment_submissions_exp_time_idx on experiment_submissions (experiment_id, submitted_at desc, id desc);
create index experiment_submissions_course_student_idx on experiment_submissions (course_id, student_id);

create table course_resources (
  id            uuid primary key,
  course_id     uuid not null references courses (id) on delete cascade,
  name          text not null,
  resource_type text not null check (resource_type in ('FILE', 'VIDEO', 'LINK')),
  category      text,
  external_url  text,
  storage_key   text,
  file_name     text,
  file_size     bigint,
  content_type  text,
  created_by    uuid not null references users (id),
  created_at    timestamptz not null default now(),
  check ((resource_type = 'FILE') = (storage_key is not null)),
  check ((resource_type = 'FILE') <> (external_url is not null))
);
create index course_resources_course_idx on course_resources (course_id, created_at desc);

-- A FILE task's material must stay downloadable: a resource in use cannot be deleted
-- (the service answers 409 first; this is the database's guarantee).
alter table learning_tasks
  add constraint learning_tasks_resource_fk foreign key (resource_id) references course_resources (id);
create index learning_tasks_resource_idx on learning_tasks (resource_id) where resource_id is not null;
