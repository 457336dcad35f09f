import { beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock, signUp, type Account } from '../support/harness.ts'
import { choice, createTask, pointIn, essayTask, textTask, world, type World } from '../learning/helpers.ts'

/*
 * Issue 29.10: a course's teachers (its owner and its co-teachers) are told of every submission,
 * one notification per sheet, written with the sheet; the e-mail copy follows the
 * SUBMISSION_RECEIVED preference (off by default). Students and outsiders are never told.
 * One notification per sheet is what a teacher who turned the hand-in digest off gets (issue
 * 54; the digest itself: test/notifications/digest.test.ts): both teachers here turn it off.
 */

const T0 = new Date('2031-05-01T08:00:00.000Z')
const clock = new ManualClock(T0)
let w: World
let coTeacher: Account
let quiz: any, essay: any, late: any

beforeAll(async () => {
  w = await world({ clock, deps: { emailEnabled: true } })
  coTeacher = await signUp(w.api, 'TEACHER', 'Co Teacher')
  const added = await w.api.post(`/courses/${w.course.id}/teachers`, { token: w.teacher.token, json: { identifier: coTeacher.username } })
  expect(added.status).toBe(201)
  await w.deps.sql`update users set email_verified = true where id in ${w.deps.sql([w.teacher.id, coTeacher.id, w.student.id])}`
  await w.deps.sql`update users set locale = 'zh-CN' where id = ${coTeacher.id}`
  for (const t of [w.teacher, coTeacher]) {
    const off = await w.api.put('/me/notification-preferences', { token: t.token, json: { handInDigest: false } })
    expect([off.status, off.data.handInDigest]).toEqual([200, false])
  }
  const pointId = (await pointIn(w)).point.id
  quiz = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Quiz one', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0])] })
  essay = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay', ...essayTask })
  late = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Past due', ...textTask, taskKind: 'HOMEWORK', dueAt: new Date(T0.getTime() + 3_600_000).toISOString() })
}, 60_000)

const submitted = async (who: Account) => {
  const r = await w.api.get('/notifications?pageSize=100', { token: who.token })
  expect([r.status, r.code]).toEqual([200, 0])
  return r.data.items.filter((n: any) => n.type === 'SUBMISSION_RECEIVED')
}
const mails = (userId: string) =>
  w.deps.sql<{ n: number }[]>`
    select count(*)::int as n from email_outbox o join notifications n on n.id = o.notification_id
     where o.user_id = ${userId} and n.notification_type = 'SUBMISSION_RECEIVED'`.then((r) => r[0]!.n)
const submitQuiz = (who: Account, key?: string) =>
  w.api.post(`${w.base}/tasks/${quiz.id}/submissions`, {
    token: who.token,
    json: { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [0] }] },
    ...(key ? { headers: { 'idempotency-key': key } } : {}),
  })

describe('teachers are told of submissions', () => {
  test('owner and co-teacher each get one notification per sheet, in their language; nobody else does', async () => {
    const before = { owner: (await submitted(w.teacher)).length, co: (await submitted(coTeacher)).length }
    const r = await submitQuiz(w.student)
    expect([r.status, r.code]).toEqual([201, 0])
    const owner = await submitted(w.teacher)
    const co = await submitted(coTeacher)
    expect(owner).toHaveLength(before.owner + 1)
    expect(co).toHaveLength(before.co + 1)
    expect(owner[0]).toMatchObject({
      type: 'SUBMISSION_RECEIVED',
      title: 'New submission: Quiz one',
      content: 'Alice handed in "Quiz one" in Fixture course.',
      actionPath: `/courses/${w.course.id}?taskId=${quiz.id}`,
      readAt: null,
      params: { kind: 'SUBMISSION_RECEIVED', subject: 'TASK', taskId: quiz.id, submissionId: r.data.id, student: 'Alice', late: false },
    })
    expect(co[0]).toMatchObject({ title: '新的提交：Quiz one', content: 'Alice 提交了课程“Fixture course”的“Quiz one”。' })
    // The student who handed in, a classmate, another course's teacher and student: nothing.
    for (const who of [w.student, w.student2, w.otherTeacher, w.outsider]) expect(await submitted(who)).toEqual([])
  })

  test('a replay with the same Idempotency-Key tells nobody again; a new sheet does', async () => {
    const before = (await submitted(w.teacher)).length
    const key = crypto.randomUUID()
    const first = await submitQuiz(w.student2, key)
    expect(first.status).toBe(201)
    const replay = await submitQuiz(w.student2, key)
    // (Same answers, same key: the first sheet again; this was a 409 before, jsonb reorders keys.)
    expect([replay.status, replay.code, replay.data.id]).toEqual([200, 0, first.data.id])
    expect(await submitted(w.teacher)).toHaveLength(before + 1)
    expect((await submitQuiz(w.student2)).status).toBe(201)
    const after = await submitted(w.teacher)
    expect(after).toHaveLength(before + 2)
    expect(after[0].content).toBe('Bob handed in "Quiz one" in Fixture course.')
  })

  test('a hand-in with files (multipart) tells them too, once, also when replayed', async () => {
    const before = (await submitted(w.teacher)).length
    const form = () => {
      const f = new FormData()
      f.append('content', '<p>My essay, with a photo of the draft</p>')
      f.append('files', new File(['photo bytes'], 'draft.jpg', { type: 'image/jpeg' }))
      return f
    }
    const key = crypto.randomUUID()
    const first = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token, form: form(), headers: { 'idempotency-key': key } })
    expect([first.status, first.code, first.data.files.length]).toEqual([201, 0, 1])
    const replay = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token, form: form(), headers: { 'idempotency-key': key } })
    expect([replay.status, replay.data.id]).toEqual([200, first.data.id])
    const owner = await submitted(w.teacher)
    expect(owner).toHaveLength(before + 1)
    expect(owner[0]).toMatchObject({ title: 'New submission: Essay', actionPath: `/courses/${w.course.id}?taskId=${essay.id}` })
  })

  test('an experiment report tells them too, linking to its grading; a refused upload tells nobody', async () => {
    const lab = await w.api.post(`/courses/${w.course.id}/experiments`, { token: w.teacher.token, json: { title: 'Lab one', description: '', dueAt: '2031-06-01T00:00:00Z' } })
    expect(lab.status).toBe(201)
    const before = { owner: (await submitted(w.teacher)).length, co: (await submitted(coTeacher)).length }
    const report = () => {
      const f = new FormData()
      f.append('file', new File(['measurements'], 'report.txt', { type: 'text/plain' }))
      return f
    }
    const r = await w.api.post(`/experiments/${lab.data.id}/submissions`, { token: w.student.token, form: report() })
    expect([r.status, r.code]).toEqual([201, 0])
    const owner = await submitted(w.teacher)
    expect(owner).toHaveLength(before.owner + 1)
    expect(await submitted(coTeacher)).toHaveLength(before.co + 1)
    expect(owner[0]).toMatchObject({
      title: 'New submission: Lab one',
      content: 'Alice handed in "Lab one" in Fixture course.',
      actionPath: `/courses/${w.course.id}/manage?tab=grading&experimentId=${lab.data.id}&student=${w.student.id}`,
    })
    // The teacher cannot submit (403): nobody is told.
    expect((await w.api.post(`/experiments/${lab.data.id}/submissions`, { token: w.teacher.token, form: report() })).status).toBe(403)
    expect(await submitted(w.teacher)).toHaveLength(before.owner + 1)
    expect(await submitted(w.student)).toHaveLength(0)
  })

  test('a late sheet says so; a refused sheet (400) tells nobody', async () => {
    const before = (await submitted(w.teacher)).length
    const bad = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token, json: { content: '<script></script>' } })
    expect([bad.status, bad.code]).toEqual([400, 40001])
    expect(await submitted(w.teacher)).toHaveLength(before)
    clock.advance(2 * 3_600_000) // past the homework's due time: the scenario
    const r = await w.api.post(`${w.base}/tasks/${late.id}/submissions`, { token: w.student.token, json: { content: '<p>sorry</p>' } })
    expect(r.status).toBe(201)
    const [newest] = await submitted(w.teacher)
    expect(newest).toMatchObject({ title: 'New submission: Past due', content: 'Alice handed in "Past due" in Fixture course after the deadline.' })
  })

  test('the e-mail copy follows the preference: off by default, on when chosen, off again', async () => {
    const prefs = await w.api.get('/me/notification-preferences', { token: w.teacher.token })
    expect([prefs.status, prefs.code]).toEqual([200, 0])
    expect(prefs.data.email.SUBMISSION_RECEIVED).toBe(false)
    const start = await mails(w.teacher.id)
    expect((await submitQuiz(w.student)).status).toBe(201)
    expect(await mails(w.teacher.id)).toBe(start)

    const on = await w.api.put('/me/notification-preferences', { token: w.teacher.token, json: { email: { SUBMISSION_RECEIVED: true } } })
    expect([on.status, on.code]).toEqual([200, 0])
    expect(on.data.email.SUBMISSION_RECEIVED).toBe(true)
    expect((await submitQuiz(w.student)).status).toBe(201)
    expect(await mails(w.teacher.id)).toBe(start + 1)
    // The co-teacher did not choose it: inbox only.
    expect(await mails(coTeacher.id)).toBe(0)

    const off = await w.api.put('/me/notification-preferences', { token: w.teacher.token, json: { email: { SUBMISSION_RECEIVED: false } } })
    expect(off.data.email.SUBMISSION_RECEIVED).toBe(false)
    expect((await submitQuiz(w.student)).status).toBe(201)
    expect(await mails(w.teacher.id)).toBe(start + 1)
    // A student is never mailed about submissions, whatever they switch on.
    await w.api.put('/me/notification-preferences', { token: w.student.token, json: { email: { SUBMISSION_RECEIVED: true } } })
    expect((await submitQuiz(w.student)).status).toBe(201)
    expect(await mails(w.student.id)).toBe(0)
  })

  test('the preference switch takes booleans only (400), and needs a login (401)', async () => {
    const bad = await w.api.put('/me/notification-preferences', { token: w.teacher.token, json: { email: { SUBMISSION_RECEIVED: 'yes' } } })
    expect([bad.status, bad.code]).toEqual([400, 40001])
    expect((await w.api.put('/me/notification-preferences', { json: { email: { SUBMISSION_RECEIVED: true } } })).status).toBe(401)
  })
})
