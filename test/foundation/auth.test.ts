import { describe, expect, test } from 'bun:test'
import { tokenSigner, VerifiedTokens } from '../../src/http/auth.ts'
import { ManualClock, signUp, testApp, uniq } from '../support/harness.ts'

const password = 'correct horse battery'

describe('register', async () => {
  const { api, deps } = await testApp()

  test('201 with the user; role defaults to STUDENT; no password or hash in the response', async () => {
    const username = uniq('Reg')
    const r = await api.post('/auth/register', { json: { username, email: `${username}@Example.test`, password } })
    expect(r.status).toBe(201)
    expect(r.code).toBe(0)
    expect(r.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      username,
      email: `${username}@Example.test`,
      displayName: username,
      role: 'STUDENT',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      locale: null,
      emailVerified: false,
      pendingCourseInvitations: 0,
    })
    expect(JSON.stringify(r.body)).not.toMatch(/password|argon/i)
    const [row] = await deps.sql`select password_hash from users where id = ${r.data.id}`
    expect(row!.password_hash).toStartWith('$argon2id$')
  })

  test('teacher role and display name are kept', async () => {
    const username = uniq('teach')
    const r = await api.post('/auth/register', { json: { username, email: `${username}@x.test`, password, role: 'TEACHER', displayName: 'Dr. Li' } })
    expect(r.status).toBe(201)
    expect(r.data).toMatchObject({ role: 'TEACHER', displayName: 'Dr. Li' })
  })

  test('taken username or email (case-insensitive) → 409, nothing written', async () => {
    const username = uniq('dup')
    await api.post('/auth/register', { json: { username, email: `${username}@x.test`, password } })
    const sameName = await api.post('/auth/register', { json: { username: username.toUpperCase(), email: `other${username}@x.test`, password } })
    expect(sameName.status).toBe(409)
    expect(sameName.code).toBe(40901)
    const sameEmail = await api.post('/auth/register', { json: { username: uniq('other'), email: `${username.toUpperCase()}@X.TEST`, password } })
    expect(sameEmail.status).toBe(409)
    expect(sameEmail.code).toBe(40902)
    const [n] = await deps.sql`select count(*)::int as n from users where lower(email) = lower(${`${username}@x.test`})`
    expect(n!.n).toBe(1)
  })

  test.each([
    ['short username', { username: 'ab' }, 'username'],
    ['username with spaces', { username: 'has space' }, 'username'],
    ['bad email', { email: 'nope' }, 'email'],
    ['short password', { password: 'short' }, 'password'],
    ['long password', { password: 'x'.repeat(129) }, 'password'],
    ['unknown role', { role: 'ADMIN' }, 'role'],
    ['missing email', { email: undefined }, 'email'],
  ])('%s → 400', async (_l, patch, field) => {
    const base = { username: uniq('ok'), email: `${uniq('e')}@x.test`, password }
    const r = await api.post('/auth/register', { json: { ...base, ...patch } })
    expect(r.status).toBe(400)
    expect(r.code).toBe(40001)
    expect(r.data.fields.map((f: { field: string }) => f.field)).toContain(field)
  })
})

describe('login, me, logout', async () => {
  const clock = new ManualClock()
  const { api, deps } = await testApp({ clock, config: { tokenTtlSeconds: 3600, cookieSecure: true } })

  test('login by username or email, case-insensitively; cookie and bearer both work', async () => {
    const a = await signUp(api)
    for (const identifier of [a.username, a.username.toUpperCase(), a.email.toUpperCase()]) {
      const r = await api.post('/auth/login', { json: { identifier, password } })
      expect(r.status).toBe(200)
      expect(r.data).toMatchObject({ tokenType: 'Bearer', user: { id: a.id, username: a.username, role: 'STUDENT' } })
      expect(new Date(r.data.expiresAt).getTime()).toBe(clock.now().getTime() + 3600_000)
      const setCookie = r.headers.get('set-cookie')!
      expect(setCookie).toContain(`cls_session=${r.data.accessToken}`)
      expect(setCookie).toMatch(/HttpOnly/i)
      expect(setCookie).toMatch(/SameSite=Lax/i)
      expect(setCookie).toMatch(/Secure/i)
      expect(setCookie).toMatch(/Path=\//i)
    }
    const login = await api.post('/auth/login', { json: { identifier: a.email, password } })
    const byCookie = await api.get('/auth/me', { cookie: `cls_session=${login.data.accessToken}` })
    expect(byCookie.status).toBe(200)
    expect(byCookie.data).toMatchObject({ id: a.id, username: a.username, email: a.email })
    const byBearer = await api.get('/auth/me', { token: login.data.accessToken })
    expect(byBearer.data.id).toBe(a.id)
  })

  test('unknown user and wrong password give the same 401', async () => {
    const a = await signUp(api)
    const wrong = await api.post('/auth/login', { json: { identifier: a.username, password: 'wrong password!' } })
    const unknown = await api.post('/auth/login', { json: { identifier: uniq('ghost'), password: 'wrong password!' } })
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.body).toEqual(unknown.body)
    expect(wrong.code).toBe(40101)
  })

  test.each([
    ['no credentials', {}],
    ['garbage bearer', { token: 'not.a.jwt' }],
    ['garbage cookie', { cookie: 'cls_session=abc' }],
    ['malformed authorization header', { headers: { authorization: 'Basic Zm9vOmJhcg==' } }],
  ])('me with %s → 401', async (_l, opts) => {
    const r = await api.get('/auth/me', opts)
    expect(r.status).toBe(401)
    expect(r.code).toBe(40100)
    expect(r.data).toBeNull()
  })

  test('a token signed with another secret → 401', async () => {
    const other = await testApp({ config: { jwtSecret: 'another-secret-another-secret-0123456789' } })
    const a = await signUp(other.api)
    expect((await api.get('/auth/me', { token: a.token })).status).toBe(401)
  })

  test('logout ends the login on the server for cookie and bearer alike, and clears the cookie', async () => {
    const a = await signUp(api)
    const out = await api.post('/auth/logout', { token: a.token })
    expect(out.status).toBe(200)
    expect(out.code).toBe(0)
    expect(out.headers.get('set-cookie')).toMatch(/cls_session=;|Max-Age=0|Expires=Thu, 01 Jan 1970/i)
    expect((await api.get('/auth/me', { token: a.token })).status).toBe(401)
    expect((await api.get('/auth/me', { cookie: `cls_session=${a.token}` })).status).toBe(401)
    expect((await api.post('/auth/logout', { token: a.token })).status).toBe(401)
    const [s] = await deps.sql`select count(*)::int as n from sessions where user_id = ${a.id} and revoked_at is not null`
    expect(s!.n).toBe(1)
  })

  test('sessions expire on the server', async () => {
    const a = await signUp(api)
    clock.advance(3599_000)
    expect((await api.get('/auth/me', { token: a.token })).status).toBe(200)
    clock.advance(2_000)
    expect((await api.get('/auth/me', { token: a.token })).status).toBe(401)
  })

  test("a token that has been accepted is refused once its own exp passes, though its session lives on", async () => {
    // Accepted tokens are remembered (VerifiedTokens): the memory must judge `exp` as jose does.
    const a = await signUp(api)
    const sid = JSON.parse(Buffer.from(a.token.split('.')[1]!, 'base64url').toString()).sid as string
    const exp = Math.floor(clock.now().getTime() / 1000) + 60
    const short = await tokenSigner(deps.config.jwtSecret).sign({ sid, sub: a.id, exp })
    expect((await api.get('/auth/me', { token: short })).status).toBe(200)
    expect((await api.get('/auth/me', { token: short })).status).toBe(200)
    clock.advance(61_000)
    const late = await api.get('/auth/me', { token: short })
    expect([late.status, late.code]).toEqual([401, 40100])
    // The session itself is still valid: its own token (exp in an hour) still works.
    expect((await api.get('/auth/me', { token: a.token })).status).toBe(200)
  })
})

describe('login throttling', async () => {
  const clock = new ManualClock()
  const { api } = await testApp({
    clock,
    config: { loginMaxFailures: 3, loginMaxFailuresPerIp: 5, loginWindowSeconds: 600, trustProxy: true },
  })

  // Registered only: signUp's login would come from the header-less address, whose failures
  // (from this file and a previous run on the same database and manual clock) count here.
  const register = async () => {
    const username = uniq('thr')
    const r = await api.post('/auth/register', { json: { username, email: `${username}@x.test`, password } })
    if (r.status !== 201) throw new Error(`register failed: ${r.status}`)
    return { username }
  }

  test('repeated failures for one identifier → 429 with Retry-After, even with the right password; the window passes', async () => {
    const a = await register()
    const ip = { 'x-forwarded-for': uniq('10.0.0.') }
    for (let i = 0; i < 3; i++) {
      expect((await api.post('/auth/login', { json: { identifier: a.username, password: 'nope-nope' }, headers: ip })).status).toBe(401)
    }
    const blocked = await api.post('/auth/login', { json: { identifier: a.username, password }, headers: ip })
    expect(blocked.status).toBe(429)
    expect(blocked.code).toBe(42900)
    expect(Number(blocked.headers.get('retry-after'))).toBe(600)
    clock.advance(601_000)
    expect((await api.post('/auth/login', { json: { identifier: a.username, password }, headers: ip })).status).toBe(200)
  }, 60_000)

  test('one client address failing across many identifiers is throttled with a higher bound', async () => {
    // Addresses of this run only: the counts live in the database, which a second run shares.
    const ip = { 'x-forwarded-for': uniq('192.0.2.') }
    for (let i = 0; i < 5; i++) {
      expect((await api.post('/auth/login', { json: { identifier: uniq('x'), password: 'nope-nope' }, headers: ip })).status).toBe(401)
    }
    const r = await api.post('/auth/login', { json: { identifier: uniq('y'), password: 'nope-nope' }, headers: ip })
    expect(r.status).toBe(429)
    const other = await api.post('/auth/login', { json: { identifier: uniq('y'), password: 'nope-nope' }, headers: { 'x-forwarded-for': uniq('192.0.2.') } })
    expect(other.status).toBe(401)
  }, 60_000)

  test('a successful login resets the identifier counter', async () => {
    const a = await register()
    const ip = { 'x-forwarded-for': uniq('198.51.100.') }
    for (let i = 0; i < 2; i++) await api.post('/auth/login', { json: { identifier: a.username, password: 'bad-bad-bad' }, headers: ip })
    expect((await api.post('/auth/login', { json: { identifier: a.username, password }, headers: ip })).status).toBe(200)
    for (let i = 0; i < 2; i++) await api.post('/auth/login', { json: { identifier: a.username, password: 'bad-bad-bad' }, headers: ip })
    expect((await api.post('/auth/login', { json: { identifier: a.username, password }, headers: ip })).status).toBe(200)
  }, 60_000)
})

describe('VerifiedTokens (the memory of accepted tokens)', () => {
  const at = (seconds: number) => new Date(seconds * 1000)

  test('serves a payload only within its exp and nbf, and forgets an expired one', () => {
    const v = new VerifiedTokens<{ sid: string; exp?: number; nbf?: number }>()
    v.set('t1', { sid: 'a', exp: 1_000 })
    v.set('t2', { sid: 'b', exp: 2_000, nbf: 1_500 })
    expect(v.get('t1', at(999))).toEqual({ sid: 'a', exp: 1_000 })
    expect(v.get('t1', at(1_000))).toBeUndefined()
    expect(v.size).toBe(1)
    expect(v.get('t1', at(999))).toBeUndefined()
    expect(v.get('t2', at(1_499))).toBeUndefined()
    v.set('t2', { sid: 'b', exp: 2_000, nbf: 1_500 })
    expect(v.get('t2', at(1_500))).toEqual({ sid: 'b', exp: 2_000, nbf: 1_500 })
    expect(v.get('unknown', at(0))).toBeUndefined()
  })

  test('holds at most max tokens, the oldest going first', () => {
    const v = new VerifiedTokens<{ exp: number }>(3)
    for (const t of ['a', 'b', 'c', 'd']) v.set(t, { exp: 10 })
    expect(v.size).toBe(3)
    expect(['a', 'b', 'c', 'd'].map((t) => v.get(t, at(5)) !== undefined)).toEqual([false, true, true, true])
    v.set('d', { exp: 20 })
    expect(v.size).toBe(3)
    expect(v.get('d', at(15))).toEqual({ exp: 20 })
  })
})
