import { beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../support/harness.ts'
import { choice, createTask, pointIn, shortAnswer, essayTask, textTask, world, type World } from './helpers.ts'

/*
 * Issue 29.10: once a quiz sheet is graded its student sees what each question earned
 * (`questionResults`), not only the total; never the answer key, and nothing before grading.
 */
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World
let mixed: any, choices: any, media: any

beforeAll(async () => {
  w = await world({ clock })
  const pointId = (await pointIn(w)).point.id
  // 2 + 2 choice points and a 6-point short answer: 10 in all.
  mixed = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Mixed',
    taskType: 'QUIZ',
    questions: [choice('SINGLE_CHOICE', [1], 2), choice('MULTIPLE_CHOICE', [0, 2], 2), shortAnswer(6)],
  })
  choices = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Choices', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 3), choice('SINGLE_CHOICE', [1], 1)] })
  media = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay', ...essayTask })
}, 60_000)

const mine = async (taskId: string) => {
  const r = await w.api.get(`${w.base}/tasks/${taskId}/submissions`, { token: w.student.token })
  expect([r.status, r.code]).toEqual([200, 0])
  return r.data.items[0]
}

describe('per-question results of a graded sheet', () => {
  test('none before grading; after grading each question with its points and what it earned', async () => {
    const [q1, q2, q3] = mixed.questions
    const sent = await w.api.post(`${w.base}/tasks/${mixed.id}/submissions`, {
      token: w.student.token,
      json: { answers: [{ questionId: q1.id, selectedOptions: [1] }, { questionId: q2.id, selectedOptions: [0] }, { questionId: q3.id, text: 'because' }] },
    })
    expect([sent.status, sent.code]).toEqual([201, 0])
    expect(sent.data).toMatchObject({ status: 'SUBMITTED', autoScore: 50, questionResults: [] })
    expect((await mine(mixed.id)).questionResults).toEqual([])

    const graded = await w.api.patch(`${w.base}/submissions/${sent.data.id}/grade`, { token: w.teacher.token, json: { questionScores: [{ questionId: q3.id, score: 4.5 }] } })
    expect([graded.status, graded.code]).toEqual([200, 0])
    const expected = [
      { questionId: q1.id, points: 2, earned: 2, addedAfterSubmission: false },
      { questionId: q2.id, points: 2, earned: 0, addedAfterSubmission: false },
      { questionId: q3.id, points: 6, earned: 4.5, addedAfterSubmission: false },
    ]
    expect(graded.data.questionResults).toEqual(expected)
    const seen = await mine(mixed.id)
    // (2 + 0 + 4.5) / 10 × 100
    expect(seen).toMatchObject({ status: 'GRADED', score: 65, questionResults: expected })
    expect(JSON.stringify(seen)).not.toContain('correctOptions')
  })

  test('graded with an overall score only: the short answer has no points of its own (null)', async () => {
    const [q1, q2, q3] = mixed.questions
    const sent = await w.api.post(`${w.base}/tasks/${mixed.id}/submissions`, {
      token: w.student2.token,
      json: { answers: [{ questionId: q1.id, selectedOptions: [0] }, { questionId: q2.id, selectedOptions: [2, 0] }, { questionId: q3.id, text: 'x' }] },
    })
    const graded = await w.api.patch(`${w.base}/submissions/${sent.data.id}/grade`, { token: w.teacher.token, json: { score: 70 } })
    expect(graded.status).toBe(200)
    const list = await w.api.get(`${w.base}/tasks/${mixed.id}/submissions?studentId=${w.student2.id}`, { token: w.teacher.token })
    expect(list.data.items[0].questionResults).toEqual([
      { questionId: q1.id, points: 2, earned: 0, addedAfterSubmission: false },
      { questionId: q2.id, points: 2, earned: 2, addedAfterSubmission: false },
      { questionId: q3.id, points: 6, earned: null, addedAfterSubmission: false },
    ])
  })

  test('a quiz of choice questions only is graded at once, with its results in the answer to the hand-in', async () => {
    const [a, b] = choices.questions
    const sent = await w.api.post(`${w.base}/tasks/${choices.id}/submissions`, {
      token: w.student.token,
      json: { answers: [{ questionId: a.id, selectedOptions: [0] }, { questionId: b.id, selectedOptions: [0] }] },
    })
    expect([sent.status, sent.code]).toEqual([201, 0])
    expect(sent.data).toMatchObject({ status: 'GRADED', score: 75, questionResults: [{ questionId: a.id, points: 3, earned: 3, addedAfterSubmission: false }, { questionId: b.id, points: 1, earned: 0, addedAfterSubmission: false }] })
  })

  test('a text task has no per-question results, graded or not', async () => {
    const sent = await w.api.post(`${w.base}/tasks/${media.id}/submissions`, { token: w.student.token, json: { content: '<p>mine</p>' } })
    expect((await w.api.patch(`${w.base}/submissions/${sent.data.id}/grade`, { token: w.teacher.token, json: { score: 90 } })).status).toBe(200)
    expect(await mine(media.id)).toMatchObject({ status: 'GRADED', score: 90, questionResults: [] })
  })

  test('the listing still refuses outsiders (403), unknown tasks (404) and no login (401)', async () => {
    expect((await w.api.get(`${w.base}/tasks/${mixed.id}/submissions`, { token: w.outsider.token })).status).toBe(403)
    expect((await w.api.get(`${w.base}/tasks/${crypto.randomUUID()}/submissions`, { token: w.student.token })).status).toBe(404)
    expect((await w.api.get(`${w.base}/tasks/${mixed.id}/submissions`)).status).toBe(401)
  })
})
