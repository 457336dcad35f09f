import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sendDueEmails, smtpTransport, type Transport } from '../../src/modules/email/sender.ts'
import { decodeQp, TestSmtp } from '../email/smtp.ts'
import { ManualClock, type Account } from '../support/harness.ts'
import { comment, commentWorld, type CommentWorld } from './world.ts'

/*
 * Comment notifications through the one pipeline (notify): inbox rows rendered in the reader's
 * language, e-mail to a real SMTP server per preference (PRIVATE_COMMENT on by default,
 * COMMENT_REPLY off), nothing to people who left, edits rewrite and deletes retract them.
 * Across two instances' live streams: stream-instances.test.ts.
 */

const PUBLIC_URL = 'https://learn.example.test'
const clock = new ManualClock('2031-06-01T08:00:00.000Z')
let w: CommentWorld
let smtp: TestSmtp
let transport: Transport

beforeAll(async () => {
  smtp = await TestSmtp.start()
  transport = smtpTransport(smtp.url)
  w = await commentWorld(clock, { smtpUrl: smtp.url, publicUrl: PUBLIC_URL })
  const ids = [w.teacher, w.coTeacher, w.student, w.student2].map((a) => a.id)
  // As if they had used their verification links: notification mails go to verified addresses only.
  await w.deps.sql`update users set email_verified = true where id in ${w.deps.sql(ids)}`
  await w.deps.sql`update email_outbox set failed_at = now(), secret = null where user_id in ${w.deps.sql(ids)} and kind <> 'NOTIFICATION' and sent_at is null`
  await w.deps.sql`update users set locale = 'zh-CN' where id = ${w.coTeacher.id}`
}, 30_000)

afterAll(async () => {
  await smtp?.stop()
})

const send = () => sendDueEmails(w.deps.sql, transport, { publicUrl: PUBLIC_URL, mailFrom: 'Course Learning <no-reply@learn.example.test>', secret: w.deps.config.jwtSecret }, clock.now())
const inbox = async (who: Account, type?: string) => {
  const r = await w.api.get('/notifications?pageSize=200', { token: who.token })
  expect(r.status).toBe(200)
  return (r.data.items as any[]).filter((n) => !type || n.type === type)
}
const mailsTo = (a: Account) => smtp.received.filter((m) => m.to.includes(a.email))

describe('COMMENT_REPLY', () => {
  test("under an announcement: its author is told, then everyone who commented before (not the writer, not bystanders), in their language", async () => {
    const first = await comment(w, w.paths.announcement, w.student, '<p>When is the <b>exam</b>?</p>')
    const toTeacher = await inbox(w.teacher, 'COMMENT_REPLY')
    expect(toTeacher).toHaveLength(1)
    expect(toTeacher[0]).toMatchObject({
      title: 'Alice commented on "Welcome"',
      content: 'When is the exam?',
      actionPath: `/courses/${w.course.id}?announcementId=${w.announcement.id}`,
      readAt: null,
      params: { kind: 'COMMENT_REPLY', commentId: first.id, on: 'ANNOUNCEMENT', targetId: w.announcement.id, author: 'Alice' },
    })
    expect(await inbox(w.student, 'COMMENT_REPLY')).toHaveLength(0)
    expect(await inbox(w.student2, 'COMMENT_REPLY')).toHaveLength(0)

    await comment(w, w.paths.announcement, w.teacher, '<p>Friday.</p>')
    const toAlice = await inbox(w.student, 'COMMENT_REPLY')
    expect(toAlice.map((n) => n.title)).toEqual(['Teacher T commented on "Welcome"'])
    expect(await inbox(w.student2, 'COMMENT_REPLY')).toHaveLength(0)
    // The announcement's author wrote the reply: not told of their own comment.
    expect(await inbox(w.teacher, 'COMMENT_REPLY')).toHaveLength(1)
  })

  test("under a task: the course's teachers (owner and co-teachers) are its writers; the zh-CN reader reads Chinese", async () => {
    await comment(w, w.paths.task, w.student2, '<p>Page 3 is missing</p>')
    expect((await inbox(w.teacher, 'COMMENT_REPLY')).some((n) => n.title === 'Bob commented on "Read chapter 1"')).toBe(true)
    const zh = await inbox(w.coTeacher, 'COMMENT_REPLY')
    expect(zh.map((n) => n.title)).toContain('Bob 评论了“Read chapter 1”')
    expect(zh.find((n) => n.content === 'Page 3 is missing')).toBeTruthy()
  })

  test('off by e-mail by default; on once the reader turns it on', async () => {
    smtp.received = []
    const t = await comment(w, w.paths.task, w.student, '<p>quiet</p>')
    await send()
    expect(mailsTo(w.teacher)).toHaveLength(0)
    expect((await w.api.put('/me/notification-preferences', { token: w.teacher.token, json: { email: { COMMENT_REPLY: true } } })).status).toBe(200)
    clock.advance(1000)
    await comment(w, w.paths.task, w.student, '<p>loud &amp; clear</p>')
    await send()
    const mails = mailsTo(w.teacher)
    expect(mails).toHaveLength(1)
    expect(decodeQp(mails[0]!.raw)).toContain('loud & clear')
    expect(mails[0]!.header('subject')).toContain('Alice commented on')
    expect(t.id).toBeTruthy()
  })
})

describe('PRIVATE_COMMENT', () => {
  test("a student's private comment reaches every teacher of the course (inbox, the grading view) and mails them by default; nobody else", async () => {
    smtp.received = []
    const c = await comment(w, w.paths.private(w.student), w.student, '<p>I uploaded the <i>wrong</i> file</p>')
    for (const t of [w.teacher, w.coTeacher]) {
      const n = (await inbox(t, 'PRIVATE_COMMENT')).find((x) => x.params.commentId === c.id)
      expect(n).toMatchObject({
        content: 'I uploaded the wrong file',
        actionPath: `/courses/${w.course.id}/manage?tab=grading&taskId=${w.task.id}&student=${w.student.id}`,
        params: { kind: 'PRIVATE_COMMENT', studentId: w.student.id, targetId: w.task.id, on: 'TASK' },
      })
    }
    expect((await inbox(w.teacher, 'PRIVATE_COMMENT')).find((x) => x.params.commentId === c.id).title).toBe('Alice sent a private comment on "Read chapter 1"')
    expect(await inbox(w.student2, 'PRIVATE_COMMENT')).toHaveLength(0)
    expect(await inbox(w.student, 'PRIVATE_COMMENT')).toHaveLength(0)
    await send()
    expect(mailsTo(w.teacher)).toHaveLength(1)
    expect(mailsTo(w.coTeacher)).toHaveLength(1)
    expect(mailsTo(w.student2)).toHaveLength(0)
    expect(decodeQp(mailsTo(w.teacher)[0]!.raw)).toContain(`${PUBLIC_URL}/courses/${w.course.id}/manage?tab=grading`)
  })

  test("a teacher's private comment reaches that student only, unless they turned its e-mail off", async () => {
    smtp.received = []
    const c = await comment(w, w.paths.private(w.student), w.coTeacher, '<p>Upload it again.</p>')
    const n = (await inbox(w.student, 'PRIVATE_COMMENT')).find((x) => x.params.commentId === c.id)
    expect(n).toMatchObject({ title: 'Co Teacher sent a private comment on "Read chapter 1"', actionPath: `/courses/${w.course.id}?taskId=${w.task.id}` })
    expect((await inbox(w.teacher, 'PRIVATE_COMMENT')).some((x) => x.params.commentId === c.id)).toBe(false)
    await send()
    expect(mailsTo(w.student)).toHaveLength(1)
    expect(mailsTo(w.teacher)).toHaveLength(0)

    await w.api.put('/me/notification-preferences', { token: w.student.token, json: { email: { PRIVATE_COMMENT: false } } })
    clock.advance(1000)
    await comment(w, w.paths.private(w.student), w.teacher, '<p>Thanks.</p>')
    await send()
    expect(mailsTo(w.student)).toHaveLength(1)
    expect((await inbox(w.student, 'PRIVATE_COMMENT')).length).toBe(2)
  })
})

describe('edits, deletes and people who left', () => {
  test("an edit rewrites the notification's excerpt; a delete retracts it from every inbox (and the unread count)", async () => {
    const before = (await w.api.get('/notifications', { token: w.teacher.token })).data.unreadCount
    const c = await comment(w, w.paths.private(w.student), w.student, '<p>draft</p>')
    expect((await w.api.get('/notifications', { token: w.teacher.token })).data.unreadCount).toBe(before + 1)
    expect((await w.api.patch(`/comments/${c.id}`, { token: w.student.token, json: { content: '<p>final</p>' } })).status).toBe(200)
    expect((await inbox(w.teacher, 'PRIVATE_COMMENT')).find((x) => x.params.commentId === c.id).content).toBe('final')
    expect((await w.api.del(`/comments/${c.id}`, { token: w.student.token })).status).toBe(200)
    for (const t of [w.teacher, w.coTeacher]) expect((await inbox(t)).some((x) => x.params?.commentId === c.id)).toBe(false)
    expect((await w.api.get('/notifications', { token: w.teacher.token })).data.unreadCount).toBe(before)
  })

  test("hiding a class comment takes its notification out of the students' inboxes, not the teachers'", async () => {
    await comment(w, w.paths.task, w.student, '<p>first</p>')
    const rude = await comment(w, w.paths.task, w.student2, '<p>rude</p>')
    const has = async (who: Account) => (await inbox(who, 'COMMENT_REPLY')).some((n) => n.params.commentId === rude.id)
    expect(await has(w.student)).toBe(true)
    expect(await has(w.teacher)).toBe(true)
    expect((await w.api.patch(`/comments/${rude.id}`, { token: w.teacher.token, json: { hidden: true } })).status).toBe(200)
    expect(await has(w.student)).toBe(false)
    expect(await has(w.teacher)).toBe(true)
  })

  test('a student who left the course is not told of comments written after, in threads they wrote in', async () => {
    const a = await w.api.post(`/courses/${w.course.id}/announcements`, { token: w.teacher.token, json: { title: 'Leaving', content: '<p>x</p>' } })
    const thread = `/courses/${w.course.id}/announcements/${a.data.id}/comments`
    await comment(w, thread, w.student2, '<p>bye</p>')
    expect((await w.api.del(`/courses/${w.course.id}/members/${w.student2.id}`, { token: w.teacher.token })).status).toBe(200)
    smtp.received = []
    const c = await comment(w, thread, w.student, '<p>after</p>')
    const [n] = await w.deps.sql<{ n: number }[]>`select count(*)::int as n from notifications where user_id = ${w.student2.id} and params->>'commentId' = ${c.id}`
    expect(n!.n).toBe(0)
    // The teacher (the announcement's author) still is.
    expect((await inbox(w.teacher, 'COMMENT_REPLY')).some((x) => x.params.commentId === c.id)).toBe(true)
    await send()
    expect(mailsTo(w.student2)).toHaveLength(0)
  })
})
