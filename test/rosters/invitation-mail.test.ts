import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { freshIp, MAIL_PUBLIC_URL, mailApp, mailsTo, tokenIn } from '../accounts/helpers.ts'
import { createCourse } from '../courses/world.ts'
import { decodeQp, TestSmtp, type Received } from '../email/smtp.ts'
import { ManualClock, signUp, uniq, type Account, type TestContext } from '../support/harness.ts'

/*
 * Issue 23: a roster import mails each address it newly invites (no account yet) once, through
 * the outbox, against a real SMTP server: fixed text in the importing request's language and a
 * registration link, nothing the teacher chose. Without SMTP_URL nothing is queued (rosters.test.ts).
 */

const clock = new ManualClock('2031-06-01T08:00:00.000Z')
const PUBLIC_URL = MAIL_PUBLIC_URL
const TITLE = 'Secret Course Title https://evil.example/phish'
const TEACHER_NAME = 'Dr Evil Name'
const mail = mailApp(clock)
let ctx: TestContext
let sql: Sql
let smtp: TestSmtp
let owner: Account

beforeAll(async () => {
  ;({ ctx, sql, smtp } = mail)
  owner = await signUp(ctx.api, 'TEACHER', TEACHER_NAME)
  // A teacher's invitations are mailed once the teacher's own address is verified (invitation-caps.test.ts).
  await sql`update users set email_verified = true where id = ${owner.id}`
}, 60_000)

const send = mail.send

const body = (m: Received) => decodeQp(m.raw).split(/\r?\n\r?\n/).slice(1).join('\n\n')
const importRoster = (courseId: string, emails: string[], headers: Record<string, string> = {}) =>
  ctx.api.post(`/courses/${courseId}/roster`, { token: owner.token, json: { emails }, headers })

describe('roster invitation mail', () => {
  test('an unknown address gets exactly one mail: fixed text, a registration link, no course title or teacher text; a re-import mails nobody again', async () => {
    const c = await createCourse(ctx.api, owner, TITLE, 'Description the teacher typed')
    const known = await signUp(ctx.api, 'STUDENT')
    await sql`update users set email_verified = true where id = ${known.id}`
    const newcomer = `${uniq('new')}@Example.test`
    const res = await importRoster(c.id, [newcomer, known.email])
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({ enrolled: 1, invited: 1 })
    const before = smtp.received.length
    await send()
    const mails = mailsTo(smtp, newcomer)
    expect(mails).toHaveLength(1)
    const mail = mails[0]!
    expect(mail.header('Subject')).toBe('[Course Learning] You are invited to join a course')
    expect(mail.raw).toContain('Content-Type: text/plain')
    expect(mail.raw).toContain('Content-Type: text/html')
    const text = body(mail)
    expect(text).toContain(`${PUBLIC_URL}/register?email=${encodeURIComponent(newcomer.toLowerCase())}`)
    for (const chosen of ['Secret Course Title', 'evil.example', 'Dr Evil', 'Description the teacher typed', owner.username, c.inviteCode]) {
      expect(text).not.toContain(chosen)
    }
    // The enrolled student got no invitation mail (only the newcomer's mail was sent).
    expect(mailsTo(smtp, known.email).filter((m) => m.header('Subject')?.includes('invited'))).toHaveLength(0)
    const rows = await sql<{ kind: string; user_id: string | null; sent_at: Date | null }[]>`
      select kind, user_id, sent_at from email_outbox where to_address = ${newcomer.toLowerCase()}`
    expect([...rows]).toEqual([{ kind: 'ROSTER_INVITATION', user_id: null, sent_at: clock.now() }])

    const again = await importRoster(c.id, [newcomer.toUpperCase(), known.email])
    expect(again.status).toBe(200)
    expect(again.data).toMatchObject({ enrolled: 0, invited: 1 })
    await send()
    expect(mailsTo(smtp, newcomer)).toHaveLength(1)
    expect((await sql<{ n: number }[]>`select count(*)::int as n from email_outbox where to_address = ${newcomer.toLowerCase()}`)[0]!.n).toBe(1)
    expect(smtp.received.length).toBeGreaterThanOrEqual(before + 1)
  })

  test("the mail is in the importing request's language (zh-CN)", async () => {
    const c = await createCourse(ctx.api, owner)
    const newcomer = `${uniq('zh')}@example.test`
    expect((await importRoster(c.id, [newcomer], { 'accept-language': 'zh-CN,zh;q=0.9' })).status).toBe(200)
    await send()
    const [mail] = mailsTo(smtp, newcomer)
    expect(mail).toBeDefined()
    const subject = mail!.header('Subject')!.replace(/=\?UTF-8\?B\?([^?]*)\?=\s*/gi, (_, b64: string) => Buffer.from(b64, 'base64').toString('utf8'))
    expect(subject).toBe('[课程学习] 你被邀请加入一门课程')
    // Non-ASCII parts are base64: the plain-text part, decoded.
    const part = /Content-Type: text\/plain; charset=utf-8\r?\nContent-Transfer-Encoding: base64\r?\n\r?\n([A-Za-z0-9+/=\r\n]+?)\r?\n--/.exec(mail!.raw)
    const plain = Buffer.from(part![1]!.replace(/\s/g, ''), 'base64').toString('utf8')
    expect(plain).toContain('课程学习平台的一位老师把这个邮箱地址加入了某门课程的学生名单。')
    expect(plain).toContain(`注册: ${PUBLIC_URL}/register?email=${encodeURIComponent(newcomer)}`)
  })

  test('many new addresses in one import: one mail each, queued in one statement', async () => {
    const c = await createCourse(ctx.api, owner)
    const emails = Array.from({ length: 30 }, (_, i) => `${uniq(`bulk${i}`)}@example.test`)
    expect((await importRoster(c.id, emails)).data).toMatchObject({ invited: 30 })
    const queued = await sql<{ n: number }[]>`select count(*)::int as n from email_outbox where to_address = any(${emails}::text[]) and kind = 'ROSTER_INVITATION'`
    expect(queued[0]!.n).toBe(30)
    await send()
    for (const e of emails) expect(mailsTo(smtp, e)).toHaveLength(1)
  })

  test('an invitation revoked before the sender ran is not mailed', async () => {
    const c = await createCourse(ctx.api, owner)
    const newcomer = `${uniq('rev')}@example.test`
    await importRoster(c.id, [newcomer])
    const inv = await ctx.api.get(`/courses/${c.id}/roster/invitations`, { token: owner.token })
    const id = inv.data.items[0].id as string
    expect((await ctx.api.del(`/courses/${c.id}/roster/invitations/${id}`, { token: owner.token })).status).toBe(200)
    await send()
    expect(mailsTo(smtp, newcomer)).toHaveLength(0)
    const [row] = await sql<{ failed_at: Date | null; last_error: string | null }[]>`select failed_at, last_error from email_outbox where id = ${id}`
    expect(row!.failed_at).not.toBeNull()
    expect(row!.last_error).toBe('not sent: the invitation was revoked or taken, or the address has an account now')
  })

  test('the invited address registers (a verification mail), verifies, and is then enrolled', async () => {
    const c = await createCourse(ctx.api, owner)
    const username = uniq('inv')
    const email = `${username}@example.test`
    await importRoster(c.id, [email])
    await send()
    expect(mailsTo(smtp, email)).toHaveLength(1)

    const ip = freshIp()
    const headers = { 'x-forwarded-for': ip }
    const reg = await ctx.api.post('/auth/register', { json: { username, email, password: 'correct horse battery' }, headers })
    expect(reg.status).toBe(201)
    expect(reg.data.emailVerified).toBe(false)
    // The registration says the course waits for the address to be verified (issue 56).
    expect(reg.data.pendingCourseInvitations).toBe(1)
    const login = await ctx.api.post('/auth/login', { json: { identifier: username, password: 'correct horse battery' }, headers })
    const token = login.data.accessToken as string
    // Not enrolled before the address is proved.
    expect((await ctx.api.get(`/courses/${c.id}`, { token })).status).toBe(403)
    await send()
    const verifyMail = mailsTo(smtp, email).find((m) => m.header('Subject')?.includes('Confirm'))
    expect(verifyMail).toBeDefined()
    const v = await ctx.api.post('/auth/email/verify', { json: { token: tokenIn(verifyMail!, '/verify-email') }, headers })
    expect(v.status).toBe(200)
    const course = await ctx.api.get(`/courses/${c.id}`, { token })
    expect(course.status).toBe(200)
    expect(course.data.myRole).toBe('STUDENT')
    expect((await ctx.api.get(`/courses/${c.id}/roster/invitations`, { token: owner.token })).data.total).toBe(0)
    // Still one invitation mail: registration and verification queue none.
    expect(mailsTo(smtp, email).filter((m) => m.header('Subject')?.includes('invited'))).toHaveLength(1)
  })
})
