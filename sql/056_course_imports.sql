-- Course imports (issue 51): one row per uploaded package (a Moodle backup or a Common
-- Cartridge). The package is stored under storage_key while the job waits or runs; the runner of
-- any instance claims a due row FOR UPDATE SKIP LOCKED with a lease (the e-mail outbox's way),
-- reads the package, stores its files and writes the whole course in one transaction at the end,
-- so a killed import never leaves a course that looks complete: its lease runs out, the next
-- runner starts it again (attempts), and after three attempts it is FAILED.
create table course_imports (
  id            uuid primary key,
  teacher_id    uuid not null references users (id) on delete cascade,
  state         text not null default 'QUEUED' check (state in ('QUEUED', 'RUNNING', 'DONE', 'FAILED')),
  progress      smallint not null default 0 check (progress between 0 and 100),
  -- The uploaded package; null once the job is over (the file is removed then).
  storage_key   text,
  file_name     text not null,
  file_size     bigint not null,
  shift_days    integer not null default 0 check (shift_days between -3650 and 3650),
  -- The course the import made (DONE); the course's deletion leaves the record.
  course_id     uuid references courses (id) on delete set null,
  -- { created: {...}, skipped: [{ kind, title, reason }] } once DONE.
  report        jsonb,
  -- { code, message } once FAILED.
  error         jsonb,
  attempts      integer not null default 0,
  lease_until   timestamptz,
  created_at    timestamptz not null,
  updated_at    timestamptz not null
);

-- The runner's claim: the waiting and the running (a lease may have run out) rows.
create index course_imports_due_idx on course_imports (created_at) where state in ('QUEUED', 'RUNNING');
-- Deleting an account cascades here.
create index course_imports_teacher_idx on course_imports (teacher_id);
create index course_imports_course_idx on course_imports (course_id) where course_id is not null;
