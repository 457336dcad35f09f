-- No takeover path (issue 48): recovery retires what a former holder of the password could keep,
-- single sign-on links only verified local accounts, and roster invitation mail has caps.

-- 1. When the password last changed (reset link, operator link, change): an address-change link
--    issued before then is dead, whatever path changed the password. Null: never since sign-up.
alter table users add column password_changed_at timestamptz;

-- 2. How a provider account came to sign in as its local account: it made the account
--    (`created`) or it was linked to an existing account by a matching verified address
--    (`email`). A recovery of the account unlinks the `email` ones: whoever held the account
--    may have linked a provider account of their own through an address they put on it. The
--    next sign-in links again when both addresses still match and are verified. Rows from
--    before: an identity made with its account carries the account's creation time.
alter table user_identities add column linked_by text not null default 'email' check (linked_by in ('created', 'email'));
update user_identities i set linked_by = 'created' from users u where u.id = i.user_id and u.created_at = i.created_at;

-- 3. Roster invitation mail caps. Each invitation records its mail: WAITING (to be mailed once
--    the inviting teacher's address is verified and the caps allow), QUEUED (its mail went to
--    the outbox at `mail_at`), COVERED (the address had an invitation mail within a day: one
--    mail names no course and serves every invitation), NONE (never mailed: no e-mail on the
--    server at import time, an existing account's address, or from before this migration).
alter table course_invitations
  add column mail_state text not null default 'NONE' check (mail_state in ('WAITING', 'QUEUED', 'COVERED', 'NONE')),
  add column mail_at timestamptz;
-- The job walks the waiting invitations, per teacher in import order.
create index course_invitations_waiting_idx on course_invitations (invited_by, created_at, id) where mail_state = 'WAITING';

-- The invitation mails of the last day, kept apart from the invitations (which go when taken or
-- revoked, and must not take their mails out of the count with them): per address at most one a
-- day, per teacher at most INVITATION_MAILS_PER_DAY. Housekeeping drops rows older than two days.
create table roster_invitation_mails (
  id         uuid primary key,
  email      text not null check (email = lower(email)),
  invited_by uuid,
  queued_at  timestamptz not null
);
create index roster_invitation_mails_email_idx on roster_invitation_mails (email, queued_at);
create index roster_invitation_mails_teacher_idx on roster_invitation_mails (invited_by, queued_at);

-- The language of the importing request: a mail sent later (by the job) is in it too.
alter table course_invitations add column mail_locale text;
