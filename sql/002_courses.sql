-- Courses, membership, announcements and workspace module configuration.

create table courses (
  id           uuid primary key,
  teacher_id   uuid not null references users (id),
  title        text not null,
  description  text not null,
  -- 8 characters from an alphabet without look-alikes, stored upper case; unique.
  invite_code  text not null,
  -- The teacher can close joining; a closed course refuses its invite code.
  joining_open boolean not null default true,
  created_at   timestamptz not null default now()
);
create unique index courses_invite_code_key on courses (invite_code);
create index courses_teacher_idx on courses (teacher_id, created_at);

-- Students of a course. The teacher is courses.teacher_id, not a row here.
-- The primary key is what makes concurrent joins safe: one row per (course, student).
create table course_members (
  course_id  uuid not null references courses (id) on delete cascade,
  user_id    uuid not null references users (id) on delete cascade,
  joined_at  timestamptz not null default now(),
  primary key (course_id, user_id)
);
-- "My courses" for a student, and the member list in join order.
create index course_members_user_idx on course_members (user_id, joined_at);
create index course_members_course_joined_idx on course_members (course_id, joined_at, user_id);

create table announcements (
  id         uuid primary key,
  course_id  uuid not null references courses (id) on delete cascade,
  author_id  uuid not null references users (id),
  title      text not null,
  -- Sanitised rich text (src/lib/richtext.ts); stored as returned.
  content    text not null,
  created_at timestamptz not null default now(),
  -- Equal to created_at until the announcement is edited.
  updated_at timestamptz not null default now()
);
create index announcements_course_idx on announcements (course_id, created_at desc, id desc);

-- Only saved modules have a row; the others take their defaults (enabled, in key order).
create table workspace_modules (
  course_id  uuid not null references courses (id) on delete cascade,
  module_key text not null check (module_key in
               ('OVERVIEW', 'LEARNING', 'HOMEWORK', 'QUIZ', 'GRADES', 'EXPERIMENTS', 'RESOURCES', 'ANNOUNCEMENTS')),
  enabled    boolean not null,
  sort_order integer not null check (sort_order between 0 and 1000),
  primary key (course_id, module_key)
);
