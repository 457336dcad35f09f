import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { freePort, scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { tokenIn } from '../accounts/helpers.ts'
import { afterJobRuns, waitFor } from '../support/wait.ts'
import { TestSmtp } from './smtp.ts'

/*
 * Two real service processes on one PostgreSQL database, both running the e-mail sender every
 * second against one real SMTP server: every notification is mailed exactly once.
 */
describe.skipIf(!process.env.DATABASE_URL)('e-mail from two instances', () => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>
  let smtp: TestSmtp
  let a: ServiceProcess, b: ServiceProcess
  const metricsPorts: number[] = []

  beforeAll(async () => {
    smtp = await TestSmtp.start()
    db = await scratchDatabase('cls_mail')
    const env = smtp.senderEnv(db.url)
    metricsPorts.push(await freePort(), await freePort())
    a = await startService({ env: { ...env, METRICS_PORT: String(metricsPorts[0]) } })
    b = await startService({ env: { ...env, METRICS_PORT: String(metricsPorts[1]) } })
  }, 90_000)

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await db?.drop()
    await smtp?.stop()
  })

  const account = async (svc: ServiceProcess, role: 'TEACHER' | 'STUDENT') => {
    const username = `${role[0]}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`
    const password = 'correct horse battery'
    const email = `${username}@example.test`
    expect((await svc.api.post('/auth/register', { json: { username, email, password, role } })).status).toBe(201)
    // Notification mails go to verified addresses only: use the link of the verification mail.
    const mail = await waitFor(() => smtp.received.find((m) => m.to.includes(email)), { timeoutMs: 15_000, intervalMs: 100, what: `the verification mail to ${email}` })
    expect((await svc.api.post('/auth/email/verify', { json: { token: tokenIn(mail, '/verify-email') } })).status).toBe(200)
    return (await svc.api.post('/auth/login', { json: { identifier: username, password } })).data.accessToken as string
  }

  test('30 notifications written through both instances → 30 mails, one per notification', async () => {
    const teacher = await account(a, 'TEACHER')
    const students = await Promise.all([account(a, 'STUDENT'), account(b, 'STUDENT'), account(a, 'STUDENT')])
    const course = await a.api.post('/courses', { token: teacher, json: { title: 'Operating Systems', description: 'x' } })
    for (const s of students) {
      expect((await b.api.post('/courses/join', { token: s, json: { inviteCode: course.data.inviteCode } })).status).toBe(200)
      expect((await a.api.put('/me/notification-preferences', { token: s, json: { email: { ANNOUNCEMENT: true } } })).status).toBe(200)
    }
    for (let i = 0; i < 10; i++) {
      const r = await (i % 2 ? a : b).api.post(`/courses/${course.data.id}/announcements`, { token: teacher, json: { title: `Notice ${i}`, content: '<p>x</p>' } })
      expect(r.status).toBe(201)
    }
    const notices = () => smtp.received.filter((m) => m.header('Subject')?.startsWith('[Operating Systems]'))
    await waitFor(() => notices().length >= 30, { timeoutMs: 15_000, intervalMs: 200 }).catch(() => {})
    // Both senders run twice more, whole runs (job_runs_total), and nothing is sent twice.
    await afterJobRuns(metricsPorts, 'email-sender', 2)
    const ids = notices().map((m) => m.header('Message-ID'))
    expect(ids).toHaveLength(30)
    expect(new Set(ids).size).toBe(30)
  }, 40_000)
})
