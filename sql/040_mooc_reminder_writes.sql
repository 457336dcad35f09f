-- Reminder events at MOOC scale (issue 26): a homework in a 100,001-student course writes
-- 300,003 events in one statement. Per row it paid for five index entries and, in the statement
-- trigger of sql/027, a FOR KEY SHARE lock on every referenced user (100,001 tuple headers
-- rewritten, WAL for each). Measured with backend CPU time (bench/cpu-variants.ts) on the mooc
-- bench database: without start_once_key the insert cost about a fifth less.
--
-- 1. One unique index instead of two. live_time_key (task, student, trigger, time) and
--    start_once_key (task, student) where START: the same two rules fit one key in which START's
--    time is a constant, so START stays at most once per (task, student) whatever start_at does
--    later, and BEFORE_DUE_24H / DUE once per time. Built before the two are dropped, so there is
--    no moment without the guarantee; every existing row satisfies it (it is implied by the two).
create unique index if not exists homework_reminder_events_live_once_key
  on homework_reminder_events (task_id, target_user_id, trigger_type,
                               (case when trigger_type = 'START' then '-infinity'::timestamptz else scheduled_at end))
  where not canceled;
drop index if exists homework_reminder_events_live_time_key;
drop index if exists homework_reminder_events_start_once_key;

-- 2. The users of new events are checked without locking each of them. A foreign key's
--    FOR KEY SHARE keeps a referenced user from being deleted until the inserting transaction
--    ends; here one shared advisory lock per inserting transaction does the same against the one
--    writer that deletes users (an operator): deleting users takes the lock exclusively before
--    the first row goes (statement trigger below). Either the delete waits until the events are
--    committed, and its cascade (sql/027) deletes them; or the insert waits until the delete is
--    committed, and the existence check, run after the lock in a fresh snapshot, finds the user
--    gone and refuses the statement (23503, as before). Tasks keep their FOR KEY SHARE lock:
--    a statement refers to one task or a handful.
create or replace function homework_reminder_events_check_refs() returns trigger
language plpgsql as $$
declare
  missing int;
begin
  select (select count(distinct n.task_id) from new_rows n)
         - (select count(*) from (select t.id from learning_tasks t
                                   where t.id in (select n.task_id from new_rows n) for key share of t) x)
    into missing;
  if missing = 0 then
    perform pg_advisory_xact_lock_shared(hashtext('cls users deleted'));
    select count(*) into missing
      from (select distinct n.target_user_id as id from new_rows n) d
     where not exists (select 1 from users u where u.id = d.id);
  end if;
  if missing <> 0 then
    raise foreign_key_violation using message = 'a homework reminder event refers to a task or user that does not exist';
  end if;
  return null;
end
$$;

create function users_delete_lock() returns trigger
language plpgsql as $$
begin
  perform pg_advisory_xact_lock(hashtext('cls users deleted'));
  return null;
end
$$;

create trigger users_delete_lock before delete on users
  for each statement execute function users_delete_lock();
