-- Homework fan-out at campus scale (issue 15): the references of reminder events are checked
-- once per statement instead of once per row.
--
-- A homework in a 2,000-student course writes 6,000 events in one INSERT … SELECT. As foreign
-- keys, task_id and target_user_id each ran a lookup-and-lock query per row (12,000 per
-- homework, about 40 % of the insert's time). The trigger below does the same work per
-- statement: it locks every distinct referenced task and user FOR KEY SHARE, as a foreign key
-- check does (a concurrent delete of one of them waits for this transaction, and a row deleted
-- before the lock is not found), and refuses the whole statement (SQLSTATE 23503, like a
-- foreign key) when one is missing. ON DELETE CASCADE becomes statement-level delete triggers
-- on learning_tasks and users, which run in the deleting statement as the cascade did (also
-- for deletes cascaded from courses, points and units). Changing an event's task or student is
-- refused (nothing does it). TRUNCATE of users or learning_tasks no longer reaches this table:
-- name it in the TRUNCATE (bench/seed.ts does).

alter table homework_reminder_events
  drop constraint if exists homework_reminder_events_task_id_fkey,
  drop constraint if exists homework_reminder_events_target_user_id_fkey;

create function homework_reminder_events_check_refs() returns trigger
language plpgsql as $$
declare
  missing int;
begin
  select (select count(distinct n.task_id) from new_rows n)
         - (select count(*) from (select t.id from learning_tasks t
                                   where t.id in (select n.task_id from new_rows n) for key share of t) x)
       + (select count(distinct n.target_user_id) from new_rows n)
         - (select count(*) from (select u.id from users u
                                   where u.id in (select n.target_user_id from new_rows n) for key share of u) y)
    into missing;
  if missing <> 0 then
    raise foreign_key_violation using message = 'a homework reminder event refers to a task or user that does not exist';
  end if;
  return null;
end
$$;

create trigger homework_reminder_events_refs after insert on homework_reminder_events
  referencing new table as new_rows for each statement execute function homework_reminder_events_check_refs();

create function homework_reminder_events_refs_fixed() returns trigger
language plpgsql as $$
begin
  if new.task_id is distinct from old.task_id or new.target_user_id is distinct from old.target_user_id then
    raise foreign_key_violation using message = 'a homework reminder event cannot move to another task or user';
  end if;
  return new;
end
$$;

create trigger homework_reminder_events_refs_fixed before update of task_id, target_user_id on homework_reminder_events
  for each row execute function homework_reminder_events_refs_fixed();

create function homework_reminder_events_delete_of_tasks() returns trigger
language plpgsql as $$
begin
  -- Two statements, one per index: live events by homework_reminder_events_live_time_key,
  -- canceled ones by homework_reminder_events_canceled_task_idx (below).
  delete from homework_reminder_events e where e.task_id in (select g.id from gone g) and not e.canceled;
  delete from homework_reminder_events e where e.task_id in (select g.id from gone g) and e.canceled;
  return null;
end
$$;

create trigger learning_tasks_reminder_events after delete on learning_tasks
  referencing old table as gone for each statement execute function homework_reminder_events_delete_of_tasks();

create function homework_reminder_events_delete_of_users() returns trigger
language plpgsql as $$
begin
  -- A scan of the table (no index on target_user_id, see below): users are not deleted by the
  -- service, only by an operator.
  delete from homework_reminder_events e where e.target_user_id in (select g.id from gone g);
  return null;
end
$$;

create trigger users_reminder_events after delete on users
  referencing old table as gone for each statement execute function homework_reminder_events_delete_of_users();

-- Two indexes every event paid for on insert and on every state change (an update that sets
-- sent_at or canceled is not HOT: the pending index's predicate names both), for lookups that
-- need them rarely. Measured on the campus set (backend CPU of one 6,000-event fan-out):
-- about 30 ms less without target_idx, 5-10 ms less again without task_idx (out of 73-108).
--  - homework_reminder_events_target_idx (target_user_id) served only the cascade when a user
--    is deleted, which the service never does (an operator may; it scans the table then).
--  - homework_reminder_events_task_idx (task_id, scheduled_at) served a homework's events:
--    the live ones are found by homework_reminder_events_live_time_key (task_id first, where
--    not canceled), the canceled ones by this smaller index. Queries by task say which half
--    they want (eventsOfHomework, the delete trigger above).
create index homework_reminder_events_canceled_task_idx on homework_reminder_events (task_id) where canceled;
drop index if exists homework_reminder_events_task_idx;
drop index if exists homework_reminder_events_target_idx;
