-- Single sign-on (OpenID Connect): which provider account is which local account, and the
-- sign-ins in flight between /auth/oidc/start and /auth/oidc/callback.

-- The accounts branch adds this column too (e-mail verification); `if not exists` lets either
-- migration come first. Single sign-on sets it from the provider's `email_verified`.
alter table users add column if not exists email_verified boolean not null default false;

-- One row per provider account (issuer + subject) that signs in as a local account.
create table user_identities (
  issuer     text not null,
  subject    text not null,
  user_id    uuid not null references users (id) on delete cascade,
  created_at timestamptz not null,
  primary key (issuer, subject)
);
-- One identity per provider and account: a second provider account with the same verified
-- e-mail is refused rather than silently given the same local account.
create unique index user_identities_user_issuer_key on user_identities (user_id, issuer);

-- A sign-in that has been sent to the provider and not yet come back. Kept in the database so
-- the callback may reach any instance; the row is deleted when the callback uses it (single
-- use) and is worth nothing after `expires_at` (10 minutes). The state itself is never stored,
-- only its SHA-256; `browser_hash` binds the sign-in to the browser that started it (cookie).
create table oidc_sign_ins (
  state_hash    text primary key,
  browser_hash  text not null,
  code_verifier text not null,
  nonce         text not null,
  next_path     text not null,
  created_at    timestamptz not null,
  expires_at    timestamptz not null
);
create index oidc_sign_ins_expires_idx on oidc_sign_ins (expires_at);
