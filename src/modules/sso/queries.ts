import type { Sql, TxSql } from '../../db/connect.ts'

type Db = Sql | TxSql
import type { Role } from '../../http/guards.ts'

export interface SignInRow {
  browser_hash: string
  code_verifier: string
  nonce: string
  next_path: string
}

export async function insertSignIn(
  sql: Db,
  s: { stateHash: string; browserHash: string; codeVerifier: string; nonce: string; nextPath: string; now: Date; expiresAt: Date },
) {
  await sql`
    insert into oidc_sign_ins (state_hash, browser_hash, code_verifier, nonce, next_path, created_at, expires_at)
    values (${s.stateHash}, ${s.browserHash}, ${s.codeVerifier}, ${s.nonce}, ${s.nextPath}, ${s.now}, ${s.expiresAt})`
}

/** Takes a sign-in out (single use): whoever deletes the row first gets it, an expired one is nothing. */
export async function takeSignIn(sql: Db, stateHash: string, now: Date) {
  const [row] = await sql<(SignInRow & { expires_at: Date })[]>`
    delete from oidc_sign_ins where state_hash = ${stateHash}
    returning browser_hash, code_verifier, nonce, next_path, expires_at`
  return row && row.expires_at > now ? row : null
}

export async function purgeExpiredSignIns(sql: Db, now: Date) {
  await sql`delete from oidc_sign_ins where expires_at < ${now}`
}

export interface SsoUserRow {
  id: string
  role: Role
  email_verified: boolean
}

export async function findUserByIdentity(sql: Db, issuer: string, subject: string) {
  const [row] = await sql<SsoUserRow[]>`
    select u.id, u.role, u.email_verified
      from user_identities i join users u on u.id = i.user_id
     where i.issuer = ${issuer} and i.subject = ${subject}`
  return row ?? null
}

export async function findUserByEmail(sql: Db, email: string) {
  const [row] = await sql<SsoUserRow[]>`
    select id, role, email_verified from users where lower(email) = lower(${email})`
  return row ?? null
}

export async function identityOfIssuer(sql: Db, userId: string, issuer: string) {
  const [row] = await sql<{ subject: string }[]>`
    select subject from user_identities where user_id = ${userId} and issuer = ${issuer}`
  return row ?? null
}

/** `linkedBy`: the provider account made the local one, or was linked to it by a matching verified address (sql/052). */
export async function insertIdentity(sql: Db, i: { issuer: string; subject: string; userId: string; now: Date; linkedBy: 'created' | 'email' }) {
  await sql`
    insert into user_identities (issuer, subject, user_id, created_at, linked_by)
    values (${i.issuer}, ${i.subject}, ${i.userId}, ${i.now}, ${i.linkedBy})`
}

/** Which of the candidate usernames are taken (case-insensitively), in one statement. */
export async function takenUsernames(sql: Db, candidates: string[]) {
  const lowered = candidates.map((c) => c.toLowerCase())
  const rows = await sql<{ name: string }[]>`
    select lower(username) as name from users where lower(username) in ${sql(lowered)}`
  return new Set(rows.map((r) => r.name))
}

export async function insertSsoUser(
  sql: Db,
  u: { id: string; username: string; email: string; emailVerified: boolean; passwordHash: string; displayName: string; role: Role; now: Date },
) {
  const [row] = await sql<SsoUserRow[]>`
    insert into users (id, username, email, email_verified, password_hash, display_name, role, created_at)
    values (${u.id}, ${u.username}, ${u.email}, ${u.emailVerified}, ${u.passwordHash}, ${u.displayName}, ${u.role}, ${u.now})
    on conflict do nothing
    returning id, role, email_verified`
  return row ?? null
}
