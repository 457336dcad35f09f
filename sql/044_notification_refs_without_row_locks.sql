-- Reminder dispatch at MOOC scale (issue 26): a notification no longer locks its user and its
-- reminder event row by row.
--
-- The statement trigger of sql/026 locked every distinct referenced user and event FOR KEY SHARE,
-- as a foreign key check does: a dispatch batch of 2,000 reminders rewrote 2,000 user rows' and
-- 2,000 event rows' lock fields (a WAL record each; the events had just been locked and updated
-- by the same statement), and an announcement to a 100,001-student course 100,001 user rows.
--
-- Users: as for reminder events since sql/040, one shared advisory lock per inserting
-- transaction keeps the one writer that deletes users (an operator) out: deleting users takes it
-- exclusively before the first row goes (`users_delete_lock`, sql/040). Either the delete waits
-- until the notifications are committed, and its cascade (sql/026) deletes them; or the insert
-- waits until the delete is committed, and the existence check, run after the lock in a fresh
-- snapshot, finds the user gone and refuses the statement (23503, as before).
--
-- Events: only checked to exist. Since sql/037 a notification outlives its event (event_id may
-- name an event deleted later; nothing reads the event back through it), so a lock that keeps the
-- event from being deleted until the insert commits guards nothing: a delete just after the
-- commit leaves the same state. The one writer of event_id, the dispatch, holds the events
-- FOR UPDATE anyway (it claims and marks them in the same statement).
create or replace function notifications_check_refs() returns trigger
language plpgsql as $$
declare
  missing int;
begin
  perform pg_advisory_xact_lock_shared(hashtext('cls users deleted'));
  select (select count(*) from (select distinct n.user_id as id from new_rows n) d
           where not exists (select 1 from users u where u.id = d.id))
       + (select count(*) from (select distinct n.event_id as id from new_rows n where n.event_id is not null) d
           where not exists (select 1 from homework_reminder_events e where e.id = d.id))
    into missing;
  if missing <> 0 then
    raise foreign_key_violation using message = 'a notification refers to a user or reminder event that does not exist';
  end if;
  return null;
end
$$;
