import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { tokenIn } from '../accounts/helpers.ts'
import { TestSmtp } from './smtp.ts'

/*
 * Two real service processes on one PostgreSQL database, both running the e-mail sender every
 * second against one real SMTP server: every notification is mailed exactly once.
 */
describe.skipIf(!process.env.DATABASE_URL)('e-mail from two instances', () => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>
  let smtp: TestSmtp
  let a: ServiceProcess, b: ServiceProcess

  beforeAll(async () => {
    smtp = await TestSmtp.start()
    db = await scratchDatabase('cls_mail')
    const env = {
      DATABASE_URL: db.url,
      JWT_SECRET: 'two-instances-secret-0123456789abcdef',
      REMINDER_SCAN_CRON: 'off',
      SMTP_URL: smtp.url,
      PUBLIC_URL: 'https://learn.example.test',
      MAIL_SEND_CRON: '* * * * * *',
    }
    a = await startService({ env })
    b = await startService({ env })
  }, 90_000)

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await db?.drop()
    await smtp?.stop()
  })

  const call = async (svc: ServiceProcess, method: string, path: string, token?: string, json?: unknown) => {
    const res = await fetch(`${svc.url}/api/v1${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json ? { 'content-type': 'application/json' } : {}) },
      body: json ? JSON.stringify(json) : undefined,
    })
    return { status: res.status, body: (await res.json()) as any }
  }
  const account = async (svc: ServiceProcess, role: 'TEACHER' | 'STUDENT') => {
    const username = `${role[0]}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`
    const password = 'correct horse battery'
    const email = `${username}@example.test`
    expect((await call(svc, 'POST', '/auth/register', undefined, { username, email, password, role })).status).toBe(201)
    // Notification mails go to verified addresses only: use the link of the verification mail.
    const deadline = Date.now() + 15_000
    let mail = smtp.received.find((m) => m.to.includes(email))
    while (!mail && Date.now() < deadline) {
      await Bun.sleep(100)
      mail = smtp.received.find((m) => m.to.includes(email))
    }
    expect((await call(svc, 'POST', '/auth/email/verify', undefined, { token: tokenIn(mail!, '/verify-email') })).status).toBe(200)
    return (await call(svc, 'POST', '/auth/login', undefined, { identifier: username, password })).body.data.accessToken as string
  }

  test('30 notifications written through both instances → 30 mails, one per notification', async () => {
    const teacher = await account(a, 'TEACHER')
    const students = await Promise.all([account(a, 'STUDENT'), account(b, 'STUDENT'), account(a, 'STUDENT')])
    const course = await call(a, 'POST', '/courses', teacher, { title: 'Operating Systems', description: 'x' })
    for (const s of students) {
      expect((await call(b, 'POST', '/courses/join', s, { inviteCode: course.body.data.inviteCode })).status).toBe(200)
      expect((await call(a, 'PUT', '/me/notification-preferences', s, { email: { ANNOUNCEMENT: true } })).status).toBe(200)
    }
    for (let i = 0; i < 10; i++) {
      const r = await call(i % 2 ? a : b, 'POST', `/courses/${course.body.data.id}/announcements`, teacher, { title: `Notice ${i}`, content: '<p>x</p>' })
      expect(r.status).toBe(201)
    }
    const notices = () => smtp.received.filter((m) => m.header('Subject')?.startsWith('[Operating Systems]'))
    const deadline = Date.now() + 15_000
    while (notices().length < 30 && Date.now() < deadline) await Bun.sleep(200)
    // Both senders keep running for a while: nothing is sent twice.
    await Bun.sleep(2500)
    const ids = notices().map((m) => m.header('Message-ID'))
    expect(ids).toHaveLength(30)
    expect(new Set(ids).size).toBe(30)
  }, 40_000)
})
