-- Courses, membership, announcements and workspace module configuration.

create table courses (
  id           uuid primary key,
  teacher_id   uuid not null references users (id),
  title        text not null,
  description  text not null,
  invite_code  text not null,
  joining_open boolean not null default true,
  created_at   timestamptz not null default now()
);
create unique index courses_invite_code_key on courses (invite_code);
create index courses_teacher_idx on courses (teacher_id, created_at);

-- Students of a course. The teacher is courses.teacher_id, not a row here.
create table course_members (
  course_id  uuid not null references courses (id) on delete cascade,
  user_id    uuid not null references users (id) on delete cascade,
  joined_at  timestamptz not null default now(),
  primary key (course_id, user_id)
);
create index course_members_user_idx on course_members (user_id, joined_at);

create table announcements (
  id         uuid primary key,
  course_id  uuid not null references courses (id) on delete cascade,
  author_id  uuid not null references users (id),
  title      text not null,
  content    text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz
);
create index announcements_course_idx on announcements (course_id, created_at desc, id desc);

create table workspace_modules (
  course_id  uuid not null references courses (id) on delete cascade,
  module_key text not null,
  enabled    boolean not null,
  sort_order integer not null,
  primary key (course_id, module_key)
);
