-- E-mail as an optional channel (issue 12.3).

-- Per-user choices; a user without a row has the defaults (reminders and gradings on,
-- announcements off), so nothing is written for people who never changed anything.
create table notification_preferences (
  user_id           uuid primary key references users (id) on delete cascade,
  email_homework_reminder boolean not null default true,
  email_submission_graded boolean not null default true,
  email_announcement      boolean not null default false,
  updated_at        timestamptz not null default now()
);

-- The transactional outbox: one row per notification to e-mail, written in the notification's
-- transaction. The sender claims due rows (FOR UPDATE SKIP LOCKED) and leases them while it
-- talks to the SMTP server, so two instances never send one notification; a lease that runs
-- out (the sender died) makes the row due again. Message-ID is fixed per notification.
create table email_outbox (
  notification_id uuid primary key references notifications (id) on delete cascade,
  user_id         uuid not null references users (id) on delete cascade,
  created_at      timestamptz not null,
  next_attempt_at timestamptz not null,
  lease_until     timestamptz,
  attempts        int not null default 0,
  sent_at         timestamptz,
  failed_at       timestamptz,
  last_error      text
);
-- The sender's scan: open rows in due order.
create index email_outbox_due_idx on email_outbox (next_attempt_at) where sent_at is null and failed_at is null;
create index email_outbox_user_idx on email_outbox (user_id);
