-- Fewer probes and index entries per notification written (issue 26: dispatching 100,001
-- reminders, 10 % of them mailed). Measured per dispatch batch of 2,000 on the mooc bench with
-- auto_explain's trigger times (bench/probe-batch-ab.ts, 4 batches per variant, interleaved):
-- the counter trigger 20-21 ms -> 14-15 ms (1), the reference check 6-10 ms -> 3-6 ms (2), the
-- outbox's foreign keys 7-9 ms -> under 1 ms (3); the batch's statement took 85-100 ms.

-- 1. notification_counters: every notification written and every one read rewrites its user's
--    counter row. With full pages the new version found no room on its page, so 87 % of the
--    updates were not HOT (pg_stat_user_tables after a mooc bench run): each wrote a new
--    primary-key entry, and the table grew with every dispatch (137 MB for 102,000 rows). With
--    room on every page the update stays on its page (HOT) and the page is pruned in place.
--    Rows written before this migration move to a page with room on their next update, once.
alter table notification_counters set (fillfactor = 50);

-- 2. notifications_check_refs (sql/044) probed the user and the event of every reminder
--    notification. A notification of an event is now checked once, against the event and its
--    student together: the event must exist and be for that notification's user. That implies the
--    user: deleting a user deletes their events in the same transaction (sql/027), under the
--    advisory lock this trigger holds shared (sql/040), so an event seen here has its student. It
--    is also a rule more than before: a reminder goes to the student it was made for.
create or replace function notifications_check_refs() returns trigger
language plpgsql as $$
declare
  missing int;
begin
  perform pg_advisory_xact_lock_shared(hashtext('cls users deleted'));
  select (select count(*) from (select distinct n.user_id as id from new_rows n where n.event_id is null) d
           where not exists (select 1 from users u where u.id = d.id))
       + (select count(*) from new_rows n
           where n.event_id is not null
             and not exists (select 1 from homework_reminder_events e where e.id = n.event_id and e.target_user_id = n.user_id))
    into missing;
  if missing <> 0 then
    raise foreign_key_violation using message = 'a notification refers to a user or reminder event that does not exist, or to an event of another user';
  end if;
  return null;
end
$$;

-- 3. email_outbox's foreign keys (notification_id -> notifications, user_id -> users, both ON
--    DELETE CASCADE, sql/013) ran a lookup-and-lock query per outbox row: a FOR KEY SHARE on the
--    notification the same statement had just written and on its user (a WAL record each). They
--    become statement triggers, as those of notifications did in sql/026 and 044:
--    - insert: one query per statement. A notification mail is checked against its notification
--      and user together (the notification must exist and be that user's; deleting a user deletes
--      their notifications in the same transaction, sql/026); an account mail against its user,
--      under the shared advisory lock that deleting users takes exclusively (sql/040). The
--      notification is not locked: the one writer of notification_id, the e-mail channel, writes
--      it for a notification of its own statement, which no other transaction can see yet.
--    - delete of notifications or users: their outbox rows go in one statement, by key
--      (`= any(array)`: an index scan whatever the planner thinks of the transition table).
--    - update: an outbox row keeps its notification and user.
alter table email_outbox drop constraint if exists email_outbox_notification_id_fkey;
alter table email_outbox drop constraint if exists email_outbox_user_id_fkey;

create function email_outbox_check_refs() returns trigger
language plpgsql as $$
declare
  missing int;
begin
  perform pg_advisory_xact_lock_shared(hashtext('cls users deleted'));
  select (select count(*) from (select distinct o.user_id as id from new_rows o
                                 where o.notification_id is null and o.user_id is not null) d
           where not exists (select 1 from users u where u.id = d.id))
       + (select count(*) from new_rows o
           where o.notification_id is not null
             and not exists (select 1 from notifications n where n.id = o.notification_id and n.user_id = o.user_id))
    into missing;
  if missing <> 0 then
    raise foreign_key_violation using message = 'an outbox row refers to a user or notification that does not exist, or to a notification of another user';
  end if;
  return null;
end
$$;

create trigger email_outbox_refs after insert on email_outbox
  referencing new table as new_rows for each statement execute function email_outbox_check_refs();

create function email_outbox_refs_fixed() returns trigger
language plpgsql as $$
begin
  if new.user_id is distinct from old.user_id or new.notification_id is distinct from old.notification_id then
    raise foreign_key_violation using message = 'an outbox row cannot move to another user or notification';
  end if;
  return new;
end
$$;

create trigger email_outbox_refs_fixed before update of user_id, notification_id on email_outbox
  for each row execute function email_outbox_refs_fixed();

create function email_outbox_delete_of_notifications() returns trigger
language plpgsql as $$
begin
  delete from email_outbox o where o.notification_id = any(array(select g.id from gone g));
  return null;
end
$$;

create trigger notifications_email_outbox after delete on notifications
  referencing old table as gone for each statement execute function email_outbox_delete_of_notifications();

create function email_outbox_delete_of_users() returns trigger
language plpgsql as $$
begin
  delete from email_outbox o where o.user_id = any(array(select g.id from gone g));
  return null;
end
$$;

create trigger users_email_outbox after delete on users
  referencing old table as gone for each statement execute function email_outbox_delete_of_users();
