-- Notifications outlive their reminder events, and read ones are deleted after a while (issues 26,
-- 30.3).
--
-- 1. notifications.event_id is the delivery key of a reminder (unique: an event is delivered
--    once); nothing reads the event back through it (a notification carries its own text and
--    params). The statement trigger of sql/026 set it to null when events were deleted, as the
--    old ON DELETE SET NULL did: deleting a homework whose reminders were delivered to 100,000
--    students rewrote 100,000 notifications (3.1-3.4 s, 312 MB of WAL, and the counter trigger
--    over 100,000 old and new rows), and its `event_id in (…)` was a hash join over the whole
--    notifications table even when no event had been delivered. Event ids are UUIDs never
--    reused, so a key left behind cannot collide: the trigger goes. Given up: event_id may name
--    an event that no longer exists (it is not a foreign key since sql/026 anyway; inserting a
--    notification still requires its event to exist).
drop trigger if exists homework_reminder_events_notifications on homework_reminder_events;
drop function if exists notifications_forget_events();

-- 2. NOTIFICATION_RETENTION_DAYS (src/modules/notifications/retention.ts): read notifications
--    delivered before the cut-off are deleted in batches. The job finds them oldest first through
--    this index (only read rows: an entry is written when a notification is marked read, which
--    already rewrites the row's unread-index entry); the counters follow by the delete trigger
--    of sql/012.
create index if not exists notifications_read_delivered_idx on notifications (delivered_at) where read_at is not null;
