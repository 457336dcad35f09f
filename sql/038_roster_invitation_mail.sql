-- Roster invitation mails (issue 23): an address a roster import invited, with no account yet,
-- is told once (when the server sends e-mail) that it was invited to a course here, with a link
-- to register. Fixed text only (the address is nobody's proven address). The row has no user:
-- its id is the invitation's id, so one invitation queues at most one mail.
alter table email_outbox drop constraint email_outbox_kind_check;
alter table email_outbox add constraint email_outbox_kind_check
  check (kind in ('NOTIFICATION', 'VERIFY_EMAIL', 'CHANGE_EMAIL', 'RESET_PASSWORD', 'EMAIL_CHANGED', 'ROSTER_INVITATION'));
alter table email_outbox alter column user_id drop not null;
alter table email_outbox add constraint email_outbox_user_shape check ((user_id is null) = (kind = 'ROSTER_INVITATION'));
