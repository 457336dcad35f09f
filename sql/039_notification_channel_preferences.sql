-- One notification pipeline (issue 28): preferences are rows keyed by (channel, type), owned by
-- the notifications module, instead of one email_* column per type. A user without a row for a
-- (channel, type) has the type's default, defined once in src/modules/notifications/types.ts
-- (no default here). A new channel or type is new rows, never a new column.
create table notification_channel_preferences (
  user_id           uuid not null references users (id) on delete cascade,
  channel           text not null check (channel ~ '^[a-z][a-z0-9_-]{0,31}$'),
  notification_type text not null check (notification_type ~ '^[A-Z][A-Z0-9_]{0,63}$'),
  enabled           boolean not null,
  updated_at        timestamptz not null,
  primary key (user_id, channel, notification_type)
);

-- The choices made so far: every user who had a row keeps exactly what it said.
insert into notification_channel_preferences (user_id, channel, notification_type, enabled, updated_at)
select p.user_id, 'email', x.notification_type, x.enabled, p.updated_at
  from notification_preferences p
 cross join lateral (values ('HOMEWORK_REMINDER', p.email_homework_reminder),
                            ('SUBMISSION_GRADED', p.email_submission_graded),
                            ('ANNOUNCEMENT', p.email_announcement)) as x (notification_type, enabled);

-- The old table (and its column defaults, a second definition of the defaults) goes.
drop table notification_preferences;
