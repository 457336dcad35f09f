-- Reminder rules of issue 12: one live event per (task, student, trigger, scheduled_at), so a
-- moved deadline gets new BEFORE_DUE_24H/DUE events even after the old ones were sent; START at
-- most once per (task, student), whatever happens to start_at later.
--
-- Safe for existing rows: the old key (task, student, trigger) among live events is stricter than
-- both new ones, so every existing row satisfies them. The new indexes are built before the old
-- one is dropped, so there is no moment without a uniqueness guarantee.
create unique index if not exists homework_reminder_events_live_time_key
  on homework_reminder_events (task_id, target_user_id, trigger_type, scheduled_at) where not canceled;
create unique index if not exists homework_reminder_events_start_once_key
  on homework_reminder_events (task_id, target_user_id) where trigger_type = 'START' and not canceled;
drop index if exists homework_reminder_events_live_key;
