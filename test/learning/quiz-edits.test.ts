import { beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../support/harness.ts'
import { choice, createTask, shortAnswer, type World, worldWithPoint } from './helpers.ts'

/**
 * Issue 29.1: editing a quiz keeps its question ids (answers stay attached); a changed key or
 * points regrades the existing sheets and the response says so; removing a question that has
 * answers needs `confirmQuestionRemoval: true` (else 409 HAS_SUBMISSIONS naming the questions).
 * Issue 27.6: a stored per-question score above the question's current points makes the next
 * grading of that sheet 400 naming the question.
 */
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World
let pointId: string

beforeAll(async () => void ({ w, pointId } = await worldWithPoint({ clock })), 60_000)

const patchTask = (taskId: string, json: unknown, token = w.teacher.token) => w.api.patch(`${w.base}/tasks/${taskId}`, { token, json })
const submit = async (taskId: string, answers: unknown[], token = w.student.token) => {
  const r = await w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token, json: { answers } })
  expect(r.status).toBe(201)
  return r.data
}
const sheetsOf = async (taskId: string) =>
  (await w.api.get(`${w.base}/tasks/${taskId}/submissions`, { token: w.teacher.token })).data.items as any[]
/** The questions as a client that read the task sends them back (ids included). */
const asSent = (qs: any[]) => qs.map(({ id, type, stem, options, correctOptions, points }) => ({ id, type, stem, ...(type === 'SHORT_ANSWER' ? {} : { options, correctOptions }), points }))

describe('quiz edits keep question ids', () => {
  test('a title-only edit keeps every question id and the answers still match', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [1], 2), shortAnswer(2)] })
    await submit(quiz.id, [{ questionId: quiz.questions[0].id, selectedOptions: [1] }, { questionId: quiz.questions[1].id, text: 'because' }])
    const r = await patchTask(quiz.id, { title: 'Renamed quiz' })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data.questions.map((q: any) => q.id)).toEqual(quiz.questions.map((q: any) => q.id))
    expect(r.data.regrade).toBeNull()
  })

  test('sending the questions back with their ids and a changed key keeps ids and regrades the sheets', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, {
      taskType: 'QUIZ',
      questions: [choice('SINGLE_CHOICE', [1], 2), choice('MULTIPLE_CHOICE', [0, 2], 2)],
    })
    const [q1, q2] = quiz.questions
    const right = await submit(quiz.id, [{ questionId: q1.id, selectedOptions: [1] }, { questionId: q2.id, selectedOptions: [0, 2] }])
    expect(right).toMatchObject({ status: 'GRADED', autoScore: 100, score: 100 })
    const other = await submit(quiz.id, [{ questionId: q1.id, selectedOptions: [2] }, { questionId: q2.id, selectedOptions: [0, 2] }], w.student2.token)
    expect(other).toMatchObject({ autoScore: 50, score: 50 })

    const edited = asSent(quiz.questions)
    edited[0]!.correctOptions = [2]
    const r = await patchTask(quiz.id, { questions: edited })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data.questions.map((q: any) => q.id)).toEqual([q1.id, q2.id])
    expect(r.data.regrade).toEqual({ sheets: 2, rescored: 2, needsReview: 0 })
    expect(r.message).toMatch(/regraded/i)
    const after = new Map((await sheetsOf(quiz.id)).map((s) => [s.id, s]))
    expect(after.get(right.id)).toMatchObject({ autoScore: 50, score: 50, status: 'GRADED' })
    expect(after.get(other.id)).toMatchObject({ autoScore: 100, score: 100, status: 'GRADED' })
    // The gradebook follows (grade totals are kept by the database).
    const overview = await w.api.get(`/courses/${w.course.id}/learning/overview`, { token: w.student.token })
    expect(overview.status).toBe(200)
  })

  test('changed points regrade a teacher-computed score; a teacher override is kept', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 2), shortAnswer(2)] })
    const [c, s] = quiz.questions
    const computed = await submit(quiz.id, [{ questionId: c.id, selectedOptions: [0] }, { questionId: s.id, text: 'a' }])
    const overridden = await submit(quiz.id, [{ questionId: c.id, selectedOptions: [1] }, { questionId: s.id, text: 'b' }], w.student2.token)
    const g1 = await w.api.patch(`${w.base}/submissions/${computed.id}/grade`, { token: w.teacher.token, json: { questionScores: [{ questionId: s.id, score: 1 }] } })
    expect(g1.data.score).toBe(75) // (2 + 1) / 4
    const g2 = await w.api.patch(`${w.base}/submissions/${overridden.id}/grade`, { token: w.teacher.token, json: { questionScores: [{ questionId: s.id, score: 2 }], score: 33 } })
    expect(g2.data.score).toBe(33)

    const edited = asSent(quiz.questions)
    edited[0]!.points = 6
    const r = await patchTask(quiz.id, { questions: edited })
    expect(r.status).toBe(200)
    expect(r.data.regrade).toEqual({ sheets: 2, rescored: 1, needsReview: 0 })
    const after = new Map((await sheetsOf(quiz.id)).map((x) => [x.id, x]))
    expect(after.get(computed.id)).toMatchObject({ score: 87.5, autoScore: 100 }) // (6 + 1) / 8
    expect(after.get(overridden.id)).toMatchObject({ score: 33, autoScore: 0 })
  })

  test('questions sent without ids would drop answered questions: 409 naming them, nothing changed', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [1], 2), shortAnswer(2)] })
    await submit(quiz.id, [{ questionId: quiz.questions[0].id, selectedOptions: [1] }])
    const withoutIds = asSent(quiz.questions).map(({ id: _id, ...q }) => q)
    const r = await patchTask(quiz.id, { title: 'Edited', questions: withoutIds })
    expect([r.status, r.code]).toEqual([409, 40904])
    expect(r.data.questions).toEqual([{ id: quiz.questions[0].id, stem: quiz.questions[0].stem, answers: 1 }])
    const task = await w.api.get(`${w.base}/tasks/${quiz.id}`, { token: w.teacher.token })
    expect(task.data.title).toBe('Task')
    expect(task.data.questions.map((q: any) => q.id)).toEqual(quiz.questions.map((q: any) => q.id))
  })

  test('removing an answered question with confirmQuestionRemoval: true removes it and regrades', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [1], 1), choice('SINGLE_CHOICE', [0], 1)] })
    const [q1, q2] = quiz.questions
    const sheet = await submit(quiz.id, [{ questionId: q1.id, selectedOptions: [1] }, { questionId: q2.id, selectedOptions: [1] }])
    expect(sheet.score).toBe(50)
    const kept = asSent(quiz.questions).slice(0, 1)
    const refused = await patchTask(quiz.id, { questions: kept })
    expect([refused.status, refused.code]).toEqual([409, 40904])
    expect(refused.data.questions.map((q: any) => q.id)).toEqual([q2.id])
    const bad = await patchTask(quiz.id, { questions: kept, confirmQuestionRemoval: 'yes' })
    expect([bad.status, bad.code]).toEqual([400, 40001])
    const r = await patchTask(quiz.id, { questions: kept, confirmQuestionRemoval: true })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data.questions.map((q: any) => q.id)).toEqual([q1.id])
    expect(r.data.regrade).toMatchObject({ sheets: 1, rescored: 1 })
    expect((await sheetsOf(quiz.id))[0]).toMatchObject({ score: 100, autoScore: 100 })
    // An unanswered question goes without asking.
    const added = await patchTask(quiz.id, { questions: [...asSent(r.data.questions), choice('SINGLE_CHOICE', [0], 1)] })
    expect(added.status).toBe(200)
    const removed = await patchTask(quiz.id, { questions: asSent(added.data.questions).slice(0, 1) })
    expect(removed.status).toBe(200)
  })

  test('403 for a student, 404 for an unknown task', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [1], 1)] })
    const s = await patchTask(quiz.id, { title: 'x', confirmQuestionRemoval: true }, w.student.token)
    expect([s.status, s.code]).toEqual([403, 40300])
    const u = await patchTask('01900000-0000-7000-8000-000000000000', { title: 'x' })
    expect([u.status, u.code]).toEqual([404, 40404])
  })
})

describe('stale per-question scores (issue 27.6)', () => {
  test('a stored score above the current points makes the grading 400 naming that question; rescoring it fixes it', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 5), shortAnswer(5), shortAnswer(5)] })
    const [c, q2, q3] = quiz.questions
    const sheet = await submit(quiz.id, [{ questionId: c.id, selectedOptions: [0] }, { questionId: q2.id, text: 'a' }, { questionId: q3.id, text: 'b' }])
    const g = await w.api.patch(`${w.base}/submissions/${sheet.id}/grade`, { token: w.teacher.token, json: { questionScores: [{ questionId: q2.id, score: 5 }], score: 50 } })
    expect(g.status).toBe(200)
    const edited = asSent(quiz.questions)
    edited[1]!.points = 1
    const e = await patchTask(quiz.id, { questions: edited })
    expect(e.status).toBe(200)
    // q2 = 5 is above its 1 point now; the sheet's score (an override) is left for the teacher.
    expect(e.data.regrade).toEqual({ sheets: 1, rescored: 0, needsReview: 1 })

    const stale = await w.api.patch(`${w.base}/submissions/${sheet.id}/grade`, { token: w.teacher.token, json: { questionScores: [{ questionId: q3.id, score: 1 }] } })
    expect([stale.status, stale.code]).toEqual([400, 40001])
    expect(stale.data.fields).toEqual([{ field: `questionScores.${q2.id}`, message: expect.stringMatching(/above .*1 point/) }])
    const plain = await w.api.patch(`${w.base}/submissions/${sheet.id}/grade`, { token: w.teacher.token, json: { score: 90 } })
    expect([plain.status, plain.code]).toEqual([400, 40001])
    // Nothing stored by the refused gradings.
    expect((await sheetsOf(quiz.id))[0]).toMatchObject({ score: 50, questionScores: [{ questionId: q2.id, score: 5 }] })

    const fixed = await w.api.patch(`${w.base}/submissions/${sheet.id}/grade`, {
      token: w.teacher.token,
      json: { questionScores: [{ questionId: q2.id, score: 1 }, { questionId: q3.id, score: 1 }] },
    })
    expect([fixed.status, fixed.code]).toEqual([200, 0])
    expect(fixed.data.score).toBe(63.64) // (5 + 1 + 1) / 11
  })
})

describe("a student's view of a sheet after the points dropped (issue 48)", () => {
  test('before the teacher rescores, the student sees at most the question’s points (earned and per-question score); the teacher sees what is stored', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 2), shortAnswer(8)] })
    const [c, sa] = quiz.questions
    const sheet = await submit(quiz.id, [{ questionId: c.id, selectedOptions: [0] }, { questionId: sa.id, text: 'long answer' }])
    const g = await w.api.patch(`${w.base}/submissions/${sheet.id}/grade`, { token: w.teacher.token, json: { questionScores: [{ questionId: sa.id, score: 8 }] } })
    expect([g.status, g.data.score]).toEqual([200, 100])
    const edited = asSent(quiz.questions)
    edited[1]!.points = 5
    expect((await patchTask(quiz.id, { questions: edited })).data.regrade).toMatchObject({ needsReview: 1 })

    const mine = await w.api.get(`${w.base}/tasks/${quiz.id}/submissions`, { token: w.student.token })
    expect(mine.status).toBe(200)
    const seen = mine.data.items[0]
    expect(seen.questionResults).toEqual([
      { questionId: c.id, points: 2, earned: 2, addedAfterSubmission: false },
      { questionId: sa.id, points: 5, earned: 5, addedAfterSubmission: false },
    ])
    expect(seen.questionScores).toEqual([{ questionId: sa.id, score: 5 }])
    // The teacher still sees the stored 8, which the next grading names (issue 27.6).
    const stored = (await sheetsOf(quiz.id)).find((s) => s.id === sheet.id)
    expect(stored.questionScores).toEqual([{ questionId: sa.id, score: 8 }])
    expect(stored.questionResults.find((r: any) => r.questionId === sa.id)).toEqual({ questionId: sa.id, points: 5, earned: 5, addedAfterSubmission: false })
  })
})
