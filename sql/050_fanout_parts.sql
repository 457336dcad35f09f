-- The background fan-out (045) in parts (issue 26). A job was one queue row, so one runner wrote
-- a homework's 300,000 events or an announcement's 100,000 notifications chunk after chunk on one
-- core while the other idled (1.9 s for a new homework of a 100,001-student course, 2.5 s for a
-- moved deadline). A job is now queued as FANOUT_WORKERS parts, each a range of the course's
-- students in course_members order, (after_user as queued, up_to_user], with a cursor of its own:
-- runners claim parts FOR UPDATE SKIP LOCKED as they claimed jobs, so the parts of one job are
-- written at once, each chunk still one transaction with its part's cursor.
--
-- `up_to_user`: the part's last student, null for the last part (to the end of the course). A row
-- queued before this migration is part 0 with no bound: the whole rest of the course, as before.

alter table reminder_fanout add column part smallint not null default 0;
alter table reminder_fanout add column up_to_user uuid;
alter table reminder_fanout drop constraint reminder_fanout_pkey;
alter table reminder_fanout add primary key (task_id, part);

alter table announcement_fanout add column part smallint not null default 0;
alter table announcement_fanout add column up_to_user uuid;
alter table announcement_fanout drop constraint announcement_fanout_pkey;
alter table announcement_fanout add primary key (announcement_id, part);
