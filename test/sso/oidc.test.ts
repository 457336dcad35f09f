import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock, signUp, uniq } from '../support/harness.ts'
import { OTHER_CLIENT_ID, startProvider, type TestProvider } from '../support/oidc-provider.ts'
import { browser, callback, REDIRECT_URI, signInAs, ssoApp, toCallback, type SsoApp } from './flow.ts'

let op: TestProvider
let app: SsoApp

beforeAll(async () => {
  op = await startProvider([REDIRECT_URI])
  app = await ssoApp(op)
})
afterAll(async () => {
  await op?.stop()
})

const me = (cookie: string | undefined) => app.api.get('/auth/me', { cookie: `cls_session=${cookie}` })
const usersWithEmail = async (email: string) =>
  (await app.deps.sql<{ id: string }[]>`select id from users where lower(email) = lower(${email})`).length

/** A provider account with these claims; its login name is its `sub`. */
function account(claims: Record<string, unknown>) {
  const login = uniq('op')
  op.accounts.set(login, claims)
  return login
}

describe('single sign-on: new accounts', () => {
  test('a new student: created from the claims, logged in by cookie, sent to /courses', async () => {
    const email = `${uniq('ana')}@campus.test`
    const login = account({ email, email_verified: true, preferred_username: 'Ana.Lee', name: 'Ana Lee' })
    const r = await signInAs(app.app, login)
    expect(r.status).toBe(302)
    expect(r.location).toBe('/courses')
    expect(r.session).toBeTruthy()
    const who = await me(r.session)
    expect(who.status).toBe(200)
    expect(who.data).toMatchObject({ email, displayName: 'Ana Lee', role: 'STUDENT' })
    expect(who.data.username).toMatch(/^Ana\.Lee\d*$/)
    const [row] = await app.deps.sql<{ email_verified: boolean; issuer: string; subject: string }[]>`
      select u.email_verified, i.issuer, i.subject from users u join user_identities i on i.user_id = u.id where u.id = ${who.data.id}`
    expect(row).toEqual({ email_verified: true, issuer: op.issuer, subject: login })
  })
})

describe('single sign-on: accounts', () => {
  test('the same provider account signs in to the same local account again (no second user)', async () => {
    const email = `${uniq('bo')}@campus.test`
    const login = account({ email, email_verified: true, preferred_username: 'bo' })
    const first = await me((await signInAs(app.app, login)).session)
    const again = await signInAs(app.app, login)
    expect(again.location).toBe('/courses')
    expect((await me(again.session)).data.id).toBe(first.data.id)
    expect(await usersWithEmail(email)).toBe(1)
  })

  test('a taken preferred_username is made unique; an e-mail local part serves when there is none', async () => {
    const local = await signUp(app.api)
    const a = await me((await signInAs(app.app, account({ email: `${uniq('x')}@campus.test`, email_verified: true, preferred_username: local.username }))).session)
    expect(a.data.username).not.toBe(local.username)
    expect(a.data.username.toLowerCase().startsWith(local.username.toLowerCase())).toBe(true)
    const part = uniq('mail')
    const b = await me((await signInAs(app.app, account({ email: `${part}@campus.test`, email_verified: true }))).session)
    expect(b.data.username).toBe(part)
    // Entra ID's preferred_username is the UPN (an address): its local part is used.
    const upn = uniq('upn')
    const c = await me((await signInAs(app.app, account({ email: `${uniq('e')}@campus.test`, email_verified: true, preferred_username: `${upn}@school.test` }))).session)
    expect(c.data.username).toBe(upn)
  })

  test('a teacher by OIDC_TEACHER_RULE (groups contains "teachers") may create a course', async () => {
    const login = account({ email: `${uniq('prof')}@campus.test`, email_verified: true, groups: ['staff', 'teachers'], name: 'Prof. Kim' })
    const r = await signInAs(app.app, login)
    const who = await me(r.session)
    expect(who.data).toMatchObject({ role: 'TEACHER', displayName: 'Prof. Kim' })
    const course = await app.api.post('/courses', { json: { title: 'SSO course', description: '' }, cookie: `cls_session=${r.session}` })
    expect(course.status).toBe(201)
    // Not in the group: a student.
    const other = await me((await signInAs(app.app, account({ email: `${uniq('s')}@campus.test`, email_verified: true, groups: ['staff'] }))).session)
    expect(other.data.role).toBe('STUDENT')
  })

  test('an existing account with a verified address is linked by a verified e-mail (same user, identity recorded)', async () => {
    const local = await signUp(app.api)
    // Only an account whose own address is verified is linked (issue 48, test/sso/takeover.test.ts).
    await app.deps.sql`update users set email_verified = true where id = ${local.id}`
    const login = account({ email: local.email.toUpperCase(), email_verified: true, preferred_username: 'someone-else' })
    const r = await signInAs(app.app, login)
    expect(r.location).toBe('/courses')
    expect((await me(r.session)).data).toMatchObject({ id: local.id, username: local.username, role: 'STUDENT' })
    const [row] = await app.deps.sql<{ email_verified: boolean; subject: string }[]>`
      select u.email_verified, i.subject from users u join user_identities i on i.user_id = u.id where u.id = ${local.id}`
    expect(row).toEqual({ email_verified: true, subject: login })
    // The password still works.
    expect((await app.api.post('/auth/login', { json: { identifier: local.username, password: local.password } })).status).toBe(200)
  })

  test('an unverified e-mail never links: the address of a local account is refused, nothing created, the log says why', async () => {
    const local = await signUp(app.api)
    const login = account({ email: local.email, email_verified: false })
    const sessionsBefore = await app.deps.sql<{ n: number }[]>`select count(*)::int as n from sessions where user_id = ${local.id}`
    const r = await signInAs(app.app, login)
    expect(r.status).toBe(302)
    expect(r.location).toBe('/login?error=sso')
    expect(r.session).toBeUndefined()
    expect(await usersWithEmail(local.email)).toBe(1)
    expect(await app.deps.sql`select 1 from user_identities where subject = ${login}`).toHaveLength(0)
    expect(await app.deps.sql<{ n: number }[]>`select count(*)::int as n from sessions where user_id = ${local.id}`).toEqual(sessionsBefore)
    expect(app.logs.some((l) => l.includes('single sign-on failed') && l.includes('does not say it is verified'))).toBe(true)
  })

  test('an unverified e-mail nobody uses: a new account, emailVerified false', async () => {
    const email = `${uniq('unv')}@campus.test`
    const r = await signInAs(app.app, account({ email, email_verified: false }))
    expect(r.location).toBe('/courses')
    const [row] = await app.deps.sql<{ email_verified: boolean }[]>`select email_verified from users where lower(email) = lower(${email})`
    expect(row).toEqual({ email_verified: false })
  })

  test('no e-mail from the provider: refused (an account needs an address), nothing created', async () => {
    const login = account({ preferred_username: uniq('nomail') })
    const r = await signInAs(app.app, login)
    expect(r.location).toBe('/login?error=sso')
    expect(await app.deps.sql`select 1 from user_identities where subject = ${login}`).toHaveLength(0)
  })
})

describe('single sign-on: what the callback refuses', () => {
  /** Signs in as a fresh verified account through `walk`; expects the refusal and nothing created. */
  async function refused(walk: (login: string) => Promise<{ location: string | null; session: string | undefined }>, logged: RegExp) {
    const email = `${uniq('no')}@campus.test`
    const login = account({ email, email_verified: true })
    const from = app.logs.length
    const r = await walk(login)
    expect(r.location).toBe('/login?error=sso')
    expect(r.session).toBeUndefined()
    expect(await usersWithEmail(email)).toBe(0)
    expect(await app.deps.sql`select 1 from user_identities where subject = ${login}`).toHaveLength(0)
    const lines = app.logs.slice(from).join('\n')
    expect(lines).toMatch(/single sign-on failed/)
    expect(lines).toMatch(logged)
  }

  test('a tampered state', async () => {
    await refused(async (login) => {
      const b = browser(app.app)
      const url = await toCallback(b, login)
      url.searchParams.set('state', `${url.searchParams.get('state')}x`)
      return callback(b, url)
    }, /unknown, used or expired state/)
  })

  test('no state at all', async () => {
    await refused(async (login) => {
      const b = browser(app.app)
      const url = await toCallback(b, login)
      url.searchParams.delete('state')
      return callback(b, url)
    }, /no state/)
  })

  test('a callback in another browser (no sign-in cookie): login CSRF', async () => {
    await refused(async (login) => {
      const url = await toCallback(browser(app.app), login)
      return callback(browser(app.app), url)
    }, /another browser/)
  })

  test('a replayed callback: the state is used once', async () => {
    const b = browser(app.app)
    const url = await toCallback(b, account({ email: `${uniq('re')}@campus.test`, email_verified: true }))
    expect((await callback(b, url)).location).toBe('/courses')
    b.jar.delete('cls_session')
    const from = app.logs.length
    const again = await callback(b, url)
    expect(again).toMatchObject({ location: '/login?error=sso', session: undefined })
    expect(app.logs.slice(from).join('\n')).toMatch(/unknown, used or expired state/)
  })

  test('the same callback twice at once: exactly one logs in, one account', async () => {
    const email = `${uniq('race')}@campus.test`
    const b = browser(app.app)
    const url = await toCallback(b, account({ email, email_verified: true }))
    const cookie = b.jar.header()
    const results = await Promise.all(
      [0, 1].map(() => app.app.handle(new Request(`http://localhost${url.pathname}${url.search}`, { headers: { cookie } }))),
    )
    expect(results.map((r) => r.headers.get('location')).sort()).toEqual(['/courses', '/login?error=sso'])
    expect(await usersWithEmail(email)).toBe(1)
  })

  test('a replayed code under a fresh state: the provider refuses it (invalid_grant)', async () => {
    const b = browser(app.app)
    const url = await toCallback(b, account({ email: `${uniq('rc')}@campus.test`, email_verified: true }))
    expect((await callback(b, url)).location).toBe('/courses')
    b.jar.delete('cls_session')
    // A new sign-in of the same browser, answered with the old code.
    const fresh = await toCallback(b, account({ email: `${uniq('rc')}@campus.test`, email_verified: true }))
    fresh.searchParams.set('code', url.searchParams.get('code')!)
    const from = app.logs.length
    expect(await callback(b, fresh)).toMatchObject({ location: '/login?error=sso', session: undefined })
    expect(app.logs.slice(from).join('\n')).toMatch(/invalid_grant/)
  })

  test('a wrong nonce in a correctly signed ID token', async () => {
    await refused(async (login) => {
      const b = browser(app.app)
      const url = await toCallback(b, login)
      op.tamper = { kind: 'claims', claims: { nonce: 'not-the-nonce' } }
      try {
        return await callback(b, url)
      } finally {
        op.tamper = null
      }
    }, /"claim":"nonce"/)
  })

  test('a wrong audience (an ID token for another client)', async () => {
    await refused(async (login) => {
      const b = browser(app.app)
      const url = await toCallback(b, login)
      op.tamper = { kind: 'claims', claims: { aud: OTHER_CLIENT_ID, azp: OTHER_CLIENT_ID } }
      try {
        return await callback(b, url)
      } finally {
        op.tamper = null
      }
    }, /"claim":"aud"/)
  })

  test('a wrong issuer', async () => {
    await refused(async (login) => {
      const b = browser(app.app)
      const url = await toCallback(b, login)
      op.tamper = { kind: 'claims', claims: { iss: 'https://evil.example' } }
      try {
        return await callback(b, url)
      } finally {
        op.tamper = null
      }
    }, /"claim":"iss"/)
  })

  test('a broken signature (claims changed after signing)', async () => {
    await refused(async (login) => {
      const b = browser(app.app)
      const url = await toCallback(b, login)
      op.tamper = { kind: 'unsigned', claims: { sub: 'someone-else' } }
      try {
        return await callback(b, url)
      } finally {
        op.tamper = null
      }
    }, /JWT signature verification failed/)
  })

  test('an expired ID token (it lives 60 s; the service clock is 3 minutes on)', async () => {
    const clock = new ManualClock(new Date())
    const skewed = await ssoApp(op, { clock })
    const email = `${uniq('exp')}@campus.test`
    const login = account({ email, email_verified: true })
    const b = browser(skewed.app)
    const url = await toCallback(b, login)
    clock.advance(3 * 60 * 1000)
    expect(await callback(b, url)).toMatchObject({ location: '/login?error=sso', session: undefined })
    expect(await usersWithEmail(email)).toBe(0)
    expect(skewed.logs.join('\n')).toMatch(/"claim":"exp"/)
  })

  test('a sign-in older than 10 minutes', async () => {
    const clock = new ManualClock(new Date())
    const skewed = await ssoApp(op, { clock })
    const b = browser(skewed.app)
    const url = await toCallback(b, account({ email: `${uniq('old')}@campus.test`, email_verified: true }))
    clock.advance(10 * 60 * 1000 + 1000)
    expect(await callback(b, url)).toMatchObject({ location: '/login?error=sso', session: undefined })
    expect(skewed.logs.join('\n')).toMatch(/unknown, used or expired state/)
  })

  test('the provider reports an error (the person declined)', async () => {
    const b = browser(app.app)
    const start = await b.get('/api/v1/auth/oidc/start')
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!
    const r = await callback(b, new URL(`${REDIRECT_URI}?error=access_denied&state=${state}`))
    expect(r.location).toBe('/login?error=sso')
    expect(app.logs.at(-1)).toMatch(/access_denied/)
  })
})

describe('single sign-on: start and next', () => {
  test('start: 302 to the provider with code flow, PKCE S256, state and nonce; the sign-in kept 10 minutes', async () => {
    const b = browser(app.app)
    const res = await b.get('/api/v1/auth/oidc/start?next=%2Fhomeworks')
    expect(res.status).toBe(302)
    const to = new URL(res.headers.get('location')!)
    expect(to.origin).toBe(op.issuer)
    const p = to.searchParams
    expect(p.get('response_type')).toBe('code')
    expect(p.get('client_id')).toBe('cls-web')
    expect(p.get('redirect_uri')).toBe(REDIRECT_URI)
    expect(p.get('scope')).toBe('openid email profile')
    expect(p.get('code_challenge_method')).toBe('S256')
    expect(p.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(p.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(p.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const hash = new Bun.CryptoHasher('sha256').update(p.get('state')!).digest('base64url')
    const [row] = await app.deps.sql<{ next_path: string; ttl: number }[]>`
      select next_path, extract(epoch from expires_at - created_at)::int as ttl from oidc_sign_ins where state_hash = ${hash}`
    expect(row).toEqual({ next_path: '/homeworks', ttl: 600 })
    expect(res.headers.get('set-cookie')).toMatch(/cls_sso=[A-Za-z0-9_-]{43};.*HttpOnly/i)
  })

  test('next: a same-origin path is kept through the whole sign-in', async () => {
    const r = await signInAs(app.app, account({ email: `${uniq('n')}@campus.test`, email_verified: true }), '/courses/0193d0c0-0000-7000-8000-000000000000?tab=learning#unit')
    expect(r.location).toBe('/courses/0193d0c0-0000-7000-8000-000000000000?tab=learning#unit')
  })

  test('next: an open redirect lands on /courses', async () => {
    const r = await signInAs(app.app, account({ email: `${uniq('n')}@campus.test`, email_verified: true }), '//evil.example/courses')
    expect(r.location).toBe('/courses')
  })

  const hostile = [
    '//evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    'https://evil.example/x',
    'http:evil.example',
    'javascript:alert(1)',
    'evil.example',
    '',
    '/%0d%0aSet-Cookie:x=1'.replace('%0d%0a', '\r\n'),
    '///evil.example',
  ]
  test.each(hostile.map((h) => [JSON.stringify(h), h]))('next=%s is refused (→ /courses)', async (_name, next) => {
    const b = browser(app.app)
    const res = await b.get(`/api/v1/auth/oidc/start?next=${encodeURIComponent(next)}`)
    const state = new URL(res.headers.get('location')!).searchParams.get('state')!
    const hash = new Bun.CryptoHasher('sha256').update(state).digest('base64url')
    const [row] = await app.deps.sql<{ next_path: string }[]>`select next_path from oidc_sign_ins where state_hash = ${hash}`
    expect(row!.next_path).toBe('/courses')
  })

  test('providers (anonymous): password and the single sign-on button', async () => {
    const r = await app.api.get('/auth/providers')
    expect(r.status).toBe(200)
    expect(r.code).toBe(0)
    expect(r.data).toEqual({ password: true, oidc: { displayName: 'Campus account', startUrl: '/api/v1/auth/oidc/start' } })
  })
})
