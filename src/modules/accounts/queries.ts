import type { Sql, TxSql } from '../../db/connect.ts'
import type { UserRow } from '../auth/queries.ts'

import type { LinkPurpose } from '../links/queries.ts'

export type { LinkPurpose }

export async function userById(sql: Sql | TxSql, id: string, lock = false) {
  const [row] = lock
    ? await sql<UserRow[]>`select id, username, email, password_hash, display_name, role, created_at, locale, email_verified from users where id = ${id} for update`
    : await sql<UserRow[]>`select id, username, email, password_hash, display_name, role, created_at, locale, email_verified from users where id = ${id}`
  return row ?? null
}

export interface LinkRow {
  id: string
  user_id: string
  purpose: LinkPurpose
  email: string
  created_at: Date
}

/** Uses a link once: of concurrent uses exactly one gets the row. */
export async function consumeLink(tx: Sql | TxSql, hash: Uint8Array, purposes: LinkPurpose[], now: Date) {
  const [row] = await tx<LinkRow[]>`
    update email_tokens set used_at = ${now}
     where token_hash = ${Buffer.from(hash)} and purpose in ${tx(purposes)} and used_at is null and expires_at > ${now}
     returning id, user_id, purpose, email, created_at`
  return row ?? null
}

/** Whether a link would be accepted now (without using it). */
export async function openLink(sql: Sql, hash: Uint8Array, purposes: LinkPurpose[], now: Date) {
  const [row] = await sql<LinkRow[]>`
    select id, user_id, purpose, email, created_at from email_tokens
     where token_hash = ${Buffer.from(hash)} and purpose in ${sql(purposes)} and used_at is null and expires_at > ${now}`
  return row ?? null
}

export interface RateRow {
  rate_key: string
  hits: number
  started_at: Date
  window_seconds: number
  allowed: boolean
}

/** Counts one request in every scope, or in none when one is full (sql/032 reserve_rate). */
export async function reserveRate(sql: Sql | TxSql, scopes: { key: string; limit: number; windowSeconds: number }[], now: Date) {
  return sql<RateRow[]>`
    select rate_key, hits, started_at, window_seconds, allowed
      from reserve_rate(${scopes.map((s) => s.key)}::text[], ${scopes.map((s) => s.limit)}::int[], ${scopes.map((s) => s.windowSeconds)}::int[], ${now})`
}

export async function markVerified(tx: Sql | TxSql, userId: string, email: string) {
  const [row] = await tx<UserRow[]>`
    update users set email_verified = true
     where id = ${userId} and lower(email) = lower(${email})
     returning id, username, email, password_hash, display_name, role, created_at, locale, email_verified`
  return row ?? null
}

export async function emailTakenByOther(sql: Sql | TxSql, email: string, userId: string | null) {
  const [row] = await sql<{ taken: boolean }[]>`
    select exists (select 1 from users where lower(email) = lower(${email}) and id is distinct from ${userId}::uuid) as taken`
  return row!.taken
}

export async function setEmail(tx: Sql | TxSql, userId: string, email: string) {
  const [row] = await tx<UserRow[]>`
    update users set email = ${email}, email_verified = true where id = ${userId}
     returning id, username, email, password_hash, display_name, role, created_at, locale, email_verified`
  return row ?? null
}

/** A new password (its time kept: older address-change links die); `verify` also marks the address verified (a reset link reached it). */
export async function setPassword(tx: Sql | TxSql, userId: string, hash: string, verifyEmail: string | null, now: Date) {
  const [row] = await tx<UserRow[]>`
    update users set password_hash = ${hash}, password_changed_at = ${now},
           email_verified = email_verified or (${verifyEmail}::text is not null and lower(email) = lower(${verifyEmail}::text))
     where id = ${userId}
     returning id, username, email, password_hash, display_name, role, created_at, locale, email_verified`
  return row ?? null
}

/** When the account's password last changed (null: not since it was made). */
export async function passwordChangedAt(tx: Sql | TxSql, userId: string) {
  const [row] = await tx<{ at: Date | null }[]>`select password_changed_at as at from users where id = ${userId}`
  return row?.at ?? null
}

/** Provider accounts linked to this account by a matching address (not the one that made it) are unlinked (sql/052). */
export async function unlinkEmailIdentities(tx: Sql | TxSql, userId: string) {
  const res = await tx`delete from user_identities where user_id = ${userId} and linked_by = 'email'`
  return res.count
}

/** Every provider account of this account is unlinked (the address was proved by someone else than who made it). */
export async function unlinkIdentities(tx: Sql | TxSql, userId: string) {
  await tx`delete from user_identities where user_id = ${userId}`
}

/** The private calendar feed's URL stops working; the next GET /me/calendar makes a new one. */
export async function dropCalendarFeed(tx: Sql | TxSql, userId: string) {
  await tx`delete from calendar_feeds where user_id = ${userId}`
}

/** Ends the account's sessions, all of them or all but `keep`; on every instance (each request checks the row). */
export async function endSessions(tx: Sql | TxSql, userId: string, now: Date, keep: string | null = null) {
  const res = await tx`
    update sessions set revoked_at = ${now}
     where user_id = ${userId} and revoked_at is null and id is distinct from ${keep}::uuid`
  return res.count
}

export async function endSession(sql: Sql, userId: string, sessionId: string, now: Date) {
  const [row] = await sql<{ id: string }[]>`
    update sessions set revoked_at = ${now}
     where id = ${sessionId} and user_id = ${userId} and revoked_at is null and expires_at > ${now}
     returning id`
  return Boolean(row)
}

export interface SessionListRow {
  id: string
  created_at: Date
  last_used_at: Date
  user_agent: string | null
  ip: string | null
}

export async function activeSessions(sql: Sql, userId: string, now: Date) {
  return sql<SessionListRow[]>`
    select id, created_at, coalesce(last_used_at, created_at) as last_used_at, user_agent, ip
      from sessions
     where user_id = ${userId} and revoked_at is null and expires_at > ${now}
     order by created_at desc, id desc
     limit 200`
}

/** The account's login-throttling failures (sql/009 keys of src/modules/auth/service.ts throttleScopes). */
export async function clearLoginThrottle(tx: Sql | TxSql, userId: string) {
  await tx`delete from login_throttle where key = ${`acct:${userId}`} or key like ${`pair:acct:${userId}@%`}`
}

/** Housekeeping: links that ended a day ago, rate windows that are over. */
export async function purgeAccountRows(sql: Sql, now: Date) {
  await sql`delete from email_tokens where expires_at < ${new Date(now.getTime() - 86_400_000)}`
  await sql`delete from rate_limits where window_started_at + make_interval(secs => window_seconds) < ${now}`
  // The invitation mail caps look back one day (sql/052).
  await sql`delete from roster_invitation_mails where queued_at < ${new Date(now.getTime() - 2 * 86_400_000)}`
}
