import type { Sql, TxSql } from '../../db/connect.ts'
import type { Role } from '../../http/guards.ts'

export interface UserRow {
  id: string
  username: string
  email: string
  password_hash: string
  display_name: string
  role: Role
  created_at: Date
  locale: string | null
  email_verified: boolean
}

export async function insertUser(
  sql: Sql | TxSql,
  u: { id: string; username: string; email: string; passwordHash: string; displayName: string; role: Role; now: Date; locale: string | null },
) {
  const [row] = await sql<UserRow[]>`
    insert into users (id, username, email, password_hash, display_name, role, created_at, locale)
    values (${u.id}, ${u.username}, ${u.email}, ${u.passwordHash}, ${u.displayName}, ${u.role}, ${u.now}, ${u.locale})
    on conflict do nothing
    returning id, username, email, password_hash, display_name, role, created_at, locale, email_verified`
  return row ?? null
}

export async function findTakenIdentity(sql: Sql, username: string, email: string) {
  return sql<{ username_taken: boolean; email_taken: boolean }[]>`
    select coalesce(bool_or(lower(username) = lower(${username})), false) as username_taken,
           coalesce(bool_or(lower(email) = lower(${email})), false) as email_taken
      from users
     where lower(username) = lower(${username}) or lower(email) = lower(${email})`
}

/** Pending roster invitations of an address (course_invitations_email_idx). */
export async function invitationsOfAddress(sql: Sql, email: string) {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from course_invitations where email = lower(${email})`
  return row!.n
}

export async function findUserByIdentifier(sql: Sql, identifier: string) {
  const [row] = await sql<UserRow[]>`
    select id, username, email, password_hash, display_name, role, created_at, locale, email_verified
      from users
     where lower(username) = lower(${identifier}) or lower(email) = lower(${identifier})
     limit 1`
  return row ?? null
}

/** Changes the user's own settings; absent fields stay as they are. */
export async function updateUser(sql: Sql, id: string, p: { locale?: string | null; displayName?: string }) {
  const [row] = await sql<UserRow[]>`
    update users
       set locale = case when ${p.locale !== undefined} then ${p.locale ?? null} else locale end,
           display_name = coalesce(${p.displayName ?? null}, display_name)
     where id = ${id}
     returning id, username, email, password_hash, display_name, role, created_at, locale, email_verified`
  return row ?? null
}

export async function insertSession(
  sql: Sql | TxSql,
  s: { id: string; userId: string; now: Date; expiresAt: Date; userAgent: string | null; ip: string | null },
) {
  await sql`
    insert into sessions (id, user_id, created_at, expires_at, user_agent, ip, last_used_at)
    values (${s.id}, ${s.userId}, ${s.now}, ${s.expiresAt}, ${s.userAgent}, ${s.ip}, ${s.now})`
}

export async function revokeSession(sql: Sql, sessionId: string, now: Date) {
  await sql`update sessions set revoked_at = ${now} where id = ${sessionId} and revoked_at is null`
}

export interface ThrottleRow {
  throttle_key: string
  attempts: number
  started_at: Date
  allowed: boolean
}

/**
 * Reserves one login attempt in every scope at once, before the password is checked (see
 * sql/009): `allowed` false means some scope is at its limit and nothing was counted.
 */
export async function reserveAttempt(sql: Sql, scopes: { key: string; limit: number }[], now: Date, windowSeconds: number) {
  return sql<ThrottleRow[]>`
    select throttle_key, attempts, started_at, allowed
      from reserve_login_attempt(${scopes.map((s) => s.key)}::text[], ${scopes.map((s) => s.limit)}::int[], ${now}, ${windowSeconds})`
}

/**
 * After a successful login: the (identifier, address) failures are forgotten, and the attempt
 * reserved in the wider scopes is given back (it was not a failure).
 */
export async function settleSuccess(sql: Sql, pairKey: string, refundKeys: string[]) {
  await sql`delete from login_throttle where key = ${pairKey}`
  await sql`update login_throttle set failures = greatest(failures - 1, 0) where key in ${sql(refundKeys)}`
}

/** Housekeeping: drop sessions and throttle windows that can no longer matter. */
export async function purgeExpired(sql: Sql, now: Date, windowSeconds: number) {
  const windowStart = new Date(now.getTime() - windowSeconds * 1000)
  await sql`delete from sessions where expires_at < ${now} or revoked_at < ${now}`
  await sql`delete from login_throttle where window_started_at < ${windowStart}`
}
