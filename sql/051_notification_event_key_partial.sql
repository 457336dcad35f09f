-- The uniqueness of a notification's reminder event (026: one notification per event, the
-- dispatch's exactly-once) as a partial index over the notifications that have one. As a plain
-- unique constraint it took an entry for every notification, NULL for all but reminders: an
-- announcement to 100,001 students wrote 100,001 NULL keys, all at the right edge of one index,
-- where the fan-out's parts (050) wrote them at once. The same rule (NULLs never conflicted), one
-- index entry less per announcement or grading notification. The dispatch's ON CONFLICT names
-- the index's predicate (src/modules/notifications/notify.ts).
alter table notifications drop constraint notifications_event_id_key;
create unique index notifications_event_id_key on notifications (event_id) where event_id is not null;
