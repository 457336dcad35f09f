import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { TestSmtp } from '../email/smtp.ts'
import { scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { waitFor } from '../support/wait.ts'
import { mailsTo, tokenIn } from './helpers.ts'

/*
 * Sessions live in PostgreSQL and every request checks its row: a password reset or change
 * through one service process ends the sessions at once on the other, cookie and bearer alike.
 * The mails go out through the real outbox sender of the processes to a real SMTP server.
 */
describe.skipIf(!process.env.DATABASE_URL)('account sessions across two service processes', () => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>
  let smtp: TestSmtp
  let a: ServiceProcess, b: ServiceProcess

  beforeAll(async () => {
    smtp = await TestSmtp.start()
    db = await scratchDatabase('cls_acct')
    const env = smtp.senderEnv(db.url)
    a = await startService({ env })
    b = await startService({ env })
  }, 90_000)

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await db?.drop()
    await smtp?.stop()
  })

  const call = (svc: ServiceProcess, method: string, path: string, o: { token?: string; cookie?: string; json?: unknown } = {}) => svc.api.call(method, path, o)
  const login = async (svc: ServiceProcess, identifier: string, password: string) => {
    const r = await call(svc, 'POST', '/auth/login', { json: { identifier, password } })
    expect(r.status).toBe(200)
    return { token: r.data.accessToken as string, cookie: r.headers.get('set-cookie')!.split(';')[0]! }
  }
  const mailWith = (address: string, subject: string, count = 1) =>
    waitFor(() => mailsTo(smtp, address).filter((m) => m.header('Subject')?.includes(subject))[count - 1], {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: `"${subject}" mail to ${address}`,
    })
  const alive = async (svc: ServiceProcess, s: { token?: string; cookie?: string }) => (await call(svc, 'GET', '/auth/me', s)).status

  test('change password on B ends the other sessions on A at once; a reset (link from the real mail) on A ends every session on both', async () => {
    const username = `x${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
    const email = `${username}@example.test`
    const password = 'correct horse battery'
    expect((await call(a, 'POST', '/auth/register', { json: { username, email, password } })).status).toBe(201)
    // The verification mail, sent by one of the two senders, verifies the address end to end.
    const verify = await mailWith(email, 'Confirm your e-mail address')
    expect((await call(b, 'POST', '/auth/email/verify', { json: { token: tokenIn(verify, '/verify-email') } })).data.emailVerified).toBe(true)

    const onA = await login(a, username, password)
    const onB = await login(b, username, password)
    for (const svc of [a, b]) for (const s of [{ token: onA.token }, { cookie: onA.cookie }, { token: onB.token }]) expect(await alive(svc, s)).toBe(200)

    const changed = await call(b, 'POST', '/auth/password/change', { token: onB.token, json: { currentPassword: password, newPassword: 'second password' } })
    expect(changed.status).toBe(200)
    for (const svc of [a, b]) {
      expect(await alive(svc, { token: onA.token })).toBe(401)
      expect(await alive(svc, { cookie: onA.cookie })).toBe(401)
      expect(await alive(svc, { token: onB.token })).toBe(200)
    }
    const sessions = await call(a, 'GET', '/auth/sessions', { token: onB.token })
    expect(sessions.data).toHaveLength(1)
    expect(sessions.data[0].current).toBe(true)

    const again = await login(a, username, 'second password')
    expect((await call(a, 'POST', '/auth/password/forgot', { json: { identifier: email } })).status).toBe(202)
    const reset = await mailWith(email, 'Reset your password')
    const r = await call(a, 'POST', '/auth/password/reset', { json: { token: tokenIn(reset, '/reset-password'), newPassword: 'third password' } })
    expect(r.status).toBe(200)
    for (const svc of [a, b]) for (const s of [{ token: onB.token }, { token: again.token }, { cookie: again.cookie }]) expect(await alive(svc, s)).toBe(401)
    expect((await call(b, 'POST', '/auth/login', { json: { identifier: username, password: 'second password' } })).status).toBe(401)
    await login(b, username, 'third password')
  }, 60_000)
})
