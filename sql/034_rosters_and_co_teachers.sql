-- Rosters at any class size, co-teachers and roster invitations (issue 23, issue 30.4).
--
-- 1. Member counts kept by the database. GET /courses (memberCount), the homework and
--    experiment lists (studentCount) and the overviews (total) counted a course's members on
--    every request: a sequential scan of 100,000 rows under a generic plan for a 100k course,
--    paid by every user of the database. course_counters (sql/025) gains the students,
--    co-teachers and pending invitations of each course, kept by statement-level triggers with
--    transition tables in the transaction that writes the rows (whatever writes them: joins,
--    roster imports, leave/remove, cascades), like sql/007, sql/012 and sql/025.

alter table course_counters
  add column students    int not null default 0,
  add column co_teachers int not null default 0,
  add column invitations int not null default 0;

-- Co-teachers: TEACHER accounts with every teacher right in the course except managing
-- co-teachers. The owner stays courses.teacher_id (never a row here); students stay
-- course_members, so every fan-out that reads course_members reaches students only.
create table course_teachers (
  course_id uuid not null references courses (id) on delete cascade,
  user_id   uuid not null references users (id) on delete cascade,
  added_at  timestamptz not null,
  added_by  uuid references users (id) on delete set null,
  primary key (course_id, user_id)
);
-- "My courses" of a co-teacher; deleting a user cascades here.
create index course_teachers_user_idx on course_teachers (user_id, added_at);

-- Pending invitations of a roster import: an address with no account yet. The address is
-- stored lower-cased (addresses compare case-insensitively); one invitation per (course,
-- address) makes a re-import change nothing. Enrolment deletes the row.
create table course_invitations (
  id         uuid primary key,
  course_id  uuid not null references courses (id) on delete cascade,
  email      text not null check (email = lower(email)),
  invited_by uuid references users (id) on delete set null,
  created_at timestamptz not null,
  unique (course_id, email)
);
-- Registration looks up an address's invitations; the list pages in creation order.
create index course_invitations_email_idx on course_invitations (email);
create index course_invitations_course_idx on course_invitations (course_id, created_at, id);

-- One function for the counters of the three tables: tg_argv[0] names the counter column,
-- the transition table `changed` holds the rows (inserted or deleted). One upsert per
-- statement and course, in course order (concurrent writers lock the rows in the same order).
create function course_counters_count_rows() returns trigger
language plpgsql as $$
begin
  execute format(
    'insert into course_counters as c (course_id, %1$I)
     select d.course_id, d.n
       from (select course_id, %2$s * count(*)::int as n from changed group by course_id) d
      -- A course being deleted (its rows go with it by cascade) keeps no counter row.
      where exists (select 1 from courses x where x.id = d.course_id)
      order by d.course_id
     on conflict (course_id) do update set %1$I = c.%1$I + excluded.%1$I',
    tg_argv[0], case tg_op when 'INSERT' then '1' else '-1' end);
  return null;
end
$$;

-- No update triggers: no route moves a membership, co-teacher or invitation to another course.
create trigger course_members_counters_ins after insert on course_members
  referencing new table as changed for each statement execute function course_counters_count_rows('students');
create trigger course_members_counters_del after delete on course_members
  referencing old table as changed for each statement execute function course_counters_count_rows('students');
create trigger course_teachers_counters_ins after insert on course_teachers
  referencing new table as changed for each statement execute function course_counters_count_rows('co_teachers');
create trigger course_teachers_counters_del after delete on course_teachers
  referencing old table as changed for each statement execute function course_counters_count_rows('co_teachers');
create trigger course_invitations_counters_ins after insert on course_invitations
  referencing new table as changed for each statement execute function course_counters_count_rows('invitations');
create trigger course_invitations_counters_del after delete on course_invitations
  referencing old table as changed for each statement execute function course_counters_count_rows('invitations');

-- What is already there.
insert into course_counters as c (course_id, students)
select course_id, count(*)::int from course_members group by course_id
on conflict (course_id) do update set students = excluded.students;

-- 2. The members list in join order, read from one index without touching the table (an
--    index-only walk, also for page N and the name search), and from a keyset cursor in
--    constant time. Replaces sql/002's (course_id, joined_at, user_id) index, which it covers.
create index course_members_join_order_idx
    on course_members (course_id, joined_at, user_id)
       include (username, display_name);
drop index if exists course_members_course_joined_idx;

analyze course_members;
