-- Reminder dispatch at campus scale (issue 15): fewer index entries per delivered reminder.
--
-- notifications_unread_idx (user_id, notification_type) where read_at is null served counting
-- a user's unread reminders; the counters of sql/012 answer that now, and "mark all read"
-- (user_id = $1 and read_at is null) is served by notifications_user_unread_idx, which has the
-- same predicate and leading column. Every notification written (a dispatch batch writes
-- thousands) paid for one more random-position index entry.
drop index if exists notifications_unread_idx;

-- A dispatch batch writes thousands of notifications in one INSERT … SELECT. As foreign keys,
-- user_id and event_id each ran a lookup-and-lock query per row (about a sixth of the batch's
-- time). As for reminder events in sql/027, the trigger below does that work per statement,
-- for every writer of notifications: every distinct referenced user and event is locked FOR
-- KEY SHARE, as a foreign key check locks it (a concurrent delete waits for this transaction;
-- a row deleted before the lock is not found), and the whole statement is refused with
-- SQLSTATE 23503 when one is missing. ON DELETE CASCADE (users) and ON DELETE SET NULL (events)
-- become statement-level triggers that run in the deleting statement. A notification does not
-- change owner, and its event only goes away (set to null). TRUNCATE of users no longer
-- reaches notifications: name it in the TRUNCATE (bench/seed.ts does).
alter table notifications
  drop constraint if exists notifications_user_id_fkey,
  drop constraint if exists notifications_event_id_fkey;

create function notifications_check_refs() returns trigger
language plpgsql as $$
declare
  missing int;
begin
  select (select count(distinct n.user_id) from new_rows n)
         - (select count(*) from (select u.id from users u
                                   where u.id in (select n.user_id from new_rows n) for key share of u) x)
       + (select count(distinct n.event_id) from new_rows n)
         - (select count(*) from (select e.id from homework_reminder_events e
                                   where e.id in (select n.event_id from new_rows n) for key share of e) y)
    into missing;
  if missing <> 0 then
    raise foreign_key_violation using message = 'a notification refers to a user or reminder event that does not exist';
  end if;
  return null;
end
$$;

create trigger notifications_refs after insert on notifications
  referencing new table as new_rows for each statement execute function notifications_check_refs();

create function notifications_refs_fixed() returns trigger
language plpgsql as $$
begin
  if new.user_id is distinct from old.user_id
     or (new.event_id is not null and new.event_id is distinct from old.event_id) then
    raise foreign_key_violation using message = 'a notification cannot move to another user or reminder event';
  end if;
  return new;
end
$$;

create trigger notifications_refs_fixed before update of user_id, event_id on notifications
  for each row execute function notifications_refs_fixed();

create function notifications_delete_of_users() returns trigger
language plpgsql as $$
begin
  delete from notifications n where n.user_id in (select g.id from gone g);
  return null;
end
$$;

create trigger users_notifications after delete on users
  referencing old table as gone for each statement execute function notifications_delete_of_users();

create function notifications_forget_events() returns trigger
language plpgsql as $$
begin
  update notifications n set event_id = null where n.event_id in (select g.id from gone g);
  return null;
end
$$;

create trigger homework_reminder_events_notifications after delete on homework_reminder_events
  referencing old table as gone for each statement execute function notifications_forget_events();
