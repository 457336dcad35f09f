import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { sendDueEmails, smtpTransport, type Transport } from '../../src/modules/email/sender.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse, insertPoint } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, type Account, type TestContext } from '../support/harness.ts'
import { DAY, HOUR, createHomework, plus } from '../support/reminders.ts'
import { TestSmtp } from '../email/smtp.ts'
import { mailsTo, tokenIn } from './helpers.ts'

/*
 * The phishing finding of issue 21: a throwaway account registered with someone else's address,
 * joined to a course whose titles the attacker wrote, got reminder and announcement mails. No
 * notification mail ever goes to an unverified address (checked where outbox rows are written
 * and again when they are sent), against a real SMTP server; the verification mail itself
 * carries none of that text.
 */
const T0 = new Date('2031-06-01T08:00:00.000Z')
const clock = new ManualClock(T0)
const PUBLIC_URL = 'https://learn.example.test'
const PHISH = 'Urgent: password reset required https://evil.example/reset'
let ctx: TestContext
let sql: Sql
let smtp: TestSmtp
let transport: Transport
let teacher: Account, victim: Account, verified: Account
let courseId: string, pointId: string

const send = (now = clock.now()) => sendDueEmails(sql, transport, { publicUrl: PUBLIC_URL, mailFrom: 'Course Learning <no-reply@learn.example.test>', secret: ctx.deps.config.jwtSecret }, now)

beforeAll(async () => {
  smtp = await TestSmtp.start()
  transport = smtpTransport(smtp.url)
  ctx = await testApp({ clock, config: { smtpUrl: smtp.url, publicUrl: PUBLIC_URL } })
  sql = ctx.deps.sql
  ;[teacher, victim, verified] = await Promise.all([signUp(ctx.api, 'TEACHER'), signUp(ctx.api), signUp(ctx.api)])
  await send()
  // `verified` uses the link from its mail.
  const v = await ctx.api.post('/auth/email/verify', { json: { token: tokenIn(mailsTo(smtp, verified.email).at(-1)!, '/verify-email') } })
  expect(v.status).toBe(200)
  courseId = (await insertCourse(sql, teacher.id, PHISH)).id
  pointId = (await insertPoint(sql, courseId)).pointId
  for (const s of [victim, verified]) {
    await addStudent(sql, courseId, s.id)
    expect((await ctx.api.put('/me/notification-preferences', { token: s.token, json: { email: { ANNOUNCEMENT: true } } })).status).toBe(200)
  }
}, 30_000)

afterAll(async () => {
  await smtp?.stop()
})

const notificationRows = (userId: string) => sql`select id from email_outbox where user_id = ${userId} and kind = 'NOTIFICATION'`

describe('no notification e-mail to an unverified address', () => {
  test('reminders and announcements: the verified student gets the mails, the unverified address none; its only mail is the verification', async () => {
    await createHomework(sql, courseId, pointId, { title: PHISH, startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    clock.set(plus(T0, HOUR))
    await dispatch(sql, clock.now(), { channels: ctx.deps.channels })
    const a = await ctx.api.post(`/courses/${courseId}/announcements`, { token: teacher.token, json: { title: PHISH, content: `<p>${PHISH}</p>` } })
    expect(a.status).toBe(201)
    // In-app notifications still reach the unverified account.
    const inbox = await ctx.api.get('/notifications', { token: victim.token })
    expect(inbox.data.total).toBeGreaterThanOrEqual(2)
    expect(await notificationRows(victim.id)).toHaveLength(0)
    expect((await notificationRows(verified.id)).length).toBeGreaterThanOrEqual(2)
    await send()
    const toVerified = mailsTo(smtp, verified.email).filter((m) => m.raw.includes('evil.example'))
    expect(toVerified.length).toBeGreaterThanOrEqual(2)
    const toVictim = mailsTo(smtp, victim.email)
    expect(toVictim).toHaveLength(1)
    expect(toVictim[0]!.header('Subject')).toBe('[Course Learning] Confirm your e-mail address')
    expect(toVictim[0]!.raw).not.toContain('evil.example')
  }, 30_000)

  test('a row queued while the address was verified is not sent once it is not (checked again at sending)', async () => {
    const hw = await createHomework(sql, courseId, pointId, { title: 'Second', startAt: plus(clock.now(), HOUR), dueAt: plus(clock.now(), 3 * DAY) }, clock.now())
    await dispatch(sql, plus(clock.now(), HOUR), { channels: ctx.deps.channels })
    const rows = await notificationRows(verified.id)
    const before = mailsTo(smtp, verified.email).length
    await sql`update users set email_verified = false where id = ${verified.id}`
    const r = await send(plus(clock.now(), HOUR))
    expect(r.sent).toBe(0)
    expect(mailsTo(smtp, verified.email)).toHaveLength(before)
    const [row] = await sql<{ failed_at: Date | null; last_error: string }[]>`
      select o.failed_at, o.last_error from email_outbox o join notifications n on n.id = o.notification_id
       where o.user_id = ${verified.id} and n.params->>'taskId' = ${hw.id}`
    expect(row!.failed_at).not.toBeNull()
    expect(row!.last_error).toContain('not verified')
    expect(rows.length).toBeGreaterThan(0)
    await sql`update users set email_verified = true where id = ${verified.id}`
  }, 30_000)
})
