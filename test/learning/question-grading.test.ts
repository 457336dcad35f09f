import { beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../support/harness.ts'
import { choice, createTask, pointIn, shortAnswer, essayTask, textTask, world, type World } from './helpers.ts'

/**
 * Per-question grading (issue 14): the teacher scores each short-answer question within its
 * points; the final score is (choice points earned + short-answer points awarded) ÷ total points
 * × 100 unless the teacher gives `score` (override). The old `{ score }` body keeps working.
 */
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World
let quiz: any
let media: any
let choiceQ: any, essay1: any, essay2: any

beforeAll(async () => {
  w = await world({ clock })
  const pointId = (await pointIn(w)).point.id
  // 2 choice points + 4 + 4 short-answer points = 10 in all.
  quiz = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Mixed quiz',
    taskType: 'QUIZ',
    questions: [choice('SINGLE_CHOICE', [1], 2), shortAnswer(4), shortAnswer(4)],
  })
  ;[choiceQ, essay1, essay2] = quiz.questions
  media = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay', ...essayTask })
}, 60_000)

const sheet = async (right = true) => {
  const r = await w.api.post(`${w.base}/tasks/${quiz.id}/submissions`, {
    token: w.student.token,
    json: {
      answers: [
        { questionId: choiceQ.id, selectedOptions: [right ? 1 : 0] },
        { questionId: essay1.id, text: 'first' },
        { questionId: essay2.id, text: 'second' },
      ],
    },
  })
  expect(r.status).toBe(201)
  return r.data
}
const grade = (id: string, json: unknown, token = w.teacher.token) => w.api.patch(`${w.base}/submissions/${id}/grade`, { token, json })

describe('per-question grading', () => {
  test('a new sheet has no question scores and stays ungraded (no score is made up)', async () => {
    const sub = await sheet()
    expect(sub).toMatchObject({ status: 'SUBMITTED', autoScore: 100, score: null, questionScores: [] })
  })

  test('complete question scores compute the final score from points', async () => {
    const sub = await sheet()
    const r = await grade(sub.id, { questionScores: [{ questionId: essay1.id, score: 3 }, { questionId: essay2.id, score: 2.5 }], feedback: '<p>ok</p>' })
    expect([r.status, r.code]).toEqual([200, 0])
    // (2 + 3 + 2.5) / 10 × 100
    expect(r.data).toMatchObject({ status: 'GRADED', score: 75, feedback: '<p>ok</p>' })
    expect(r.data.questionScores).toEqual([
      { questionId: essay1.id, score: 3 },
      { questionId: essay2.id, score: 2.5 },
    ])
    // Returned on the listing too.
    const list = await w.api.get(`${w.base}/tasks/${quiz.id}/submissions?studentId=${w.student.id}`, { token: w.teacher.token })
    expect(list.data.items.find((s: any) => s.id === sub.id).questionScores).toHaveLength(2)
    // The student sees the same sheet.
    const mine = await w.api.get(`${w.base}/tasks/${quiz.id}/submissions`, { token: w.student.token })
    expect(mine.data.items.find((s: any) => s.id === sub.id)).toMatchObject({ score: 75, questionScores: r.data.questionScores })
  })

  test('a wrong choice earns nothing; scores merge over several saves; regrading one question recomputes', async () => {
    const sub = await sheet(false)
    const partial = await grade(sub.id, { questionScores: [{ questionId: essay1.id, score: 4 }] })
    // One short answer still unscored and no override: refused, nothing stored.
    expect([partial.status, partial.code]).toEqual([400, 40001])
    expect(partial.data.fields.map((f: any) => f.field)).toEqual(['score'])
    const withOverride = await grade(sub.id, { questionScores: [{ questionId: essay1.id, score: 4 }], score: 10 })
    expect(withOverride.data).toMatchObject({ status: 'GRADED', score: 10, questionScores: [{ questionId: essay1.id, score: 4 }] })
    const rest = await grade(sub.id, { questionScores: [{ questionId: essay2.id, score: 4 }] })
    expect(rest.status).toBe(200)
    // (0 + 4 + 4) / 10 × 100; the earlier question score was kept.
    expect(rest.data).toMatchObject({ score: 80, questionScores: [{ questionId: essay1.id, score: 4 }, { questionId: essay2.id, score: 4 }] })
    const regrade = await grade(sub.id, { questionScores: [{ questionId: essay1.id, score: 0 }] })
    expect(regrade.data.score).toBe(40)
  })

  test('a given score overrides the computation; the old body alone still works and keeps question scores', async () => {
    const sub = await sheet()
    const over = await grade(sub.id, { questionScores: [{ questionId: essay1.id, score: 4 }, { questionId: essay2.id, score: 4 }], score: 55.5 })
    expect(over.data).toMatchObject({ score: 55.5, status: 'GRADED' })
    const plain = await grade(sub.id, { score: 90 })
    expect(plain.status).toBe(200)
    expect(plain.data).toMatchObject({ score: 90, questionScores: [{ questionId: essay1.id, score: 4 }, { questionId: essay2.id, score: 4 }] })
    const mediaSub = (await w.api.post(`${w.base}/tasks/${media.id}/submissions`, { token: w.student.token, json: { content: 'x' } })).data
    const m = await grade(mediaSub.id, { score: 70 })
    expect(m.data).toMatchObject({ score: 70, questionScores: [] })
  })

  test('400: above the points, below zero, unknown question, choice question, twice, MEDIA task, nothing given', async () => {
    const sub = await sheet()
    const cases: [unknown, string][] = [
      [{ questionScores: [{ questionId: essay1.id, score: 4.01 }] }, 'questionScores.0.score'],
      [{ questionScores: [{ questionId: essay1.id, score: -1 }] }, 'questionScores.0.score'],
      [{ questionScores: [{ questionId: '01900000-0000-7000-8000-000000000000', score: 1 }] }, 'questionScores.0.questionId'],
      [{ questionScores: [{ questionId: choiceQ.id, score: 1 }], score: 50 }, 'questionScores.0.questionId'],
      [{ questionScores: [{ questionId: essay1.id, score: 1 }, { questionId: essay1.id, score: 2 }] }, 'questionScores.1.questionId'],
      [{ questionScores: [{ questionId: essay1.id, score: '3' }] }, 'questionScores.0.score'],
      [{}, 'score'],
    ]
    for (const [json, field] of cases) {
      const r = await grade(sub.id, json)
      expect([JSON.stringify(json).slice(0, 60), r.status, r.code]).toEqual([JSON.stringify(json).slice(0, 60), 400, 40001])
      expect(r.data.fields.map((f: any) => f.field)).toContain(field)
    }
    const mediaSub = (await w.api.post(`${w.base}/tasks/${media.id}/submissions`, { token: w.student.token, json: { content: 'x' } })).data
    const onMedia = await grade(mediaSub.id, { questionScores: [{ questionId: essay1.id, score: 1 }] })
    expect([onMedia.status, onMedia.code, onMedia.data.fields[0].field]).toEqual([400, 40001, 'questionScores'])
    // None of it graded the sheet.
    const list = await w.api.get(`${w.base}/tasks/${quiz.id}/submissions?studentId=${w.student.id}`, { token: w.teacher.token })
    expect(list.data.items.find((s: any) => s.id === sub.id)).toMatchObject({ status: 'SUBMITTED', score: null, questionScores: [] })
  })

  test('403 for students and other teachers; 404 for an unknown sheet or one of another course', async () => {
    const sub = await sheet()
    const body = { questionScores: [{ questionId: essay1.id, score: 1 }, { questionId: essay2.id, score: 1 }] }
    for (const who of [w.student, w.student2, w.otherTeacher, w.outsider]) {
      const r = await grade(sub.id, body, who.token)
      expect([r.status, r.code]).toEqual([403, 40300])
    }
    const unknown = await grade('01900000-0000-7000-8000-000000000000', body)
    expect([unknown.status, unknown.code]).toEqual([404, 40405])
    const viaOther = await w.api.patch(`${w.otherBase}/submissions/${sub.id}/grade`, { token: w.otherTeacher.token, json: body })
    expect([viaOther.status, viaOther.code]).toEqual([404, 40405])
  })
})

test('OpenAPI documents questionScores on the body and the submission', async () => {
  const doc = await (await w.app.handle(new Request('http://localhost/v3/api-docs'))).json()
  const op = doc.paths['/api/v1/courses/{courseId}/learning/submissions/{submissionId}/grade'].patch
  const body = op.requestBody.content['application/json'].schema
  expect(body.properties.questionScores.items.required).toEqual(['questionId', 'score'])
  expect(body.required ?? []).not.toContain('score')
  const submission = op.responses['200'].content['application/json'].schema.properties.data
  expect(submission.properties.questionScores.type).toBe('array')
  expect(submission.required).toContain('questionScores')
})
