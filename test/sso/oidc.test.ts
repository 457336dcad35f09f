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
