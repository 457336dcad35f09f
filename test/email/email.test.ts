import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { sendDueEmails, smtpTransport, type Transport } from '../../src/modules/email/sender.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse, insertPoint } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, type Account, type TestContext } from '../support/harness.ts'
import { DAY, HOUR, createHomework, plus } from '../support/reminders.ts'
import { TestSmtp, decodeQp } from './smtp.ts'

/*
 * E-mail (issue 12.3) against a real SMTP server: preferences, the outbox written with the
 * notification, content and headers, one-click unsubscribe, an outage (delivered later, nothing
 * lost) and a permanent refusal (no retry storm). Two instances: email-instances.test.ts.
 */

const T0 = new Date('2031-03-01T08:00:00.000Z')
const clock = new ManualClock(T0)
const PUBLIC_URL = 'https://learn.example.test'
let ctx: TestContext
let sql: Sql
let smtp: TestSmtp
let transport: Transport
let teacher: Account, student: Account, zh: Account
let courseId: string, pointId: string
const settings = () => ({ publicUrl: PUBLIC_URL, mailFrom: 'Course Learning <no-reply@learn.example.test>', secret: ctx.deps.config.jwtSecret })
const send = (now = clock.now()) => sendDueEmails(sql, transport, settings(), now)

beforeAll(async () => {
  smtp = await TestSmtp.start()
  transport = smtpTransport(smtp.url)
  ctx = await testApp({ clock, config: { smtpUrl: smtp.url, publicUrl: PUBLIC_URL } })
  sql = ctx.deps.sql
  ;[teacher, student, zh] = await Promise.all([signUp(ctx.api, 'TEACHER'), signUp(ctx.api), signUp(ctx.api)])
  await verified(teacher, student, zh)
  await sql`update users set locale = 'zh-CN' where id = ${zh.id}`
  courseId = (await insertCourse(sql, teacher.id, 'Compilers')).id
  await addStudent(sql, courseId, student.id)
  await addStudent(sql, courseId, zh.id)
  pointId = (await insertPoint(sql, courseId)).pointId
}, 30_000)

/**
 * As if these accounts had used their verification links (test/accounts covers the links):
 * notification mails go to verified addresses only, and their verification mails are done with.
 */
async function verified(...accounts: Account[]) {
  const ids = accounts.map((a) => a.id)
  await sql`update users set email_verified = true where id in ${sql(ids)}`
  await sql`update email_outbox set failed_at = now(), secret = null where user_id in ${sql(ids)} and kind <> 'NOTIFICATION' and sent_at is null`
  return accounts[0]!
}

afterAll(async () => {
  await smtp?.stop()
})

const outbox = (userId: string) =>
  sql<{ notification_id: string; attempts: number; sent_at: Date | null; failed_at: Date | null; next_attempt_at: Date }[]>`
    select notification_id, attempts, sent_at, failed_at, next_attempt_at from email_outbox where user_id = ${userId} and kind = 'NOTIFICATION' order by created_at, notification_id`
const mailsTo = (a: Account) => smtp.received.filter((m) => m.to.includes(a.email))

describe('GET/PUT /me/notification-preferences', () => {
  test('defaults: reminders and gradings on, announcements off', async () => {
    const r = await ctx.api.get('/me/notification-preferences', { token: student.token })
    expect(r.status).toBe(200)
    expect(r.data).toEqual({ email: { HOMEWORK_REMINDER: true, SUBMISSION_GRADED: true, ANNOUNCEMENT: false, SUBMISSION_RECEIVED: false, COMMENT_REPLY: false, PRIVATE_COMMENT: true }, handInDigest: true })
  }, 30_000)

  test('PUT any subset → the whole object; unknown keys → 400; no login → 401', async () => {
    const u = await verified(await signUp(ctx.api))
    const r = await ctx.api.put('/me/notification-preferences', { token: u.token, json: { email: { ANNOUNCEMENT: true } } })
    expect(r.status).toBe(200)
    expect(r.data).toEqual({ email: { HOMEWORK_REMINDER: true, SUBMISSION_GRADED: true, ANNOUNCEMENT: true, SUBMISSION_RECEIVED: false, COMMENT_REPLY: false, PRIVATE_COMMENT: true }, handInDigest: true })
    const r2 = await ctx.api.put('/me/notification-preferences', { token: u.token, json: { email: { HOMEWORK_REMINDER: false } } })
    expect(r2.data).toEqual({ email: { HOMEWORK_REMINDER: false, SUBMISSION_GRADED: true, ANNOUNCEMENT: true, SUBMISSION_RECEIVED: false, COMMENT_REPLY: false, PRIVATE_COMMENT: true }, handInDigest: true })
    for (const json of [{ email: { SMS: true } }, { push: {} }, { email: { ANNOUNCEMENT: 'yes' } }]) {
      const bad = await ctx.api.put('/me/notification-preferences', { token: u.token, json })
      expect(bad.status).toBe(400)
      expect(bad.code).toBe(40001)
    }
    expect((await ctx.api.get('/me/notification-preferences', { token: u.token })).data.email.HOMEWORK_REMINDER).toBe(false)
    expect((await ctx.api.get('/me/notification-preferences')).status).toBe(401)
  })
})

describe('the mail', () => {
  // Other test files share the database (and may leave jobs writing notifications): the
  // assertions pick this test's mails by Message-ID and subject, never by totals.
  const byMessageId = (id: string) => smtp.received.filter((m) => m.header('Message-ID') === `<${id}@learn.example.test>`)
  const startOf = async (taskId: string, userId: string) => {
    const [row] = await sql<{ notification_id: string; attempts: number; sent_at: Date | null }[]>`
      select o.notification_id, o.attempts, o.sent_at
        from email_outbox o join notifications n on n.id = o.notification_id
       where o.user_id = ${userId} and n.params->>'taskId' = ${taskId} and n.params->>'trigger' = 'START'`
    return row
  }

  test('a reminder → one outbox row in its transaction → one mail with subject, parts, link, Message-ID and one-click unsubscribe', async () => {
    const hw = await createHomework(sql, courseId, pointId, { title: 'Parser', startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    clock.set(plus(T0, HOUR))
    await dispatch(sql, clock.now(), { channels: ctx.deps.channels })
    const row = await startOf(hw.id, student.id)
    expect(row).toMatchObject({ attempts: 0, sent_at: null })
    expect((await send()).sent).toBeGreaterThanOrEqual(2)
    const mails = byMessageId(row!.notification_id)
    expect(mails).toHaveLength(1)
    const mail = mails[0]!
    expect(mail.to).toEqual([student.email])
    expect(mail.header('Subject')).toBe('[Compilers] New homework: Parser')
    expect(mail.header('From')).toContain('no-reply@learn.example.test')
    expect(mail.header('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click')
    expect(mail.header('List-Unsubscribe')).toMatch(/^<https:\/\/learn\.example\.test\/api\/v1\/email\/unsubscribe\?token=[^>]+>$/)
    expect(mail.raw).toContain('Content-Type: text/plain')
    expect(mail.raw).toContain('Content-Type: text/html')
    expect(decodeQp(mail.raw)).toContain(`${PUBLIC_URL}/courses/${courseId}?taskId=${hw.id}`)
    // The body's unsubscribe link opens the confirming web page, never the POST route (a GET
    // by a link scanner must not unsubscribe); only the header names the one-click route.
    const body = decodeQp(mail.raw.slice(mail.raw.indexOf('Content-Type: text/plain')))
    const token = mail.header('List-Unsubscribe')!.match(/token=([^>]+)>$/)![1]!
    expect(body).toContain(`: ${PUBLIC_URL}/unsubscribe?token=${token}`)
    expect(body).toContain(`href="${PUBLIC_URL}/unsubscribe?token=${token}"`)
    expect(body).not.toContain('/api/v1/email/unsubscribe')
    const after = await startOf(hw.id, student.id)
    expect(after!.attempts).toBe(1)
    expect(after!.sent_at).not.toBeNull()
    // In the recipient's language.
    const zhRow = await startOf(hw.id, zh.id)
    const zhMail = byMessageId(zhRow!.notification_id)[0]!
    expect(zhMail.header('Subject')).toMatch(/^=\?UTF-8\?/i)
    expect(decodeQp(zhMail.raw)).toContain('<html lang="zh-CN">')
    expect(decodeQp(zhMail.raw)).toContain('<h2>新作业：Parser</h2>')
    // Sending again sends nothing twice.
    await send()
    expect(byMessageId(row!.notification_id)).toHaveLength(1)
  }, 30_000)

  test('the HTML part comes from escaped, sanitised text only', async () => {
    const r = await ctx.api.put('/me/notification-preferences', { token: student.token, json: { email: { ANNOUNCEMENT: true } } })
    expect(r.status).toBe(200)
    const zhBefore = (await outbox(zh.id)).length
    const a = await ctx.api.post(`/courses/${courseId}/announcements`, { token: teacher.token, json: { title: 'Hi <img src=x onerror=alert(1)>', content: '<p>Read <b>this</b></p><script>alert(2)</script>' } })
    expect(a.status).toBe(201)
    // The zh student keeps announcements off: no outbox row for them.
    expect((await outbox(zh.id)).length).toBe(zhBefore)
    expect((await send()).sent).toBeGreaterThanOrEqual(1)
    const mail = mailsTo(student).find((m) => m.header('Subject')?.includes('Hi <img'))!
    expect(mail).toBeDefined()
    const html = decodeQp(mail.raw).split('Content-Type: text/html')[1]!
    expect(html).toContain('<h2>Hi &lt;img src=x onerror=alert(1)&gt;</h2>')
    expect(html).toContain('<p>Read this</p>')
    expect(html).not.toMatch(/<img|<script|<[^>]*onerror=/i)
  }, 30_000)

  test('one-click unsubscribe: form-encoded POST with the signed token turns that type off, no login', async () => {
    const mail = mailsTo(student).find((m) => m.header('Subject') === '[Compilers] New homework: Parser')!
    const target = mail.header('List-Unsubscribe')!.slice(1, -1).replace(PUBLIC_URL, '')
    const res = await ctx.app.handle(
      new Request(`http://localhost${target}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' }),
    )
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ code: 0, data: { type: 'HOMEWORK_REMINDER', email: false } })
    expect((await ctx.api.get('/me/notification-preferences', { token: student.token })).data.email).toEqual({ HOMEWORK_REMINDER: false, SUBMISSION_GRADED: true, ANNOUNCEMENT: true, SUBMISSION_RECEIVED: false, COMMENT_REPLY: false, PRIVATE_COMMENT: true })
    // A forged token → 400; other routes still refuse form bodies (415).
    const forged = await ctx.app.handle(
      new Request(`http://localhost/api/v1/email/unsubscribe?token=${zh.id}.HOMEWORK_REMINDER.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' }),
    )
    expect(forged.status).toBe(400)
    const other = await ctx.app.handle(
      new Request('http://localhost/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'identifier=a&password=b' }),
    )
    expect(other.status).toBe(415)
    // Now off: the next reminder is not queued for them.
    const hw = await createHomework(sql, courseId, pointId, { title: 'Lexer', startAt: plus(clock.now(), HOUR), dueAt: plus(clock.now(), 3 * DAY) }, clock.now())
    const before = (await outbox(student.id)).length
    await dispatch(sql, plus(clock.now(), HOUR), { channels: ctx.deps.channels })
    expect((await outbox(student.id)).length).toBe(before)
    expect(hw.id).toBeTruthy()
  })
})

describe('failures', () => {
  test('SMTP server down, then up: retried with backoff, delivered later, nothing lost', async () => {
    const u = await verified(await signUp(ctx.api))
    await addStudent(sql, courseId, u.id)
    const hw = await createHomework(sql, courseId, pointId, { title: 'Outage', startAt: plus(clock.now(), HOUR), dueAt: plus(clock.now(), 3 * DAY) }, clock.now())
    const at = plus(clock.now(), HOUR)
    await dispatch(sql, at, { channels: ctx.deps.channels })
    await smtp.stop()
    const down = await send(at)
    expect(down.retried).toBeGreaterThanOrEqual(1)
    expect(down.sent).toBe(0)
    const [row] = await outbox(u.id)
    expect(row).toMatchObject({ attempts: 1, sent_at: null, failed_at: null })
    expect(row!.next_attempt_at.getTime()).toBe(at.getTime() + 30_000)
    // Not due yet: nothing is tried.
    await smtp.start()
    expect(await send(plus(at, 10_000))).toEqual({ sent: 0, retried: 0, failed: 0 })
    expect(await send(plus(at, 30_000))).toMatchObject({ failed: 0 })
    expect(mailsTo(u)).toHaveLength(1)
    expect((await outbox(u.id))[0]!.sent_at).not.toBeNull()
    expect(hw.id).toBeTruthy()
  }, 30_000)

  test('a permanent refusal (550) stops at once: no retry storm', async () => {
    const u = await verified(await signUp(ctx.api))
    await addStudent(sql, courseId, u.id)
    smtp.refuse = (to) => to === u.email
    await createHomework(sql, courseId, pointId, { title: 'Refused', startAt: plus(clock.now(), HOUR), dueAt: plus(clock.now(), 3 * DAY) }, clock.now())
    const at = plus(clock.now(), HOUR)
    await dispatch(sql, at, { channels: ctx.deps.channels })
    expect((await send(at)).failed).toBe(1)
    for (let i = 1; i <= 5; i++) await send(plus(at, i * HOUR))
    expect(smtp.rcpts.filter((r) => r === u.email)).toHaveLength(1)
    expect((await outbox(u.id))[0]).toMatchObject({ attempts: 1, sent_at: null })
    expect((await outbox(u.id))[0]!.failed_at).not.toBeNull()
    smtp.refuse = null
  }, 30_000)

  test('temporary failures stop after 24 h', async () => {
    const u = await verified(await signUp(ctx.api))
    await addStudent(sql, courseId, u.id)
    await createHomework(sql, courseId, pointId, { title: 'Long outage', startAt: plus(clock.now(), HOUR), dueAt: plus(clock.now(), 3 * DAY) }, clock.now())
    const at = plus(clock.now(), HOUR)
    await dispatch(sql, at, { channels: ctx.deps.channels })
    await smtp.stop()
    let now = at
    for (let i = 0; i < 40; i++) {
      await send(now)
      const [row] = await outbox(u.id)
      if (row!.failed_at) break
      now = row!.next_attempt_at
    }
    await smtp.start()
    const [row] = await outbox(u.id)
    expect(row!.failed_at).not.toBeNull()
    expect(row!.failed_at!.getTime() - at.getTime()).toBeLessThanOrEqual(DAY)
    expect(row!.attempts).toBeLessThan(40)
  }, 30_000)
})
