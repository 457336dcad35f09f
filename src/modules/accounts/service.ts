import type { Config } from '../../config.ts'
import type { Background } from '../../deps.ts'
import type { Sql, TxSql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { AppError, conflict, invalidField, notFound } from '../../http/errors.ts'
import type { CurrentUser } from '../../http/guards.ts'
import { newId } from '../../lib/ids.ts'
import type { Logger } from '../../lib/log.ts'
import * as authQ from '../auth/queries.ts'
import { fromRow, throttleScopes, toUser } from '../auth/service.ts'
import { queueAccountMail } from '../email/queries.ts'
import { enrolInvitations } from '../rosters/service.ts'
import { issueLink } from '../links/links.ts'
import type { ChangeEmailBody, ChangePasswordBody, ForgotBody, ResetBody } from './model.ts'
import * as q from './queries.ts'
import { retireLinks } from '../links/queries.ts'
import { looksLikeToken, tokenHash } from '../links/tokens.ts'

type AccountConfig = Pick<
  Config,
  | 'emailTokenTtlSeconds'
  | 'passwordResetTtlSeconds'
  | 'loginMaxFailures'
  | 'loginMaxFailuresPerAccount'
  | 'loginMaxFailuresPerIp'
  | 'loginWindowSeconds'
> & { jwtSecret: string }

export interface AccountDeps {
  sql: Sql
  config: AccountConfig
  /** Deps.emailEnabled: without it nothing is mailed and the mail-only routes answer 503. */
  emailEnabled: boolean
  log?: Logger
  /** Where the forgot-password mail's work is kept until it settles (Deps.background). */
  background: Background
}

/** Limits of the account routes (the contract's numbers). */
export const LIMITS = {
  verificationMailsPerMinute: 1,
  verificationMailsPerDay: 5,
  resetMailsPerAccountHour: 3,
  forgotRequestsPerAddressHour: 20,
}

const linkInvalid = () => new AppError('LINK_INVALID', 'The link is invalid or has expired.')
const resetUnavailable = () => new AppError('EMAIL_UNAVAILABLE', 'Password reset by e-mail is not available on this server.')
const emailUnavailable = () => new AppError('EMAIL_UNAVAILABLE', 'E-mail is not available on this server.')

function tooMany(rows: q.RateRow[], now: Date, message: string) {
  const ends = rows.filter((r) => !r.allowed).map((r) => r.started_at.getTime() + r.window_seconds * 1000)
  const full = rows.map((r) => r.started_at.getTime() + r.window_seconds * 1000)
  const until = Math.max(...(ends.length ? ends : full), now.getTime() + 1000)
  const retryAfter = Math.max(1, Math.ceil((until - now.getTime()) / 1000))
  return new AppError('TOO_MANY_REQUESTS', message, { retryAfterSeconds: retryAfter }, { 'retry-after': String(retryAfter) })
}

/** The scopes that are full: the reservation answered `allowed: false` for all rows, so compare hits with limits. */
async function reserveOr429(sql: Sql, scopes: { key: string; limit: number; windowSeconds: number }[], now: Date, message: string) {
  const rows = await q.reserveRate(sql, scopes, now)
  if (rows[0]?.allowed) return
  const limit = new Map(scopes.map((s) => [s.key, s.limit]))
  throw tooMany(
    rows.map((r) => ({ ...r, allowed: r.hits < (limit.get(r.rate_key) ?? Infinity) })),
    now,
    message,
  )
}

/** Verification mails (`verify`) and address-change mails (`change`) per user: 1 a minute, 5 a day each. */
const mailScopes = (kind: 'verify' | 'change', userId: string) => [
  { key: `${kind}-mail-minute:${userId}`, limit: LIMITS.verificationMailsPerMinute, windowSeconds: 60 },
  { key: `${kind}-mail-day:${userId}`, limit: LIMITS.verificationMailsPerDay, windowSeconds: 86_400 },
]

/**
 * Checks the current password of a logged-in user as a login attempt: counted in the login
 * throttling scopes before it is checked (429 when one is full), a wrong one stays counted as a
 * failed login and answers 400 on `currentPassword`.
 */
async function checkCurrentPassword(d: AccountDeps, user: CurrentUser, password: string, ip: string | null, now: Date) {
  const scopes = throttleScopes(user.username, user.id, ip, d.config)
  const counts = await authQ.reserveAttempt(d.sql, [scopes.pair, scopes.account, scopes.address], now, d.config.loginWindowSeconds)
  if (!counts[0]?.allowed) {
    const ends = counts.map((c) => c.started_at.getTime() + d.config.loginWindowSeconds * 1000)
    const retryAfter = Math.max(1, Math.ceil((Math.max(...ends) - now.getTime()) / 1000))
    throw new AppError(
      'TOO_MANY_REQUESTS',
      `Too many failed login attempts. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
      { retryAfterSeconds: retryAfter },
      { 'retry-after': String(retryAfter) },
    )
  }
  const row = await q.userById(d.sql, user.id)
  if (!row || !(await Bun.password.verify(password, row.password_hash))) throw invalidField('currentPassword', 'is not your current password')
  await authQ.settleSuccess(d.sql, scopes.pair.key, [scopes.account.key, scopes.address.key])
  return row
}

// ---- verification ------------------------------------------------------------------------

/**
 * Uses a verification or address-change link. A verification holds only while the account
 * still has the address it was sent to; an address change takes effect now (409 when another
 * account took the address meanwhile) and tells the old address, if it was verified.
 */
export async function verifyEmail(d: AccountDeps, token: string, now: Date) {
  if (!looksLikeToken(token)) throw linkInvalid()
  const hash = tokenHash(token)
  const row = await d.sql
    .begin(async (tx) => {
      const link = await q.consumeLink(tx, hash, ['VERIFY_EMAIL', 'CHANGE_EMAIL'], now)
      if (!link) throw linkInvalid()
      if (link.purpose === 'VERIFY_EMAIL') {
        const user = await q.markVerified(tx, link.user_id, link.email)
        if (!user) throw linkInvalid()
        await enrolInvitations(tx, user.id, user.email, now)
        return user
      }
      const before = await q.userById(tx, link.user_id, true)
      if (!before) throw linkInvalid()
      // Asked for by whoever knew the password then: a password changed since ends that.
      const changed = await q.passwordChangedAt(tx, link.user_id)
      if (changed && link.created_at < changed) throw linkInvalid()
      if (await q.emailTakenByOther(tx, link.email, link.user_id)) throw emailTaken()
      const user = await q.setEmail(tx, link.user_id, link.email)
      // Links sent to the old address (verification, reset) stop working with it, and so does a
      // provider account linked through it: that link held for that address only.
      await retireLinks(tx, link.user_id, ['VERIFY_EMAIL', 'RESET_PASSWORD'], now)
      await q.unlinkEmailIdentities(tx, link.user_id)
      if (before.email_verified && before.email.toLowerCase() !== link.email.toLowerCase() && d.emailEnabled) {
        await queueNotice(tx, before, link.email, now)
      }
      await enrolInvitations(tx, link.user_id, link.email, now)
      return user!
    })
    .catch((e) => {
      // Another account registered or took the address between the check and the update.
      if ((e as { code?: string })?.code === '23505') throw emailTaken()
      throw e
    })
  return toUser(fromRow(row))
}

const emailTaken = () => new AppError('EMAIL_TAKEN', 'An account with that email already exists. Try logging in instead.')

async function queueNotice(tx: Parameters<typeof issueLink>[0], before: authQ.UserRow, newEmail: string, now: Date) {
  await queueAccountMail(tx, {
    id: newId(),
    kind: 'EMAIL_CHANGED',
    userId: before.id,
    to: before.email,
    locale: before.locale ?? 'en',
    secret: null,
    params: { newEmail },
    now,
  })
}

/** A new verification mail to the current address; at most 1 a minute and 5 a day. */
export async function resendVerification(d: AccountDeps, user: CurrentUser, locale: string, now: Date) {
  if (!d.emailEnabled) throw emailUnavailable()
  if (user.emailVerified) throw conflict('CONFLICT', 'Your e-mail address is already verified.')
  await reserveOr429(d.sql, mailScopes('verify', user.id), now, 'Too many verification e-mails. Try again later.')
  await d.sql.begin((tx) =>
    issueLink(tx, {
      userId: user.id,
      purpose: 'VERIFY_EMAIL',
      email: user.email,
      ttlSeconds: d.config.emailTokenTtlSeconds,
      now,
      mail: { secret: d.config.jwtSecret, locale: user.locale ?? locale },
    }),
  )
}

/** Asks for a new address: a link goes there; the change happens when it is used. */
export async function changeEmail(d: AccountDeps, user: CurrentUser, body: ChangeEmailBody, ctx: { ip: string | null; locale: string; now: Date }) {
  if (!d.emailEnabled) throw emailUnavailable()
  await checkCurrentPassword(d, user, body.currentPassword, ctx.ip, ctx.now)
  if (body.newEmail.toLowerCase() === user.email.toLowerCase()) throw invalidField('newEmail', 'is already your address')
  if (await q.emailTakenByOther(d.sql, body.newEmail, user.id)) throw emailTaken()
  await reserveOr429(d.sql, mailScopes('change', user.id), ctx.now, 'Too many verification e-mails. Try again later.')
  await d.sql.begin((tx) =>
    issueLink(tx, {
      userId: user.id,
      purpose: 'CHANGE_EMAIL',
      email: body.newEmail,
      ttlSeconds: d.config.emailTokenTtlSeconds,
      now: ctx.now,
      mail: { secret: d.config.jwtSecret, locale: user.locale ?? ctx.locale },
    }),
  )
}

// ---- password reset ----------------------------------------------------------------------

/*
 * The answer to "forgot password" must not tell whether the account exists, by its body or by
 * its time. The request itself only counts the caller's address; looking the account up,
 * counting its mails and queueing the mail run after the answer, in the background.
 */
export async function forgotPassword(d: AccountDeps, body: ForgotBody, ctx: { ip: string | null; locale: string; now: Date }) {
  if (!d.emailEnabled) throw resetUnavailable()
  await reserveOr429(
    d.sql,
    [{ key: `forgot-address:${ctx.ip ?? 'unknown'}`, limit: LIMITS.forgotRequestsPerAddressHour, windowSeconds: 3600 }],
    ctx.now,
    'Too many password reset requests from this address. Try again later.',
  )
  const work = sendResetMail(d, body.identifier, ctx).catch((e) => d.log?.error('password reset mail failed', { error: String((e as Error)?.message ?? e) }))
  d.background.add(work)
}

async function sendResetMail(d: AccountDeps, identifier: string, ctx: { locale: string; now: Date }) {
  const user = await authQ.findUserByIdentifier(d.sql, identifier)
  if (!user) return
  const rows = await q.reserveRate(d.sql, [{ key: `reset-mail:${user.id}`, limit: LIMITS.resetMailsPerAccountHour, windowSeconds: 3600 }], ctx.now)
  if (!rows[0]?.allowed) return
  await d.sql.begin((tx) =>
    issueLink(tx, {
      userId: user.id,
      purpose: 'RESET_PASSWORD',
      email: user.email,
      ttlSeconds: d.config.passwordResetTtlSeconds,
      now: ctx.now,
      mail: { secret: d.config.jwtSecret, locale: user.locale ?? ctx.locale },
    }),
  )
}

/** A one-time reset link for the operator (src/cli/reset-link.ts, no mail); null: no such account. */
export async function operatorResetToken(sql: Sql, identifier: string, ttlSeconds: number, now: Date) {
  const user = await authQ.findUserByIdentifier(sql, identifier)
  if (!user) return null
  const token = await sql.begin((tx) => issueLink(tx, { userId: user.id, purpose: 'RESET_PASSWORD', email: user.email, ttlSeconds, now }))
  return { token, user: toUser(fromRow(user)) }
}

/**
 * Uses a reset link: the password is replaced, the address counts as verified (the link reached
 * it), every session of the account ends (each request checks its session row, so on every
 * instance at once), and the account's login-throttling failures are forgotten.
 */
export async function resetPassword(d: AccountDeps, body: ResetBody, now: Date) {
  if (!looksLikeToken(body.token)) throw linkInvalid()
  const hash = tokenHash(body.token)
  // Hashing is slow (argon2id): only for a link that is open right now.
  if (!(await q.openLink(d.sql, hash, ['RESET_PASSWORD'], now))) throw linkInvalid()
  const passwordHash = await Bun.password.hash(body.newPassword, { algorithm: 'argon2id' })
  const row = await d.sql.begin(async (tx) => {
    const link = await q.consumeLink(tx, hash, ['RESET_PASSWORD'], now)
    if (!link) throw linkInvalid()
    const before = await q.userById(tx, link.user_id, true)
    const user = await q.setPassword(tx, link.user_id, passwordHash, link.email, now)
    if (!before || !user) throw linkInvalid()
    if (user.email_verified) await enrolInvitations(tx, user.id, user.email, now)
    await recovered(tx, link.user_id, now, null)
    // The address is proved for the first time: whoever made the account with it (a provider
    // that did not vouch for the address, say) is not its owner; every sign-in provider goes.
    if (!before.email_verified && user.email_verified) await q.unlinkIdentities(tx, link.user_id)
    await q.clearLoginThrottle(tx, link.user_id)
    return user
  })
  return toUser(fromRow(row))
}

/** A new password for a logged-in user; every other session ends, this one stays. */
export async function changePassword(d: AccountDeps, user: CurrentUser, sessionId: string, body: ChangePasswordBody, ctx: { ip: string | null; now: Date }) {
  await checkCurrentPassword(d, user, body.currentPassword, ctx.ip, ctx.now)
  const passwordHash = await Bun.password.hash(body.newPassword, { algorithm: 'argon2id' })
  await d.sql.begin(async (tx) => {
    await q.setPassword(tx, user.id, passwordHash, null, ctx.now)
    await recovered(tx, user.id, ctx.now, sessionId)
  })
}

/**
 * What every recovery of an account does besides the new password (a reset link, an operator's
 * reset link, a password change), so that whoever held the account before keeps nothing: every
 * session ends (but `keep`, the session that changed the password), open reset and address-change
 * links die (a change link would move the account to their address; a reset link would undo the
 * recovery), provider accounts linked by a matching address are unlinked (one may be theirs,
 * linked through an address they had put on the account), and the private calendar URL changes
 * (they may have read it). docs/accounts-security.md lists each token family.
 */
export async function recovered(tx: TxSql, userId: string, now: Date, keep: string | null) {
  await q.endSessions(tx, userId, now, keep)
  await retireLinks(tx, userId, ['RESET_PASSWORD', 'CHANGE_EMAIL'], now)
  await q.unlinkEmailIdentities(tx, userId)
  await q.dropCalendarFeed(tx, userId)
}

// ---- sessions ----------------------------------------------------------------------------

export async function listSessions(sql: Sql, user: CurrentUser, currentId: string, now: Date) {
  const rows = await q.activeSessions(sql, user.id, now)
  return rows.map((r) => ({
    id: r.id,
    createdAt: iso(r.created_at)!,
    lastUsedAt: iso(r.last_used_at)!,
    userAgent: r.user_agent,
    address: r.ip,
    current: r.id === currentId,
  }))
}

/** Ends one of the caller's sessions; anyone else's (or an ended one) is unknown: 404. */
export async function endSession(sql: Sql, user: CurrentUser, sessionId: string, now: Date) {
  if (!(await q.endSession(sql, user.id, sessionId, now))) throw notFound('NOT_FOUND', 'You have no active session with this id.')
}
