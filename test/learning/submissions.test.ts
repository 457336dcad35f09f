import { afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../support/harness.ts'
import { BIG, choice, createTask, HOSTILE, NOT_A_UUID, pointIn, shortAnswer, essayTask, textTask, world, type World } from './helpers.ts'


const NOW = '2026-11-22T08:00:00.000Z'
const clock = new ManualClock(NOW)
let w: World
let pointId: string
let media: any
let quiz: any

beforeAll(async () => {
  w = await world({ clock })
  pointId = (await pointIn(w)).point.id
  media = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay', ...essayTask })
  quiz = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Quiz',
    taskType: 'QUIZ',
    questions: [choice('SINGLE_CHOICE', [1]), choice('MULTIPLE_CHOICE', [0, 2]), shortAnswer()],
  })
})
afterEach(() => clock.set(NOW))

const submitTo = (taskId: string, json: unknown, token = w.student.token) =>
  w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token, json })

describe('submitting', () => {
  test('MEDIA: sanitised rich text, SUBMITTED, student identified', async () => {
    const r = await submitTo(media.id, { content: `<p>My <b>answer</b></p>${HOSTILE}` })
    expect(r.status).toBe(201)
    expect(r.code).toBe(0)
    expect(r.data).toMatchObject({
      taskId: media.id,
      courseId: w.course.id,
      student: { id: w.student.id, username: w.student.username, displayName: 'Alice' },
      answers: null,
      autoScore: null,
      score: null,
      feedback: null,
      status: 'SUBMITTED',
      late: false,
      submittedAt: NOW,
      gradedAt: null,
    })
    expect(r.data.content).toStartWith('<p>My <b>answer</b></p>')
    for (const bad of ['script', 'onclick', 'onerror', 'javascript:', 'iframe']) expect(r.data.content).not.toContain(bad)
  })

  test('every submission is kept', async () => {
    const task = await createTask(w.api, w.base, w.teacher, pointId, essayTask)
    const first = await submitTo(task.id, { content: 'one' })
    clock.advance(1000)
    const second = await submitTo(task.id, { content: 'two' })
    expect(first.data.id).not.toBe(second.data.id)
    const list = await w.api.get(`${w.base}/tasks/${task.id}/submissions`, { token: w.student.token })
    expect(list.data.items.map((s: any) => s.content)).toEqual(['two', 'one'])
  })

  test('QUIZ with a short-answer question: auto score over choice questions, left SUBMITTED', async () => {
    const [q1, q2, q3] = quiz.questions
    const r = await submitTo(quiz.id, {
      answers: [
        { questionId: q1.id, selectedOptions: [1] },
        { questionId: q2.id, selectedOptions: [2, 0] },
        { questionId: q3.id, text: 'Because <script>x</script><i>reasons</i>' },
      ],
    })
    expect(r.status).toBe(201)
    expect(r.data).toMatchObject({ status: 'SUBMITTED', autoScore: 100, score: null, gradedAt: null, content: null })
    expect(r.data.answers).toEqual([
      { questionId: q1.id, selectedOptions: [1], text: null },
      { questionId: q2.id, selectedOptions: [0, 2], text: null },
      { questionId: q3.id, selectedOptions: [], text: 'Because <i>reasons</i>' },
    ])
  })

  const scoring: [string, any[], { q: number; selected?: number[] }[], number][] = [
    ['single right', [choice('SINGLE_CHOICE', [2])], [{ q: 0, selected: [2] }], 100],
    ['single wrong', [choice('SINGLE_CHOICE', [2])], [{ q: 0, selected: [1] }], 0],
    ['single unanswered', [choice('SINGLE_CHOICE', [2])], [], 0],
    ['single empty selection', [choice('SINGLE_CHOICE', [2])], [{ q: 0, selected: [] }], 0],
    ['multiple exact', [choice('MULTIPLE_CHOICE', [0, 3])], [{ q: 0, selected: [3, 0] }], 100],
    ['multiple partial', [choice('MULTIPLE_CHOICE', [0, 3])], [{ q: 0, selected: [0] }], 0],
    ['multiple superset', [choice('MULTIPLE_CHOICE', [0, 3])], [{ q: 0, selected: [0, 1, 3] }], 0],
    ['multiple wrong', [choice('MULTIPLE_CHOICE', [0, 3])], [{ q: 0, selected: [1, 2] }], 0],
    [
      'weighted by points',
      [choice('SINGLE_CHOICE', [0], 1), choice('MULTIPLE_CHOICE', [1, 2], 3)],
      [{ q: 0, selected: [0] }, { q: 1, selected: [1] }],
      25,
    ],
    [
      'weighted, the heavy one right',
      [choice('SINGLE_CHOICE', [0], 1), choice('MULTIPLE_CHOICE', [1, 2], 3)],
      [{ q: 0, selected: [1] }, { q: 1, selected: [1, 2] }],
      75,
    ],
    [
      'thirds round to two decimals',
      [choice('SINGLE_CHOICE', [0]), choice('SINGLE_CHOICE', [0]), choice('SINGLE_CHOICE', [0])],
      [{ q: 0, selected: [0] }, { q: 1, selected: [1] }, { q: 2, selected: [1] }],
      33.33,
    ],
    ['decimal points', [choice('SINGLE_CHOICE', [0], 0.5), choice('SINGLE_CHOICE', [0], 1.5)], [{ q: 0, selected: [0] }], 25],
  ]
  test.each(scoring)('choice-only quiz is GRADED at once: %s', async (_name, questions, picks, expected) => {
    const task = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions })
    const answers = picks.map((p) => ({ questionId: task.questions[p.q].id, selectedOptions: p.selected }))
    const r = await submitTo(task.id, { answers })
    expect(r.status).toBe(201)
    expect(r.data).toMatchObject({ status: 'GRADED', autoScore: expected, score: expected, gradedAt: NOW })
  })

  test('mixed quiz: auto score ignores the short answer and stays SUBMITTED', async () => {
    const task = await createTask(w.api, w.base, w.teacher, pointId, {
      taskType: 'QUIZ',
      questions: [choice('SINGLE_CHOICE', [0], 2), choice('MULTIPLE_CHOICE', [1, 2], 2), shortAnswer(10)],
    })
    const [a, b, c] = task.questions
    const r = await submitTo(task.id, {
      answers: [
        { questionId: a.id, selectedOptions: [0] },
        { questionId: b.id, selectedOptions: [1] },
        { questionId: c.id, text: 'my words' },
      ],
    })
    expect(r.data).toMatchObject({ status: 'SUBMITTED', autoScore: 50, score: null })
  })

  test('short-answer-only quiz: no auto score', async () => {
    const task = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [shortAnswer()] })
    const r = await submitTo(task.id, { answers: [{ questionId: task.questions[0].id, text: 'x' }] })
    expect(r.data).toMatchObject({ status: 'SUBMITTED', autoScore: null, score: null })
  })

  test('late after dueAt (accepted and flagged); refused before a homework opens', async () => {
    const hw = await createTask(w.api, w.base, w.teacher, pointId, {
      ...textTask,
      taskKind: 'HOMEWORK',
      startAt: '2026-11-23T00:00:00Z',
      dueAt: '2026-11-24T00:00:00Z',
    })
    const early = await submitTo(hw.id, { content: 'early' })
    expect(early.status).toBe(409)
    expect(early.code).toBe(40900)
    expect(early.message).toContain('2026-11-23T00:00:00.000Z')
    clock.set('2026-11-24T00:00:00.000Z')
    const onTime = await submitTo(hw.id, { content: 'exactly at the deadline' })
    expect(onTime.data.late).toBe(false)
    clock.set('2026-11-24T00:00:00.001Z')
    const late = await submitTo(hw.id, { content: 'a millisecond late' })
    expect(late.status).toBe(201)
    expect(late.data).toMatchObject({ late: true, submittedAt: '2026-11-24T00:00:00.001Z' })
  })

  test('401 anonymous; 403 for the teacher, another teacher and non-members; 404 ids of other courses', async () => {
    expect((await w.api.post(`${w.base}/tasks/${media.id}/submissions`, { json: { content: 'x' } })).status).toBe(401)
    for (const who of [w.teacher, w.otherTeacher, w.outsider]) {
      const r = await submitTo(media.id, { content: 'x' }, who.token)
      expect(r.status).toBe(403)
      expect(r.code).toBe(40300)
    }
    const foreign = await pointIn({ api: w.api, base: w.otherBase, teacher: w.otherTeacher })
    const foreignTask = await createTask(w.api, w.otherBase, w.otherTeacher, foreign.point.id, textTask)
    for (const id of [foreignTask.id, '01900000-0000-7000-8000-000000000000']) {
      const r = await submitTo(id, { content: 'x' })
      expect(r.status).toBe(404)
      expect(r.code).toBe(40404)
    }
    // The student is not in the other course either way.
    expect((await w.api.post(`${w.otherBase}/tasks/${foreignTask.id}/submissions`, { token: w.student.token, json: { content: 'x' } })).status).toBe(403)
    expect((await submitTo(NOT_A_UUID, { content: 'x' })).status).toBe(400)
  })

  test('400 for bodies that do not fit the task', async () => {
    const [q1, q2, q3] = quiz.questions
    const unknownQ = '01900000-0000-7000-8000-000000000000'
    const cases: [string, unknown, string][] = [
      ['MEDIA without content', {}, 'content'],
      ['MEDIA with answers', { content: 'x', answers: [] }, 'answers'],
      ['MEDIA content is only a script', { content: '<script>x</script>' }, 'content'],
      ['MEDIA 200 KB content', { content: BIG }, 'content'],
      ['MEDIA content not a string', { content: 12 }, 'content'],
    ]
    for (const [name, json, field] of cases) {
      const r = await submitTo(media.id, json)
      expect([name, r.status, r.code]).toEqual([name, 400, 40001])
      expect(r.data.fields.map((f: any) => f.field)).toContain(field)
    }
    const quizCases: [string, unknown, string][] = [
      ['QUIZ without answers', {}, 'answers'],
      ['QUIZ with content', { content: 'x' }, 'content'],
      ['unknown question', { answers: [{ questionId: unknownQ, selectedOptions: [0] }] }, 'answers.0.questionId'],
      ['non-UUID question', { answers: [{ questionId: 'q1', selectedOptions: [0] }] }, 'answers.0.questionId'],
      ['twice the same question', { answers: [{ questionId: q1.id, selectedOptions: [0] }, { questionId: q1.id, selectedOptions: [1] }] }, 'answers.1.questionId'],
      ['option out of range', { answers: [{ questionId: q1.id, selectedOptions: [4] }] }, 'answers.0.selectedOptions'],
      ['negative option', { answers: [{ questionId: q1.id, selectedOptions: [-1] }] }, 'answers.0.selectedOptions.0'],
      ['option not a number', { answers: [{ questionId: q1.id, selectedOptions: ['A'] }] }, 'answers.0.selectedOptions.0'],
      ['two options on single choice', { answers: [{ questionId: q1.id, selectedOptions: [0, 1] }] }, 'answers.0.selectedOptions'],
      ['repeated option', { answers: [{ questionId: q2.id, selectedOptions: [0, 0] }] }, 'answers.0.selectedOptions'],
      ['text on a choice question', { answers: [{ questionId: q1.id, text: 'B' }] }, 'answers.0.text'],
      ['options on a short answer', { answers: [{ questionId: q3.id, selectedOptions: [0] }] }, 'answers.0.selectedOptions'],
      ['200 KB text', { answers: [{ questionId: q3.id, text: BIG }] }, 'answers.0.text'],
      ['answers not an array', { answers: { questionId: q1.id } }, 'answers'],
    ]
    for (const [name, json, field] of quizCases) {
      const r = await submitTo(quiz.id, json)
      expect([name, r.status, r.code]).toEqual([name, 400, 40001])
      expect([name, r.data.fields.map((f: any) => f.field)]).toEqual([name, expect.arrayContaining([field])])
    }
  })
})

describe('listing submissions', () => {
  test('teacher sees everyone newest first, paginated and filterable; a student only their own', async () => {
    const task = await createTask(w.api, w.base, w.teacher, pointId, essayTask)
    const made: string[] = []
    for (const [who, content] of [[w.student, 'a1'], [w.student2, 'b1'], [w.student, 'a2']] as const) {
      clock.advance(1000)
      made.push((await submitTo(task.id, { content }, who.token)).data.id)
    }
    const all = await w.api.get(`${w.base}/tasks/${task.id}/submissions`, { token: w.teacher.token })
    expect(all.status).toBe(200)
    expect(all.data).toMatchObject({ total: 3, page: 1, pageSize: 50 })
    expect(all.data.items.map((s: any) => s.content)).toEqual(['a2', 'b1', 'a1'])
    expect(all.data.items[1].student).toEqual({ id: w.student2.id, username: w.student2.username, displayName: 'Bob' })

    const paged = await w.api.get(`${w.base}/tasks/${task.id}/submissions?page=2&pageSize=2`, { token: w.teacher.token })
    expect(paged.data).toMatchObject({ total: 3, page: 2, pageSize: 2 })
    expect(paged.data.items.map((s: any) => s.id)).toEqual([made[0]])

    const bob = await w.api.get(`${w.base}/tasks/${task.id}/submissions?studentId=${w.student2.id}`, { token: w.teacher.token })
    expect(bob.data.items.map((s: any) => s.content)).toEqual(['b1'])
    expect(bob.data.total).toBe(1)

    const mine = await w.api.get(`${w.base}/tasks/${task.id}/submissions`, { token: w.student.token })
    expect(mine.data.items.map((s: any) => s.content)).toEqual(['a2', 'a1'])
    // A student cannot widen the filter to someone else.
    const peek = await w.api.get(`${w.base}/tasks/${task.id}/submissions?studentId=${w.student2.id}`, { token: w.student.token })
    expect(peek.data.items.map((s: any) => s.content)).toEqual(['a2', 'a1'])
  })

  test('401, 403, 400, 404', async () => {
    const path = `${w.base}/tasks/${media.id}/submissions`
    expect((await w.api.get(path)).status).toBe(401)
    for (const who of [w.outsider, w.otherTeacher]) expect((await w.api.get(path, { token: who.token })).status).toBe(403)
    for (const q of ['?page=0', '?pageSize=500', '?page=abc', `?studentId=${NOT_A_UUID}`]) {
      const r = await w.api.get(path + q, { token: w.teacher.token })
      expect([q, r.status]).toEqual([q, 400])
    }
    expect((await w.api.get(`${w.base}/tasks/${NOT_A_UUID}/submissions`, { token: w.teacher.token })).status).toBe(400)
    const unknown = await w.api.get(`${w.base}/tasks/01900000-0000-7000-8000-000000000000/submissions`, { token: w.teacher.token })
    expect(unknown.status).toBe(404)
    expect(unknown.code).toBe(40404)
  })
})

describe('grading', () => {
  const gradePath = (id: string) => `${w.base}/submissions/${id}/grade`

  test('grade, regrade, and the student is notified each time', async () => {
    const sub = (await submitTo(media.id, { content: 'grade me' })).data
    clock.set('2026-11-22T09:00:00.000Z')
    const r = await w.api.patch(gradePath(sub.id), { token: w.teacher.token, json: { score: 87.5, feedback: `<p>Good</p>${HOSTILE}` } })
    expect(r.status).toBe(200)
    expect(r.code).toBe(0)
    expect(r.data).toMatchObject({ id: sub.id, status: 'GRADED', score: 87.5, gradedAt: '2026-11-22T09:00:00.000Z', student: { id: w.student.id } })
    expect(r.data.feedback).toStartWith('<p>Good</p>')
    expect(r.data.feedback).not.toContain('script')

    clock.set('2026-11-22T10:00:00.000Z')
    const again = await w.api.patch(gradePath(sub.id), { token: w.teacher.token, json: { score: 100 } })
    expect(again.data).toMatchObject({ score: 100, gradedAt: '2026-11-22T10:00:00.000Z' })
    expect(again.data.feedback).toStartWith('<p>Good</p>') // omitted: kept, as for experiments
    const cleared = await w.api.patch(gradePath(sub.id), { token: w.teacher.token, json: { score: 100, feedback: null } })
    expect(cleared.data).toMatchObject({ score: 100, feedback: null })

    // The row stores params, no wording (issue 28): the score is in params.
    const notes = await w.deps.sql<{ notification_type: string; action_path: string; content: string; delivered_at: Date }[]>`
      select notification_type, action_path, (params->>'score') || '/100' as content, delivered_at from notifications
       where user_id = ${w.student.id} and action_path like ${`%taskId=${media.id}`} order by delivered_at`
    expect(notes).toHaveLength(3) // one per grading, the clearing regrade included
    expect(notes[0]).toMatchObject({ notification_type: 'SUBMISSION_GRADED', action_path: `/courses/${w.course.id}?taskId=${media.id}` })
    expect(notes[0]!.content).toContain('87.5/100')
    expect(notes[1]!.content).toContain('100/100')
    expect(notes[1]!.delivered_at.toISOString()).toBe('2026-11-22T10:00:00.000Z')

    const seen = await w.api.get(`${w.base}/tasks/${media.id}/submissions`, { token: w.student.token })
    expect(seen.data.items.find((s: any) => s.id === sub.id)).toMatchObject({ score: 100, status: 'GRADED' })
  })

  test('a teacher can override an automatic grade; bounds and decimals', async () => {
    const task = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0])] })
    const sub = (await submitTo(task.id, { answers: [{ questionId: task.questions[0].id, selectedOptions: [1] }] })).data
    expect(sub).toMatchObject({ status: 'GRADED', score: 0 })
    for (const score of [0, 100, 59.99]) {
      const r = await w.api.patch(gradePath(sub.id), { token: w.teacher.token, json: { score } })
      expect(r.status).toBe(200)
      expect(r.data).toMatchObject({ score, autoScore: 0 })
    }
  })

  test('400 for anything not a number from 0 to 100', async () => {
    const sub = (await submitTo(media.id, { content: 'x' })).data
    for (const json of [{}, { score: -0.01 }, { score: 100.01 }, { score: 1e309 }, { score: '90' }, { score: null }, { score: true }, { score: [50] }, { score: 50, feedback: BIG }, { score: 50, feedback: 3 }]) {
      const r = await w.api.patch(gradePath(sub.id), { token: w.teacher.token, json })
      expect([JSON.stringify(json).slice(0, 40), r.status, r.code]).toEqual([JSON.stringify(json).slice(0, 40), 400, 40001])
    }
    const raw = await w.api.patch(gradePath(sub.id), { token: w.teacher.token, raw: '{"score": NaN}', headers: { 'content-type': 'application/json' } })
    expect(raw.status).toBe(400)
  })

  test('401, 403, 404', async () => {
    const sub = (await submitTo(media.id, { content: 'x' })).data
    expect((await w.api.patch(gradePath(sub.id), { json: { score: 1 } })).status).toBe(401)
    for (const who of [w.student, w.student2, w.outsider, w.otherTeacher]) {
      const r = await w.api.patch(gradePath(sub.id), { token: who.token, json: { score: 1 } })
      expect(r.status).toBe(403)
    }
    // The other course's teacher, through their own course: the submission is not theirs.
    const viaOther = await w.api.patch(`${w.otherBase}/submissions/${sub.id}/grade`, { token: w.otherTeacher.token, json: { score: 1 } })
    expect(viaOther.status).toBe(404)
    expect(viaOther.code).toBe(40405)
    const unknown = await w.api.patch(gradePath('01900000-0000-7000-8000-000000000000'), { token: w.teacher.token, json: { score: 1 } })
    expect(unknown.status).toBe(404)
    expect(unknown.code).toBe(40405)
    expect((await w.api.patch(gradePath(NOT_A_UUID), { token: w.teacher.token, json: { score: 1 } })).status).toBe(400)
    const untouched = await w.api.get(`${w.base}/tasks/${media.id}/submissions?studentId=${w.student.id}`, { token: w.teacher.token })
    expect(untouched.data.items.find((s: any) => s.id === sub.id)).toMatchObject({ status: 'SUBMITTED', score: null })
  })
})
