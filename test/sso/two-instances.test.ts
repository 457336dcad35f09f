import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { CALLBACK_PATH } from '../../src/modules/sso/model.ts'
import { freePort, scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { CLIENT_ID, CLIENT_SECRET, CookieJar, loginAtProvider, startProvider, type TestProvider } from '../support/oidc-provider.ts'

/**
 * The sign-in is kept in PostgreSQL, not in the process that started it: the browser starts on
 * one real service process and the provider sends it back to another (as a load balancer may).
 */
describe.skipIf(!process.env.DATABASE_URL)('single sign-on across two service processes', () => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>
  let op: TestProvider
  let a: ServiceProcess
  let b: ServiceProcess

  beforeAll(async () => {
    db = await scratchDatabase('cls_sso2')
    const portB = await freePort()
    const publicUrl = `http://127.0.0.1:${portB}`
    op = await startProvider([`${publicUrl}${CALLBACK_PATH}`])
    const env = {
      DATABASE_URL: db.url,
      JWT_SECRET: 'y'.repeat(40),
      REMINDER_SCAN_CRON: 'off',
      PUBLIC_URL: publicUrl,
      OIDC_ISSUER: op.issuer,
      OIDC_CLIENT_ID: CLIENT_ID,
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_DISPLAY_NAME: 'Campus account',
      OIDC_TEACHER_RULE: 'groups=teachers',
    }
    a = await startService({ env })
    b = await startService({ env, port: portB })
  }, 120_000)

  afterAll(async () => {
    await a?.stop()
    await b?.stop()
    await op?.stop()
    await db?.drop()
  })

  test('started on the first process, the callback on the second logs in; the session works on both', async () => {
    op.accounts.set('li.wei', { email: 'li.wei@campus.test', email_verified: true, preferred_username: 'li.wei', name: 'Li Wei', groups: ['teachers'] })
    const jar = new CookieJar()
    const start = await fetch(`${a.url}/api/v1/auth/oidc/start?next=%2Fcourses`, { redirect: 'manual' })
    jar.store(start)
    expect(start.status).toBe(302)
    const back = await loginAtProvider(start.headers.get('location')!, 'li.wei', `${b.url}${CALLBACK_PATH}`)
    expect(back.origin).toBe(b.url)

    const done = await fetch(back, { redirect: 'manual', headers: { cookie: jar.header() } })
    jar.store(done)
    expect(done.status).toBe(302)
    expect(done.headers.get('location')).toBe('/courses')
    expect(jar.get('cls_session')).toBeTruthy()

    for (const svc of [a, b]) {
      const me = await fetch(`${svc.url}/api/v1/auth/me`, { headers: { cookie: jar.header() } })
      expect(me.status).toBe(200)
      expect((await me.json()).data).toMatchObject({ username: 'li.wei', role: 'TEACHER', displayName: 'Li Wei' })
    }
    // Used once, on whichever process: the same callback again fails on the first one too.
    jar.delete('cls_session')
    const again = await fetch(`${a.url}${back.pathname}${back.search}`, { redirect: 'manual', headers: { cookie: jar.header() } })
    expect(again.headers.get('location')).toBe('/login?error=sso')
  })
})
