import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sendDueEmails, smtpTransport, type Transport } from '../../src/modules/email/sender.ts'
import { freshIp, mailsTo, tokenIn } from '../accounts/helpers.ts'
import { createCourse } from '../courses/world.ts'
import { TestSmtp } from '../email/smtp.ts'
import { systemClock } from '../../src/lib/clock.ts'
import { signUp, uniq } from '../support/harness.ts'
import { startProvider, type TestProvider } from '../support/oidc-provider.ts'
import { browser, callback, ORIGIN, REDIRECT_URI, signInAs, ssoApp, toCallback, type SsoApp } from './flow.ts'

/*
 * Issue 48: no way into an account through single sign-on that its owner did not open. The real
 * OpenID provider of test/support and a real SMTP server (the owner proves an address by mail).
 */

// The system clock: the provider's ID tokens carry real times (and live a minute).
const clock = systemClock
const PASSWORD = 'correct horse battery'
let op: TestProvider
let app: SsoApp
let smtp: TestSmtp
let transport: Transport

beforeAll(async () => {
  op = await startProvider([REDIRECT_URI])
  smtp = await TestSmtp.start()
  transport = smtpTransport(smtp.url)
  app = await ssoApp(op, { clock, config: { smtpUrl: smtp.url, trustProxy: true } })
}, 30_000)

afterAll(async () => {
  transport?.close?.()
  await smtp?.stop()
  await op?.stop()
})

const send = async () => {
  await app.deps.background.settled()
  return sendDueEmails(app.deps.sql, transport, { publicUrl: ORIGIN, mailFrom: 'Course Learning <no-reply@learn.example.test>', secret: app.deps.config.jwtSecret }, clock.now())
}
const lastMailTo = async (address: string) => {
  await send()
  const mails = mailsTo(smtp, address)
  expect(mails.length).toBeGreaterThan(0)
  return mails[mails.length - 1]!
}

const me = (cookie: string | undefined) => app.api.get('/auth/me', { cookie: `cls_session=${cookie}` })
const identities = async (userId: string) =>
  (await app.deps.sql<{ subject: string; linked_by: string }[]>`select subject, linked_by from user_identities where user_id = ${userId} order by created_at`).map((r) => ({ ...r }))

/** A provider account with these claims; its login name is its `sub`. */
function account(claims: Record<string, unknown>) {
  const login = uniq('op')
  op.accounts.set(login, claims)
  return login
}

describe('an unverified local account is never handed to the person signing in', () => {
  test('pre-hijack: registered with the owner’s address and never verified → /login?error=sso-unverified-local; once the owner proves the address, the squatter is out and single sign-on links', async () => {
    const headers = { 'x-forwarded-for': freshIp() }
    const username = uniq('squat')
    const email = `${uniq('victim')}@campus.test`
    const reg = await app.api.post('/auth/register', { json: { username, email, password: PASSWORD, role: 'TEACHER' }, headers })
    expect([reg.status, reg.data.emailVerified]).toEqual([201, false])
    const squatter = (await app.api.post('/auth/login', { json: { identifier: username, password: PASSWORD }, headers })).data.accessToken as string

    // The owner signs in through the provider, which vouches for the address.
    const login = account({ email, email_verified: true, preferred_username: 'victim' })
    const refused = await signInAs(app.app, login)
    expect([refused.status, refused.location, refused.session]).toEqual([302, '/login?error=sso-unverified-local', undefined])
    expect(await identities(reg.data.id)).toEqual([])
    expect(await app.deps.sql`select 1 from users where lower(email) = lower(${email})`).toHaveLength(1)
    expect(app.logs.some((l) => l.includes('single sign-on failed') && l.includes('unverified local account'))).toBe(true)
    // The login page knows this error (both languages: test/web catalogue checks).
    const page = await app.app.handle(new Request(`${ORIGIN}/login?error=sso-unverified-local`))
    expect(page.status).toBe(200)

    // The way the page points to: "forgot password" mails the owner, and the reset shuts the squatter out.
    expect((await app.api.post('/auth/password/forgot', { json: { identifier: email }, headers })).status).toBe(202)
    const reset = await app.api.post('/auth/password/reset', { json: { token: tokenIn(await lastMailTo(email), '/reset-password'), newPassword: 'the owner’s own secret' } })
    expect([reset.status, reset.data.emailVerified]).toEqual([200, true])
    expect((await app.api.get('/auth/me', { token: squatter })).status).toBe(401)
    expect((await app.api.post('/auth/login', { json: { identifier: username, password: PASSWORD }, headers })).status).toBe(401)

    const linked = await signInAs(app.app, login)
    expect(linked.location).toBe('/courses')
    expect((await me(linked.session)).data.id).toBe(reg.data.id)
    expect(await identities(reg.data.id)).toEqual([{ subject: login, linked_by: 'email' }])
  })

  test('an account verified by its own link is linked as before (the provider’s and the account’s address both verified)', async () => {
    const local = await signUp(app.api)
    await app.deps.sql`update users set email_verified = true where id = ${local.id}`
    const login = account({ email: local.email, email_verified: true })
    const r = await signInAs(app.app, login)
    expect(r.location).toBe('/courses')
    expect((await me(r.session)).data.id).toBe(local.id)
  })
})

describe('a provider account linked through an address holds only while that address does', () => {
  test('a recovery (password change) unlinks it, the next sign-in links again; an address change unlinks it for good', async () => {
    const local = await signUp(app.api)
    await app.deps.sql`update users set email_verified = true where id = ${local.id}`
    const login = account({ email: local.email, email_verified: true })
    expect((await signInAs(app.app, login)).location).toBe('/courses')
    expect(await identities(local.id)).toEqual([{ subject: login, linked_by: 'email' }])

    const changed = await app.api.post('/auth/password/change', { token: local.token, json: { currentPassword: local.password, newPassword: 'a new secret here' } })
    expect(changed.status).toBe(200)
    expect(await identities(local.id)).toEqual([])
    const back = await signInAs(app.app, login)
    expect((await me(back.session)).data.id).toBe(local.id)

    // The account moves to another address: whoever controls the old one no longer signs in to it.
    const other = `${uniq('moved')}@campus.test`
    expect((await app.api.post('/auth/email/change', { token: local.token, json: { newEmail: other, currentPassword: 'a new secret here' }, headers: { 'x-forwarded-for': freshIp() } })).status).toBe(202)
    expect((await app.api.post('/auth/email/verify', { json: { token: tokenIn(await lastMailTo(other), '/verify-email') } })).status).toBe(200)
    expect(await identities(local.id)).toEqual([])
    const elsewhere = await signInAs(app.app, login)
    expect(elsewhere.location).toBe('/courses')
    expect((await me(elsewhere.session)).data.id).not.toBe(local.id)
  })

  test('an identity that made its account stays through a recovery', async () => {
    const login = account({ email: `${uniq('made')}@campus.test`, email_verified: true })
    const first = await signInAs(app.app, login)
    const id = (await me(first.session)).data.id as string
    expect(await identities(id)).toEqual([{ subject: login, linked_by: 'created' }])
    const email = (await me(first.session)).data.email as string
    expect((await app.api.post('/auth/password/forgot', { json: { identifier: email }, headers: { 'x-forwarded-for': freshIp() } })).status).toBe(202)
    const reset = await app.api.post('/auth/password/reset', { json: { token: tokenIn(await lastMailTo(email), '/reset-password'), newPassword: 'now with a password' } })
    expect(reset.status).toBe(200)
    expect(await identities(id)).toEqual([{ subject: login, linked_by: 'created' }])
    expect((await me((await signInAs(app.app, login)).session)).data.id).toBe(id)
  })
})

describe('an address the provider did not vouch for', () => {
  test('an account made by single sign-on with it: whoever proves the address with a reset link has the account alone; the provider account no longer signs in', async () => {
    const email = `${uniq('claimed')}@campus.test`
    const login = account({ email, email_verified: false })
    const made = await signInAs(app.app, login)
    expect(made.location).toBe('/courses')
    const id = (await me(made.session)).data.id as string
    expect((await me(made.session)).data.emailVerified).toBe(false)

    expect((await app.api.post('/auth/password/forgot', { json: { identifier: email }, headers: { 'x-forwarded-for': freshIp() } })).status).toBe(202)
    const reset = await app.api.post('/auth/password/reset', { json: { token: tokenIn(await lastMailTo(email), '/reset-password'), newPassword: 'the mailbox owner' } })
    expect([reset.status, reset.data.id, reset.data.emailVerified]).toEqual([200, id, true])
    expect((await me(made.session)).status).toBe(401)
    expect(await identities(id)).toEqual([])
    const again = await signInAs(app.app, login)
    expect([again.location, again.session]).toEqual(['/login?error=sso', undefined])
  })
})

describe('the callback belongs to the browser that started the sign-in', () => {
  test('browser B, holding its own sign-in cookie, follows browser A’s callback URL → refused, no session for either', async () => {
    const login = account({ email: `${uniq('csrf')}@campus.test`, email_verified: true })
    const a = browser(app.app)
    const urlOfA = await toCallback(a, login)
    const b = browser(app.app)
    // B has a sign-in cookie of its own (it started a sign-in too).
    const startB = await b.get('/api/v1/auth/oidc/start')
    expect(startB.status).toBe(302)
    expect(b.jar.get('cls_sso')).toBeTruthy()
    expect(b.jar.get('cls_sso')).not.toBe(a.jar.get('cls_sso'))
    const landing = await callback(b, urlOfA)
    expect([landing.status, landing.location, landing.session]).toEqual([302, '/login?error=sso', undefined])
    expect(app.logs.some((l) => l.includes('another browser'))).toBe(true)
    expect(await app.deps.sql`select 1 from users u join user_identities i on i.user_id = u.id where i.subject = ${login}`).toHaveLength(0)
  })
})

describe('roster invitations and single sign-on', () => {
  test('an invited address that signs in by single sign-on (verified by the provider) is enrolled at once', async () => {
    const teacher = await signUp(app.api, 'TEACHER')
    await app.deps.sql`update users set email_verified = true where id = ${teacher.id}`
    const course = await createCourse(app.api, teacher)
    const email = `${uniq('invited')}@campus.test`
    const imported = await app.api.post(`/courses/${course.id}/roster`, { token: teacher.token, json: { emails: [email] } })
    expect(imported.data).toMatchObject({ enrolled: 0, invited: 1 })
    const r = await signInAs(app.app, account({ email, email_verified: true }))
    expect(r.location).toBe('/courses')
    const seen = await app.api.get(`/courses/${course.id}`, { cookie: `cls_session=${r.session}` })
    expect([seen.status, seen.data?.myRole]).toEqual([200, 'STUDENT'])
    expect((await app.api.get(`/courses/${course.id}/roster/invitations`, { token: teacher.token })).data.total).toBe(0)
  })
})
