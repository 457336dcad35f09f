import type { Config } from '../../config.ts'
import type { Sql, TxSql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { AppError, conflict, unauthenticated } from '../../http/errors.ts'
import { issueLink } from '../links/links.ts'
import { isLocale } from '../../i18n/locale.ts'
import type { CurrentUser } from '../../http/guards.ts'
import { newId } from '../../lib/ids.ts'
import type { LoginBody, RegisterBody, UpdateMeBody } from './model.ts'
import { enrolInvitedUser } from '../rosters/service.ts'
import * as q from './queries.ts'
import { createLoginSession, type LoginSessionContext } from './session.ts'

type UserLike = Pick<CurrentUser, 'id' | 'username' | 'email' | 'displayName' | 'role' | 'createdAt' | 'locale' | 'emailVerified'>

export const toUser = (u: UserLike) => ({
  id: u.id,
  username: u.username,
  email: u.email,
  displayName: u.displayName,
  role: u.role,
  createdAt: iso(u.createdAt)!,
  locale: u.locale ?? null,
  emailVerified: u.emailVerified ?? false,
})

export const fromRow = (r: q.UserRow): UserLike => ({
  id: r.id,
  username: r.username,
  email: r.email,
  displayName: r.display_name,
  role: r.role,
  createdAt: r.created_at,
  locale: isLocale(r.locale) ? r.locale : null,
  emailVerified: r.email_verified,
})

// Verified against when the user does not exist, so both failures take the same time.
const DUMMY_HASH = await Bun.password.hash('not-a-real-password', { algorithm: 'argon2id' })

export interface RegisterContext {
  now: Date
  config: Pick<Config, 'teacherRegistration' | 'emailTokenTtlSeconds' | 'jwtSecret'>
  /** Deps.emailEnabled: a verification link is mailed. */
  emailEnabled: boolean
  /** The language of the verification mail when the body names none (the request's). */
  locale: string
}

export async function register(sql: Sql, body: RegisterBody, ctx: RegisterContext) {
  const { now, config, emailEnabled } = ctx
  if (body.role === 'TEACHER' && config.teacherRegistration === 'closed') {
    throw new AppError('TEACHER_REGISTRATION_CLOSED', 'Registering as a teacher is closed on this server. Ask your school for a teacher account.')
  }
  const passwordHash = await Bun.password.hash(body.password, { algorithm: 'argon2id' })
  // The account and its verification mail (with SMTP_URL) are written together.
  const row = await sql.begin(async (tx) => {
    const row = await q.insertUser(tx, {
      id: newId(),
      username: body.username,
      email: body.email,
      passwordHash,
      displayName: body.displayName ?? body.username,
      role: body.role ?? 'STUDENT',
      now,
      locale: body.locale ?? null,
    })
    if (row && emailEnabled) {
      await issueLink(tx, {
        userId: row.id,
        purpose: 'VERIFY_EMAIL',
        email: row.email,
        ttlSeconds: config.emailTokenTtlSeconds,
        now,
        mail: { secret: config.jwtSecret!, locale: body.locale ?? ctx.locale },
      })
    }
    return row
  })
  if (!row) {
    const [taken] = await q.findTakenIdentity(sql, body.username, body.email)
    if (taken?.username_taken) throw conflict('USERNAME_TAKEN', 'That username is already taken. Please choose another.')
    throw conflict('EMAIL_TAKEN', 'An account with that email already exists. Try logging in instead.')
  }
  // Courses that imported this address in a roster enrol the student once the address is
  // verified (accounts/service.ts). Without e-mail nobody can verify, so registration does it.
  if (row.role === 'STUDENT' && !emailEnabled) await enrolInvitedUser(sql, row.id, row.email, now)
  return withPendingInvitations(sql, toUser(fromRow(row)))
}

/**
 * The user and the number of courses it joins once its address is verified (roster invitations
 * of its address): only an unverified student account can have any, so only it pays the lookup.
 */
export async function withPendingInvitations(sql: Sql, user: ReturnType<typeof toUser>) {
  const pending = user.role === 'STUDENT' && !user.emailVerified ? await q.invitationsOfAddress(sql, user.email) : 0
  return { ...user, pendingCourseInvitations: pending }
}

export interface LoginContext {
  now: Date
  ip: string | null
  userAgent: string | null
  config: Pick<
    Config,
    'loginMaxFailures' | 'loginMaxFailuresPerAccount' | 'loginMaxFailuresPerIp' | 'loginWindowSeconds' | 'tokenTtlSeconds' | 'cookieSecure'
  >
  sign: LoginSessionContext['sign']
  cookie: LoginSessionContext['cookie']
}

/**
 * The throttle scopes of one attempt. Username and e-mail of one account are one identifier
 * (the account id); an identifier that names no account is throttled by its normalised text.
 */
export function throttleScopes(
  identifier: string,
  accountId: string | null,
  ip: string | null,
  config: Pick<Config, 'loginMaxFailures' | 'loginMaxFailuresPerAccount' | 'loginMaxFailuresPerIp'>,
) {
  const account = accountId ? `acct:${accountId}` : `acct:name:${identifier.trim().toLowerCase()}`
  const address = ip ?? 'unknown'
  return {
    pair: { key: `pair:${account}@${address}`, limit: config.loginMaxFailures },
    account: { key: account, limit: config.loginMaxFailuresPerAccount },
    address: { key: `ip:${address}`, limit: config.loginMaxFailuresPerIp },
  }
}

export async function login(sql: Sql, body: LoginBody, ctx: LoginContext) {
  const row = await q.findUserByIdentifier(sql, body.identifier)
  const scopes = throttleScopes(body.identifier, row?.id ?? null, ctx.ip, ctx.config)
  // The attempt is counted before the password is checked, in one statement: attempts that
  // arrive together cannot all be checked against the same old count.
  const counts = await q.reserveAttempt(sql, [scopes.pair, scopes.account, scopes.address], ctx.now, ctx.config.loginWindowSeconds)
  if (!counts[0]?.allowed) {
    const limits = new Map([scopes.pair, scopes.account, scopes.address].map((s) => [s.key, s.limit]))
    const ends = counts
      .filter((c) => c.attempts >= (limits.get(c.throttle_key) ?? Infinity))
      .map((c) => c.started_at.getTime() + ctx.config.loginWindowSeconds * 1000)
    const until = ends.length ? Math.max(...ends) : ctx.now.getTime() + ctx.config.loginWindowSeconds * 1000
    const retryAfter = Math.max(1, Math.ceil((until - ctx.now.getTime()) / 1000))
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `Too many failed login attempts. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
      { retryAfterSeconds: retryAfter },
      { 'retry-after': String(retryAfter) },
    )
  }

  const valid = await Bun.password.verify(body.password, row?.password_hash ?? DUMMY_HASH)
  if (!row || !valid) throw new AppError('BAD_CREDENTIALS', 'The username/email or password is incorrect.')
  await q.settleSuccess(sql, scopes.pair.key, [scopes.account.key, scopes.address.key])

  const session = await createLoginSession(
    { sql, config: ctx.config, sign: ctx.sign, cookie: ctx.cookie },
    { userId: row.id, now: ctx.now, ip: ctx.ip, userAgent: ctx.userAgent },
  )
  return { accessToken: session.accessToken, tokenType: session.tokenType, expiresAt: session.expiresAt, user: toUser(fromRow(row)) }
}

export async function updateMe(sql: Sql, user: CurrentUser, body: UpdateMeBody) {
  const row = await q.updateUser(sql, user.id, body)
  if (!row) throw unauthenticated()
  return toUser(fromRow(row))
}

export const logout = (sql: Sql, sessionId: string, now: Date) => q.revokeSession(sql, sessionId, now)
