-- Homework reminder events and the in-app notification inbox.

-- Time-ordered UUIDv7 for rows generated in SQL (set-based fan-out), like newId() in the app:
-- a random v4 with its first 48 bits replaced by the Unix time in milliseconds and the
-- version nibble set to 7. PostgreSQL < 18 has no built-in uuidv7().
create function gen_uuid_v7() returns uuid language sql volatile as $$
  select encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3)
              from 1 for 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;

create table homework_reminder_events (
  id             uuid primary key,
  task_id        uuid not null references learning_tasks (id) on delete cascade,
  target_user_id uuid not null references users (id) on delete cascade,
  trigger_type   text not null check (trigger_type in ('START', 'BEFORE_DUE_24H', 'DUE')),
  scheduled_at   timestamptz not null,
  sent_at        timestamptz,
  canceled       boolean not null default false,
  created_at     timestamptz not null default now(),
  -- Exactly one state: pending (neither), sent (sent_at), canceled (canceled, never sent).
  check (not (canceled and sent_at is not null))
);
-- At most one live event per (task, user, trigger); canceled ones stay as history.
create unique index homework_reminder_events_live_key
  on homework_reminder_events (task_id, target_user_id, trigger_type) where not canceled;
-- The scheduler's scan: pending events in claim order (scheduled_at, id).
create index homework_reminder_events_due_idx
  on homework_reminder_events (scheduled_at, id) where sent_at is null and not canceled;
-- The teacher's view of one homework's events (history included).
create index homework_reminder_events_task_idx on homework_reminder_events (task_id, scheduled_at);
-- Deleting a user cascades here.
create index homework_reminder_events_target_idx on homework_reminder_events (target_user_id);

create table notifications (
  id                uuid primary key,
  user_id           uuid not null references users (id) on delete cascade,
  notification_type text not null,
  title             text not null,
  content           text not null default '',
  action_path       text,
  read_at           timestamptz,
  delivered_at      timestamptz not null,
  -- The reminder event this notification delivers: unique, so an event is delivered once.
  event_id          uuid unique references homework_reminder_events (id) on delete set null
);
create index notifications_user_idx on notifications (user_id, delivered_at desc, id desc);
create index notifications_unread_idx on notifications (user_id, notification_type) where read_at is null;
