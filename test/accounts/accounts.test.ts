import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { ManualClock, uniq, type CallOptions, type TestContext } from '../support/harness.ts'
import { decodeQp, TestSmtp } from '../email/smtp.ts'
import { freshIp, MAIL_PUBLIC_URL, mailApp, mailsTo, tokenIn } from './helpers.ts'

/*
 * Accounts (issue 21) over HTTP against a real SMTP server: verification, every kind of bad
 * link, resend limits, forgot/reset without account enumeration, change password, sessions,
 * address change. Without e-mail and with closed teacher registration: without-email.test.ts;
 * no notification mail to unverified addresses: unverified-mail.test.ts; two processes:
 * instances.test.ts.
 */

const T0 = new Date('2031-05-01T08:00:00.000Z')
const clock = new ManualClock(T0)
const PUBLIC_URL = MAIL_PUBLIC_URL
const MINUTE = 60_000
const mail = mailApp(clock)
let ctx: TestContext
let sql: Sql
let smtp: TestSmtp

beforeAll(() => void ({ ctx, sql, smtp } = mail))

const send = mail.send

/** A client at its own address (the per-address limits never mix tests). */
function client(ip = freshIp()) {
  const h = (o: CallOptions = {}) => ({ ...o, headers: { 'x-forwarded-for': ip, 'user-agent': `test-agent ${ip}`, ...o.headers } })
  return {
    ip,
    get: (p: string, o?: CallOptions) => ctx.api.get(p, h(o)),
    post: (p: string, o?: CallOptions) => ctx.api.post(p, h(o)),
    del: (p: string, o?: CallOptions) => ctx.api.del(p, h(o)),
  }
}

interface Person {
  id: string
  username: string
  email: string
  password: string
  token: string
}

/** Registers (the verification mail is queued) and logs in. */
async function register(c = client(), opts: { displayName?: string; locale?: string; headers?: Record<string, string> } = {}): Promise<Person> {
  const username = uniq('acc')
  const email = `${username}@example.test`
  const password = 'correct horse battery'
  const r = await c.post('/auth/register', { json: { username, email, password, displayName: opts.displayName, locale: opts.locale }, headers: opts.headers })
  expect(r.status).toBe(201)
  expect(r.data.emailVerified).toBe(false)
  const l = await c.post('/auth/login', { json: { identifier: username, password } })
  expect(l.status).toBe(200)
  return { id: r.data.id, username, email, password, token: l.data.accessToken }
}

async function lastMailTo(address: string) {
  await send()
  const mails = mailsTo(smtp, address)
  expect(mails.length).toBeGreaterThan(0)
  return mails[mails.length - 1]!
}

const randomToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')

describe('verification', () => {
  test('registration mails a link; the link verifies the address once; the mail carries no text the registrant chose', async () => {
    const c = client()
    const evil = 'Urgent: password reset required https://evil.example/reset'
    const p = await register(c, { displayName: evil })
    const mail = await lastMailTo(p.email)
    expect(mail.header('Subject')).toBe('[Course Learning] Confirm your e-mail address')
    expect(mail.raw).toContain('Content-Type: text/plain')
    expect(mail.raw).toContain('Content-Type: text/html')
    const body = decodeQp(mail.raw).split(/\r?\n\r?\n/).slice(1).join('\n\n')
    expect(body).not.toContain('evil.example')
    expect(body).not.toContain(p.username)
    expect(body).toContain(`${PUBLIC_URL}/verify-email?token=`)
    const token = tokenIn(mail, '/verify-email')
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // Only the SHA-256 is stored; the outbox copy is erased once sent.
    const stored = await sql<{ token_hash: Buffer }[]>`select token_hash from email_tokens where user_id = ${p.id}`
    expect(stored).toHaveLength(1)
    expect(Buffer.from(stored[0]!.token_hash).equals(new Bun.CryptoHasher('sha256').update(token).digest() as Buffer)).toBe(true)
    const [row] = await sql<{ secret: Buffer | null; sent_at: Date | null }[]>`select secret, sent_at from email_outbox where user_id = ${p.id} and kind = 'VERIFY_EMAIL'`
    expect(row!.sent_at).not.toBeNull()
    expect(row!.secret).toBeNull()

    const v = await c.post('/auth/email/verify', { json: { token } })
    expect(v.status).toBe(200)
    expect(v.code).toBe(0)
    expect(v.data).toMatchObject({ id: p.id, email: p.email, emailVerified: true })
    expect((await c.get('/auth/me', { token: p.token })).data.emailVerified).toBe(true)
    // Single use.
    const again = await c.post('/auth/email/verify', { json: { token } })
    expect(again.status).toBe(400)
    expect(again.code).toBe(40002)
    expect(again.message).toBe('The link is invalid or has expired.')
  }, 30_000)

  test('the mail is in the reader’s language (zh-CN by the registration’s locale)', async () => {
    const p = await register(client(), { locale: 'zh-CN' })
    const mail = await lastMailTo(p.email)
    expect(decodeQp(mail.raw)).toContain('<html lang="zh-CN">')
    expect(decodeQp(mail.raw)).toContain('确认我的邮箱地址')
    const q = await register(client(), { headers: { 'accept-language': 'zh-CN,zh;q=0.9' } })
    expect(decodeQp((await lastMailTo(q.email)).raw)).toContain('确认我的邮箱地址')
  }, 30_000)

  test('bad links: unknown, malformed, used, expired, replaced by a newer one → 400 40002; no token → 40001', async () => {
    const c = client()
    const p = await register(c)
    const first = tokenIn(await lastMailTo(p.email), '/verify-email')
    for (const token of [randomToken(), 'abc', '', 'x'.repeat(512), `${first}x`, first.toUpperCase() === first ? first.toLowerCase() : first.toUpperCase()]) {
      const r = await c.post('/auth/email/verify', { json: { token } })
      expect(r.status).toBe(400)
      expect(r.code).toBe(40002)
    }
    const missing = await c.post('/auth/email/verify', { json: {} })
    expect(missing.status).toBe(400)
    expect(missing.code).toBe(40001)
    // A newer link replaces the first.
    clock.advance(2 * MINUTE)
    expect((await c.post('/auth/email/verification', { token: p.token })).status).toBe(202)
    const second = tokenIn(await lastMailTo(p.email), '/verify-email')
    expect(second).not.toBe(first)
    const replaced = await c.post('/auth/email/verify', { json: { token: first } })
    expect(replaced.code).toBe(40002)
    // Expired: EMAIL_TOKEN_TTL_SECONDS (default a day) later.
    clock.advance(ctx.deps.config.emailTokenTtlSeconds * 1000 + 1000)
    const expired = await c.post('/auth/email/verify', { json: { token: second } })
    expect(expired.status).toBe(400)
    expect(expired.code).toBe(40002)
    expect((await c.get('/auth/me', { token: p.token })).data.emailVerified).toBe(false)
  }, 30_000)

  test('resend: 401 without login; 202; more than 1 a minute or 5 a day → 429 with Retry-After; verified → 409', async () => {
    const c = client()
    const p = await register(c)
    expect((await c.post('/auth/email/verification')).status).toBe(401)
    const sent: number[] = []
    for (let i = 0; i < 5; i++) {
      const r = await c.post('/auth/email/verification', { token: p.token })
      expect(r.status).toBe(202)
      expect(r.data).toBeNull()
      sent.push(i)
      const fast = await c.post('/auth/email/verification', { token: p.token })
      expect(fast.status).toBe(429)
      expect(fast.code).toBe(42900)
      expect(Number(fast.headers.get('retry-after'))).toBeGreaterThan(0)
      // The minute's limit; after the fifth the day's too, which ends later.
      if (i < 4) expect(Number(fast.headers.get('retry-after'))).toBeLessThanOrEqual(60)
      else expect(Number(fast.headers.get('retry-after'))).toBeGreaterThan(3600)
      clock.advance(MINUTE + 1000)
    }
    const day = await c.post('/auth/email/verification', { token: p.token })
    expect(day.status).toBe(429)
    expect(Number(day.headers.get('retry-after'))).toBeGreaterThan(3600)
    await send()
    // Registration's mail and five resends.
    expect(mailsTo(smtp, p.email)).toHaveLength(6)
    const token = tokenIn(mailsTo(smtp, p.email).at(-1)!, '/verify-email')
    expect((await c.post('/auth/email/verify', { json: { token } })).status).toBe(200)
    clock.advance(2 * 86_400_000)
    const verified = await c.post('/auth/email/verification', { token: p.token })
    expect(verified.status).toBe(409)
    expect(verified.code).toBe(40900)
  }, 30_000)
})

describe('forgot and reset', () => {
  test('202 with the same body for an existing and an unknown account; only the account gets a mail', async () => {
    const c = client()
    const p = await register(c)
    await send()
    const before = smtp.received.length
    const known = await c.post('/auth/password/forgot', { json: { identifier: p.username } })
    const unknown = await c.post('/auth/password/forgot', { json: { identifier: `nobody-${uniq()}` } })
    const unknownMail = await c.post('/auth/password/forgot', { json: { identifier: `${uniq('nobody')}@example.test` } })
    for (const r of [known, unknown, unknownMail]) {
      expect(r.status).toBe(202)
      expect(r.body).toEqual(known.body)
      expect([...r.headers.keys()].filter((k) => k !== 'x-request-id').sort()).toEqual([...known.headers.keys()].filter((k) => k !== 'x-request-id').sort())
    }
    expect(known.body).toEqual({ code: 0, message: 'If an account with that username or e-mail exists, a reset link is on its way.', data: null })
    await send()
    expect(smtp.received.length).toBe(before + 1)
    const mail = mailsTo(smtp, p.email).at(-1)!
    expect(mail.header('Subject')).toBe('[Course Learning] Reset your password')
    expect(tokenIn(mail, '/reset-password')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // Bad input is still 400.
    expect((await c.post('/auth/password/forgot', { json: {} })).code).toBe(40001)
  }, 30_000)

  test('at most 3 mails per account an hour (further requests: 202, no mail); more than 20 requests an hour from one address → 429', async () => {
    const p = await register(client())
    await send()
    for (let i = 0; i < 5; i++) expect((await client().post('/auth/password/forgot', { json: { identifier: i % 2 ? p.email : p.username } })).status).toBe(202)
    await send()
    expect(mailsTo(smtp, p.email).filter((m) => m.header('Subject')?.includes('Reset'))).toHaveLength(3)
    clock.advance(61 * MINUTE)
    expect((await client().post('/auth/password/forgot', { json: { identifier: p.username } })).status).toBe(202)
    await send()
    expect(mailsTo(smtp, p.email).filter((m) => m.header('Subject')?.includes('Reset'))).toHaveLength(4)

    const c = client()
    for (let i = 0; i < 20; i++) expect((await c.post('/auth/password/forgot', { json: { identifier: `nobody-${i}-${uniq()}` } })).status).toBe(202)
    const over = await c.post('/auth/password/forgot', { json: { identifier: p.username } })
    expect(over.status).toBe(429)
    expect(over.code).toBe(42900)
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0)
    // Another address is not affected; the hour passes.
    expect((await client().post('/auth/password/forgot', { json: { identifier: 'someone' } })).status).toBe(202)
    clock.advance(61 * MINUTE)
    expect((await c.post('/auth/password/forgot', { json: { identifier: 'someone' } })).status).toBe(202)
  }, 30_000)

  test('reset: replaces the password, verifies the address, ends every session (cookie and bearer), clears login throttling', async () => {
    const c = client()
    const p = await register(c)
    await send()
    const other = await client().post('/auth/login', { json: { identifier: p.username, password: p.password } })
    const cookie = other.headers.get('set-cookie')!.split(';')[0]!
    expect((await c.get('/auth/me', { cookie })).status).toBe(200)
    // Five wrong passwords from this address lock it out of the account.
    for (let i = 0; i < 5; i++) expect((await c.post('/auth/login', { json: { identifier: p.username, password: 'wrong password' } })).status).toBe(401)
    expect((await c.post('/auth/login', { json: { identifier: p.username, password: p.password } })).status).toBe(429)

    expect((await c.post('/auth/password/forgot', { json: { identifier: p.email } })).status).toBe(202)
    const token = tokenIn(await lastMailTo(p.email), '/reset-password')
    const short = await c.post('/auth/password/reset', { json: { token, newPassword: 'short' } })
    expect(short.status).toBe(400)
    expect(short.code).toBe(40001)
    const r = await c.post('/auth/password/reset', { json: { token, newPassword: 'a brand new secret' } })
    expect(r.status).toBe(200)
    expect(r.data).toMatchObject({ id: p.id, emailVerified: true })
    for (const o of [{ token: p.token }, { cookie }, { token: other.data.accessToken }]) expect((await c.get('/auth/me', o)).status).toBe(401)
    expect((await c.post('/auth/login', { json: { identifier: p.username, password: p.password } })).status).toBe(401)
    const login = await c.post('/auth/login', { json: { identifier: p.username, password: 'a brand new secret' } })
    expect(login.status).toBe(200)
    expect(login.data.user.emailVerified).toBe(true)
    const reuse = await c.post('/auth/password/reset', { json: { token, newPassword: 'yet another secret' } })
    expect(reuse.status).toBe(400)
    expect(reuse.code).toBe(40002)
  }, 30_000)

  test('reset links: a newer one replaces older ones; expired after PASSWORD_RESET_TTL_SECONDS; unknown and malformed → 40002', async () => {
    const c = client()
    const p = await register(c)
    await send()
    await c.post('/auth/password/forgot', { json: { identifier: p.username } })
    const first = tokenIn(await lastMailTo(p.email), '/reset-password')
    await c.post('/auth/password/forgot', { json: { identifier: p.username } })
    const second = tokenIn(await lastMailTo(p.email), '/reset-password')
    expect(second).not.toBe(first)
    clock.advance(ctx.deps.config.passwordResetTtlSeconds * 1000 + 1000)
    for (const token of [first, second, randomToken(), 'not-a-token', '']) {
      const r = await c.post('/auth/password/reset', { json: { token, newPassword: 'a brand new secret' } })
      expect(r.status).toBe(400)
      expect(r.code).toBe(40002)
    }
    // A verification link is no reset link.
    const q = await register(c)
    const verify = tokenIn(await lastMailTo(q.email), '/verify-email')
    expect((await c.post('/auth/password/reset', { json: { token: verify, newPassword: 'a brand new secret' } })).code).toBe(40002)
    expect((await c.post('/auth/login', { json: { identifier: p.username, password: p.password } })).status).toBe(200)
  }, 30_000)
})

describe('change password', () => {
  test('401 without login; wrong current → 400 on currentPassword and counted as a failed login; success ends the other sessions only', async () => {
    const c = client()
    const p = await register(c)
    const other = await client().post('/auth/login', { json: { identifier: p.username, password: p.password } })
    expect((await c.post('/auth/password/change', { json: { currentPassword: p.password, newPassword: 'another secret' } })).status).toBe(401)
    const wrong = await c.post('/auth/password/change', { token: p.token, json: { currentPassword: 'not it at all', newPassword: 'another secret' } })
    expect(wrong.status).toBe(400)
    expect(wrong.code).toBe(40001)
    expect(wrong.data.fields).toEqual([{ field: 'currentPassword', message: 'is not your current password' }])
    const short = await c.post('/auth/password/change', { token: p.token, json: { currentPassword: p.password, newPassword: 'short' } })
    expect(short.status).toBe(400)
    expect(short.data.fields[0].field).toBe('newPassword')

    const ok = await c.post('/auth/password/change', { token: p.token, json: { currentPassword: p.password, newPassword: 'another secret' } })
    expect(ok.status).toBe(200)
    expect((await c.get('/auth/me', { token: p.token })).status).toBe(200)
    expect((await c.get('/auth/me', { token: other.data.accessToken })).status).toBe(401)
    expect((await c.post('/auth/login', { json: { identifier: p.username, password: p.password } })).status).toBe(401)
    expect((await c.post('/auth/login', { json: { identifier: p.username, password: 'another secret' } })).status).toBe(200)
  }, 30_000)

  test('wrong current passwords fill the login throttle: after LOGIN_MAX_FAILURES the login from that address is 429', async () => {
    const c = client()
    const p = await register(c)
    const limit = ctx.deps.config.loginMaxFailures
    // The registration's own login succeeded; now only failures.
    for (let i = 0; i < limit; i++) {
      expect((await c.post('/auth/password/change', { token: p.token, json: { currentPassword: `wrong ${i}`, newPassword: 'another secret' } })).status).toBe(400)
    }
    const locked = await c.post('/auth/password/change', { token: p.token, json: { currentPassword: p.password, newPassword: 'another secret' } })
    expect(locked.status).toBe(429)
    expect((await c.post('/auth/login', { json: { identifier: p.username, password: p.password } })).status).toBe(429)
    // Another machine is not locked out.
    expect((await client().post('/auth/login', { json: { identifier: p.username, password: p.password } })).status).toBe(200)
  }, 30_000)
})

describe('sessions', () => {
  test('GET lists my active sessions newest first with agent, address, times and the current one flagged', async () => {
    const c1 = client()
    const p = await register(c1)
    clock.advance(1000)
    const c2 = client()
    const second = await c2.post('/auth/login', { json: { identifier: p.username, password: p.password } })
    expect((await c1.get('/auth/sessions')).status).toBe(401)
    const r = await c1.get('/auth/sessions', { token: p.token })
    expect(r.status).toBe(200)
    expect(r.data).toHaveLength(2)
    expect(r.data[0]).toMatchObject({ userAgent: `test-agent ${c2.ip}`, address: c2.ip, current: false })
    expect(r.data[1]).toMatchObject({ userAgent: `test-agent ${c1.ip}`, address: c1.ip, current: true })
    expect(new Date(r.data[0].createdAt).getTime()).toBeGreaterThan(new Date(r.data[1].createdAt).getTime())
    expect(Object.keys(r.data[0]).sort()).toEqual(['address', 'createdAt', 'current', 'id', 'lastUsedAt', 'userAgent'])
    // Seen from the second session, it is the current one.
    const seen = await c2.get('/auth/sessions', { token: second.data.accessToken })
    expect(seen.data.map((s: { current: boolean }) => s.current)).toEqual([true, false])
  }, 30_000)

  test('lastUsedAt is written at most once a minute', async () => {
    const c = client()
    const p = await register(c)
    const created = (await c.get('/auth/sessions', { token: p.token })).data[0].lastUsedAt
    clock.advance(30_000)
    expect((await c.get('/auth/sessions', { token: p.token })).data[0].lastUsedAt).toBe(created)
    clock.advance(31_000)
    await c.get('/auth/me', { token: p.token })
    const after = (await c.get('/auth/sessions', { token: p.token })).data[0].lastUsedAt
    expect(after).toBe(clock.now().toISOString())
    clock.advance(10_000)
    await c.get('/auth/me', { token: p.token })
    expect((await c.get('/auth/sessions', { token: p.token })).data[0].lastUsedAt).toBe(after)
  }, 30_000)

  test('DELETE ends my session at once; another user’s or an unknown one → 404; malformed id → 400; ending the current one clears the cookie', async () => {
    const c = client()
    const p = await register(c)
    const q = await register(client())
    const other = await client().post('/auth/login', { json: { identifier: p.username, password: p.password } })
    const list = (await c.get('/auth/sessions', { token: p.token })).data as { id: string; current: boolean }[]
    const otherId = list.find((s) => !s.current)!.id
    const currentId = list.find((s) => s.current)!.id
    expect((await c.del(`/auth/sessions/${otherId}`)).status).toBe(401)
    // Someone else cannot end it, nor learn that it exists.
    const foreign = await c.del(`/auth/sessions/${otherId}`, { token: q.token })
    expect(foreign.status).toBe(404)
    expect(foreign.code).toBe(40400)
    expect((await c.get('/auth/me', { token: other.data.accessToken })).status).toBe(200)
    expect((await c.del('/auth/sessions/not-a-uuid', { token: p.token })).status).toBe(400)
    expect((await c.del(`/auth/sessions/${crypto.randomUUID()}`, { token: p.token })).status).toBe(404)

    const r = await c.del(`/auth/sessions/${otherId}`, { token: p.token })
    expect(r.status).toBe(200)
    expect((await c.get('/auth/me', { token: other.data.accessToken })).status).toBe(401)
    expect((await c.del(`/auth/sessions/${otherId}`, { token: p.token })).status).toBe(404)
    expect((await c.get('/auth/sessions', { token: p.token })).data.map((s: { id: string }) => s.id)).toEqual([currentId])

    const own = await c.del(`/auth/sessions/${currentId}`, { token: p.token })
    expect(own.status).toBe(200)
    expect(own.headers.get('set-cookie')).toContain('cls_session=;')
    expect((await c.get('/auth/me', { token: p.token })).status).toBe(401)
  }, 30_000)
})

describe('change e-mail', () => {
  test('202 and a link to the new address; the change happens when it is used; the verified old address gets a notice', async () => {
    const c = client()
    const p = await register(c)
    expect((await c.post('/auth/email/verify', { json: { token: tokenIn(await lastMailTo(p.email), '/verify-email') } })).status).toBe(200)
    const newEmail = `${uniq('new')}@example.test`
    expect((await c.post('/auth/email/change', { json: { newEmail, currentPassword: p.password } })).status).toBe(401)
    const wrong = await c.post('/auth/email/change', { token: p.token, json: { newEmail, currentPassword: 'not it at all' } })
    expect(wrong.status).toBe(400)
    expect(wrong.data.fields[0].field).toBe('currentPassword')
    const same = await c.post('/auth/email/change', { token: p.token, json: { newEmail: p.email.toUpperCase(), currentPassword: p.password } })
    expect(same.status).toBe(400)
    expect(same.data.fields[0].field).toBe('newEmail')
    const bad = await c.post('/auth/email/change', { token: p.token, json: { newEmail: 'not an address', currentPassword: p.password } })
    expect(bad.status).toBe(400)
    const q = await register(client())
    const taken = await c.post('/auth/email/change', { token: p.token, json: { newEmail: q.email, currentPassword: p.password } })
    expect(taken.status).toBe(409)
    expect(taken.code).toBe(40902)

    const r = await c.post('/auth/email/change', { token: p.token, json: { newEmail, currentPassword: p.password } })
    expect(r.status).toBe(202)
    // Nothing changes until the link is used.
    expect((await c.get('/auth/me', { token: p.token })).data).toMatchObject({ email: p.email, emailVerified: true })
    const mail = await lastMailTo(newEmail)
    expect(mail.header('Subject')).toBe('[Course Learning] Confirm your new e-mail address')
    const v = await c.post('/auth/email/verify', { json: { token: tokenIn(mail, '/verify-email') } })
    expect(v.status).toBe(200)
    expect(v.data).toMatchObject({ email: newEmail, emailVerified: true })
    expect((await c.get('/auth/me', { token: p.token })).data.email).toBe(newEmail)
    const notice = await lastMailTo(p.email)
    expect(notice.header('Subject')).toBe('[Course Learning] Your e-mail address was changed')
    expect(decodeQp(notice.raw)).toContain(newEmail)
    // The new address logs in.
    expect((await c.post('/auth/login', { json: { identifier: newEmail, password: p.password } })).status).toBe(200)
  }, 30_000)

  test('409 when another account took the address before the link was used; no notice to an unverified old address', async () => {
    const c = client()
    const p = await register(c)
    const newEmail = `${uniq('race')}@example.test`
    expect((await c.post('/auth/email/change', { token: p.token, json: { newEmail, currentPassword: p.password } })).status).toBe(202)
    const token = tokenIn(await lastMailTo(newEmail), '/verify-email')
    const username = uniq('thief')
    expect((await c.post('/auth/register', { json: { username, email: newEmail.toUpperCase(), password: 'correct horse battery' } })).status).toBe(201)
    const v = await c.post('/auth/email/verify', { json: { token } })
    expect(v.status).toBe(409)
    expect(v.code).toBe(40902)
    expect((await c.get('/auth/me', { token: p.token })).data.email).toBe(p.email)
    await send()
    expect(mailsTo(smtp, p.email).filter((m) => m.header('Subject')?.includes('was changed'))).toHaveLength(0)
  }, 30_000)

  test('a verification link sent to the old address stops working after the change', async () => {
    const c = client()
    const p = await register(c)
    const oldLink = tokenIn(await lastMailTo(p.email), '/verify-email')
    const newEmail = `${uniq('moved')}@example.test`
    expect((await c.post('/auth/email/change', { token: p.token, json: { newEmail, currentPassword: p.password } })).status).toBe(202)
    expect((await c.post('/auth/email/verify', { json: { token: tokenIn(await lastMailTo(newEmail), '/verify-email') } })).status).toBe(200)
    expect((await c.post('/auth/email/verify', { json: { token: oldLink } })).code).toBe(40002)
  }, 30_000)
})
