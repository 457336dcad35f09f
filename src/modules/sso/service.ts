import type { Config, OidcConfig } from '../../config.ts'
import type { Sql, TxSql } from '../../db/connect.ts'
import type { Role } from '../../http/guards.ts'
import { newId } from '../../lib/ids.ts'
import { startSession } from '../auth/session.ts'
import { enrolInvitations } from '../rosters/service.ts'
import { randomCodeVerifier, randomSecret, type Claims, type OidcClient } from '../../infra/oidc.ts'
import * as q from './queries.ts'

/** A sign-in is worth this long between start and callback (the contract's 10 minutes). */
export const SIGN_IN_TTL_MS = 10 * 60 * 1000
export const DEFAULT_NEXT = '/courses'

/** Why a sign-in failed: logged, never shown (the browser only learns `?error=sso`, or `?error=` this `shown` code). */
export class SsoFailure extends Error {
  override name = 'SsoFailure'
  constructor(
    message: string,
    /** The `error` the login page is sent with when it has something to explain (else `sso`). */
    readonly shown: 'sso' | 'sso-unverified-local' = 'sso',
  ) {
    super(message)
  }
}

export const sha256 = (s: string) => new Bun.CryptoHasher('sha256').update(s).digest('base64url')

/**
 * Where to go after signing in: a path on this site, else /courses. Refused: anything with a
 * scheme or host (`https://evil`, `//evil`, `/\evil` which browsers read as `//evil`), control
 * characters, backslashes anywhere, and anything that resolves off this origin.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length === 0 || next.length > 2048) return DEFAULT_NEXT
  if (!next.startsWith('/') || next.startsWith('//') || /[\\\u0000-\u001F\u007F]/.test(next)) return DEFAULT_NEXT
  try {
    const base = 'http://same.invalid'
    const u = new URL(next, base)
    if (u.origin !== base) return DEFAULT_NEXT
    const path = u.pathname + u.search + u.hash
    return path.startsWith('//') ? DEFAULT_NEXT : path
  } catch {
    return DEFAULT_NEXT
  }
}

/** A claim by name, or by a dotted path into nested claims (Keycloak's `realm_access.roles`). */
export function claimValue(claims: Record<string, unknown>, name: string): unknown {
  if (name in claims) return claims[name]
  let v: unknown = claims
  for (const part of name.split('.')) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<string, unknown>)[part]
  }
  return v
}

export function roleByRule(claims: Record<string, unknown>, rule: OidcConfig['teacherRule']): Role {
  if (!rule) return 'STUDENT'
  const v = claimValue(claims, rule.claim)
  const same = (x: unknown) => (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean') && String(x) === rule.value
  return same(v) || (Array.isArray(v) && v.some(same)) ? 'TEACHER' : 'STUDENT'
}

const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined)
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** Usernames to try, best first: preferred_username (or the e-mail's local part) cleaned to the username rules. */
export function usernameCandidates(claims: Record<string, unknown>): string[] {
  const raw = text(claims.preferred_username) ?? text(claims.email) ?? ''
  const local = raw.includes('@') ? raw.slice(0, raw.indexOf('@')) : raw
  let base = local.normalize('NFKD').replace(/[^A-Za-z0-9_.-]+/g, '').slice(0, 24)
  if (base.length < 3) base = `user${base}`
  const random = () => String(Math.floor(100000 + Math.random() * 900000))
  return [base, ...[2, 3, 4, 5, 6, 7, 8, 9].map((n) => `${base}${n}`), `${base}${random()}`, `${base}${random()}`]
}

export function displayNameOf(claims: Record<string, unknown>, username: string): string {
  const name = text(claims.name) ?? ([text(claims.given_name), text(claims.family_name)].filter(Boolean).join(' ') || username)
  return name.replace(CONTROL, '').trim().slice(0, 64) || username
}

export interface StartInput {
  next: unknown
  /** The browser's sign-in cookie, if it already has one (several tabs may sign in at once). */
  browser: string | undefined
  now: Date
}

/** Records a sign-in and returns the provider URL to send the browser to, and the browser cookie. */
export async function startSignIn(sql: Sql, client: OidcClient, input: StartInput) {
  const browser = input.browser && /^[A-Za-z0-9_-]{43}$/.test(input.browser) ? input.browser : randomSecret()
  const req = { state: randomSecret(), nonce: randomSecret(), codeVerifier: randomCodeVerifier() }
  // Discovery first: a provider that is down records nothing.
  const url = await client.authorizationUrl(req, input.now)
  await q.purgeExpiredSignIns(sql, input.now)
  await q.insertSignIn(sql, {
    stateHash: sha256(req.state),
    browserHash: sha256(browser),
    codeVerifier: req.codeVerifier,
    nonce: req.nonce,
    nextPath: safeNext(input.next),
    now: input.now,
    expiresAt: new Date(input.now.getTime() + SIGN_IN_TTL_MS),
  })
  return { url, browser }
}

export interface CallbackInput {
  /** The callback's query string, as the provider sent it. */
  search: string
  browser: string | undefined
  now: Date
  ip: string | null
  userAgent: string | null
  sign: (payload: { sid: string; sub: string; exp: number }) => Promise<string>
}

/**
 * Completes a sign-in: the sign-in record (single use), the code and ID token, then the
 * account (by issuer + sub; else by verified e-mail; else a new one) and a login session, all
 * in one transaction. Throws SsoFailure (or the client's error) and leaves nothing behind.
 */
export async function finishSignIn(sql: Sql, client: OidcClient, config: Pick<Config, 'tokenTtlSeconds'> & { oidc: OidcConfig }, input: CallbackInput) {
  const params = new URLSearchParams(input.search)
  const providerError = params.get('error')
  const state = params.get('state')
  // Taken first, even when the provider reports an error: a state is used once.
  const signIn = state && state.length <= 512 ? await q.takeSignIn(sql, sha256(state), input.now) : null
  if (providerError) throw new SsoFailure(`the provider answered error=${providerError.slice(0, 100)}`)
  if (!state) throw new SsoFailure('the callback has no state')
  if (!signIn) throw new SsoFailure('unknown, used or expired state')
  if (!input.browser || sha256(input.browser) !== signIn.browser_hash) throw new SsoFailure('the sign-in was started in another browser (no or another sign-in cookie)')

  const { issuer, claims } = await client.redeem(
    input.search,
    { state, nonce: signIn.nonce, codeVerifier: signIn.code_verifier },
    input.now,
  )
  // An unusable password: the account signs in by its provider (or sets one by "forgot password").
  const passwordHash = await Bun.password.hash(randomSecret(), { algorithm: 'argon2id' })
  const session = await sql.begin(async (tx) => {
    const userId = await accountFor(tx, issuer, claims, config.oidc, passwordHash, input.now)
    return startSession(tx, { userId, now: input.now, ip: input.ip, userAgent: input.userAgent }, { sign: input.sign, config })
  })
  return { ...session, next: signIn.next_path }
}

async function accountFor(tx: TxSql, issuer: string, claims: Claims, cfg: OidcConfig, passwordHash: string, now: Date): Promise<string> {
  const known = await q.findUserByIdentity(tx, issuer, claims.sub)
  if (known) return known.id

  const email = text(claims.email)
  const verified = claims.email_verified === true || claims.email_verified === 'true'
  if (email && verified) {
    const existing = await q.findUserByEmail(tx, email)
    if (existing) {
      // Only an account whose own address was proved is handed over: anyone may register an
      // address and leave it unverified, then wait for its owner to sign in here (issue 48).
      if (!existing.email_verified) {
        throw new SsoFailure('an unverified local account holds the verified e-mail; it is not linked', 'sso-unverified-local')
      }
      const other = await q.identityOfIssuer(tx, existing.id, issuer)
      if (other) throw new SsoFailure('the account with this verified e-mail is already linked to another account of this provider')
      await q.insertIdentity(tx, { issuer, subject: claims.sub, userId: existing.id, now, linkedBy: 'email' })
      return existing.id
    }
  }

  if (!email || !EMAIL.test(email) || email.length > 254) throw new SsoFailure('the provider sent no usable e-mail address (scope "email")')
  // Not verified by the provider: the address of an existing account is not taken over, and a
  // second account with the same address cannot exist either (e-mails are unique).
  if (await q.findUserByEmail(tx, email)) throw new SsoFailure('the e-mail belongs to an existing account and the provider does not say it is verified')
  const candidates = usernameCandidates(claims)
  const taken = await q.takenUsernames(tx, candidates)
  const username = candidates.find((c) => !taken.has(c.toLowerCase()))
  if (!username) throw new SsoFailure('no free username near the provider\'s preferred_username')
  const created = await q.insertSsoUser(tx, {
    id: newId(),
    username,
    email,
    emailVerified: verified,
    passwordHash,
    displayName: displayNameOf(claims, username),
    role: roleByRule(claims, cfg.teacherRule),
    now,
  })
  if (!created) throw new SsoFailure('the username or e-mail was taken by a concurrent registration')
  await q.insertIdentity(tx, { issuer, subject: claims.sub, userId: created.id, now, linkedBy: 'created' })
  // Roster invitations of a verified address enrol the new student, as a verified registration does.
  if (verified) await enrolInvitations(tx, created.id, email, now)
  return created.id
}
