-- Accounts a school can run (issue 21): verified addresses, links by e-mail (verification,
-- address change, password reset), session activity, and account mails through the outbox.

-- Accounts that existed before start unverified: nobody proved they own the address.
alter table users add column email_verified boolean not null default false;

-- One row per link sent by e-mail. Only the SHA-256 of the token is kept (the token itself is
-- 256 random bits, base64url, and exists only in the mail). `email` is the address the link
-- was sent to: a verification is only good while the account still has that address, an
-- address change makes it the account's address. A link is used once (`used_at`); issuing a
-- newer link of the same purpose marks the older ones used.
create table email_tokens (
  id         uuid primary key,
  user_id    uuid not null references users (id) on delete cascade,
  purpose    text not null check (purpose in ('VERIFY_EMAIL', 'CHANGE_EMAIL', 'RESET_PASSWORD')),
  token_hash bytea not null,
  email      text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  used_at    timestamptz
);
create unique index email_tokens_hash_key on email_tokens (token_hash);
create index email_tokens_user_open_idx on email_tokens (user_id, purpose) where used_at is null;
create index email_tokens_expires_idx on email_tokens (expires_at);

-- "Last used", written at most once a minute per session (by the statement that checks it).
alter table sessions add column last_used_at timestamptz;

-- Fixed-window request counters for the account routes (reset requests per address, reset
-- mails per account, verification mails per user a minute and a day). Each key keeps its own
-- window length, so the login throttle's housekeeping (LOGIN_WINDOW_SECONDS) never cuts one short.
create table rate_limits (
  key               text primary key,
  window_started_at timestamptz not null,
  window_seconds    integer not null,
  hits              integer not null
);

-- Counts one request in every given scope, or in none when any scope is at its limit; like
-- reserve_login_attempt (sql/009): rows upserted and locked in key order, so requests that
-- arrive together on any instance never get past a limit.
create function reserve_rate(p_keys text[], p_limits integer[], p_windows integer[], p_now timestamptz)
returns table (rate_key text, hits integer, started_at timestamptz, window_seconds integer, allowed boolean)
language plpgsql as $$
declare
  v_allowed boolean;
begin
  insert into rate_limits as r (key, window_started_at, window_seconds, hits)
  select k, p_now, w, 0 from unnest(p_keys, p_windows) as l (k, w) order by k
  on conflict (key) do update set
    hits = case when r.window_started_at + make_interval(secs => excluded.window_seconds) <= p_now then 0 else r.hits end,
    window_started_at = case when r.window_started_at + make_interval(secs => excluded.window_seconds) <= p_now then p_now else r.window_started_at end,
    window_seconds = excluded.window_seconds;

  select coalesce(bool_and(r.hits < l.lim), true) into v_allowed
    from rate_limits r
    join unnest(p_keys, p_limits) as l (k, lim) on l.k = r.key;

  if v_allowed then
    update rate_limits r set hits = r.hits + 1 where r.key = any (p_keys);
  end if;

  return query
    select r.key, r.hits, r.window_started_at, r.window_seconds, v_allowed
      from rate_limits r
     where r.key = any (p_keys);
end
$$;

-- The outbox carries account mails too (same claim, lease, retry and Message-ID rules): a row
-- is either a notification's mail (`notification_id`) or an account mail (`kind`) to a fixed
-- `to_address`. An account mail's link token is kept only encrypted (AES-GCM under a key derived
-- from the service secret) in `secret`, and erased once the row is sent or given up.
alter table email_outbox add column id uuid;
update email_outbox set id = notification_id;
alter table email_outbox alter column id set not null;
alter table email_outbox drop constraint email_outbox_pkey;
alter table email_outbox add primary key (id);
alter table email_outbox alter column notification_id drop not null;
create unique index email_outbox_notification_key on email_outbox (notification_id);
alter table email_outbox
  add column kind text not null default 'NOTIFICATION'
    check (kind in ('NOTIFICATION', 'VERIFY_EMAIL', 'CHANGE_EMAIL', 'RESET_PASSWORD', 'EMAIL_CHANGED')),
  add column to_address text,
  add column locale text,
  add column secret bytea,
  add column params jsonb,
  add constraint email_outbox_kind_shape check ((kind = 'NOTIFICATION') = (notification_id is not null) and (kind = 'NOTIFICATION' or to_address is not null));
