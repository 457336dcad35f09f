import { beforeAll, describe, expect, test } from 'bun:test'
import { newId } from '../../src/lib/ids.ts'
import { ManualClock } from '../support/harness.ts'
import { choice, createTask, shortAnswer, textTask, type World, worldWithPoint } from './helpers.ts'

/**
 * Issue 56.6: reading material (a LEARNING task of type MEDIA) takes no answers: 409 40909
 * (TASK_TAKES_NO_ANSWERS), as JSON and as multipart, and nothing is stored or counted.
 * Issue 56.5a: a question added after a sheet was handed in is not counted wrong on that sheet:
 * its result says `addedAfterSubmission` with `earned: null`, and the sheet's score is over the
 * questions it was asked. A sheet handed in after the edit answers (and is scored on) all of them.
 */
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World
let pointId: string

beforeAll(async () => void ({ w, pointId } = await worldWithPoint({ clock })), 60_000)

const submit = (taskId: string, json: unknown, token = w.student.token) => w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token, json })
const sheetsOf = async (taskId: string, token = w.teacher.token) => (await w.api.get(`${w.base}/tasks/${taskId}/submissions`, { token })).data.items as any[]
const myRow = async () => (await w.api.get(`${w.base}/overview`, { token: w.student.token })).data.students[0]

describe('reading material takes no answers (issue 56.6)', () => {
  test('409 40909 for a text, link or file material, JSON or multipart; nothing stored, nothing counted', async () => {
    const before = await myRow()
    const reading = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Reading', ...textTask })
    const link = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Video', taskType: 'MEDIA', materialType: 'LINK', url: 'https://example.org/v' })
    for (const task of [reading, link]) {
      const r = await submit(task.id, { content: '<p>my notes</p>' })
      expect([r.status, r.code, r.data]).toEqual([409, 40909, null])
      expect(r.message).toMatch(/takes no answers/)
    }
    const form = new FormData()
    form.set('content', '<p>notes</p>')
    form.append('files', new File(['x'], 'notes.txt', { type: 'text/plain' }))
    const multi = await w.api.post(`${w.base}/tasks/${reading.id}/submissions`, { token: w.student.token, form })
    expect([multi.status, multi.code]).toEqual([409, 40909])
    expect(await sheetsOf(reading.id)).toEqual([])
    expect(await myRow()).toEqual(before)
  })

  test('the usual checks come first: 401 without login, 403 for the teacher, 404 for an unknown task', async () => {
    const reading = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Reading 2', ...textTask })
    const anon = await w.api.post(`${w.base}/tasks/${reading.id}/submissions`, { json: { content: '<p>x</p>' } })
    expect([anon.status, anon.code]).toEqual([401, 40100])
    const teacher = await submit(reading.id, { content: '<p>x</p>' }, w.teacher.token)
    expect([teacher.status, teacher.code]).toEqual([403, 40300])
    const outsider = await w.api.post(`${w.otherBase}/tasks/${reading.id}/submissions`, { token: w.outsider.token, json: { content: '<p>x</p>' } })
    expect([outsider.status, outsider.code]).toEqual([404, 40404])
  })

  test('a sheet handed in to material before the rule is not graded: 409 40909, the score stays empty', async () => {
    const reading = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Old reading', ...textTask })
    // As an older version of the service stored it.
    const [sheet] = await w.deps.sql<{ id: string }[]>`
      insert into learning_submissions (id, task_id, course_id, student_id, content, status, submitted_at)
      values (${newId()}, ${reading.id}, ${w.course.id}, ${w.student.id}, '<p>old</p>', 'SUBMITTED', ${clock.now()})
      returning id`
    const g = await w.api.patch(`${w.base}/submissions/${sheet!.id}/grade`, { token: w.teacher.token, json: { score: 92.5 } })
    expect([g.status, g.code]).toEqual([409, 40909])
    expect((await sheetsOf(reading.id))[0]).toMatchObject({ score: null, status: 'SUBMITTED' })
  })

  test('homework that has hand-ins cannot become material (409 40904); without hand-ins it can', async () => {
    const hw = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Lab notes', ...textTask, taskKind: 'HOMEWORK', dueAt: '2026-12-01T08:00:00.000Z' })
    const empty = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Unused', ...textTask, taskKind: 'HOMEWORK', dueAt: '2026-12-01T08:00:00.000Z' })
    expect((await submit(hw.id, { content: '<p>mine</p>' })).status).toBe(201)
    const refused = await w.api.patch(`${w.base}/tasks/${hw.id}`, { token: w.teacher.token, json: { taskKind: 'LEARNING' } })
    expect([refused.status, refused.code]).toEqual([409, 40904])
    const fine = await w.api.patch(`${w.base}/tasks/${empty.id}`, { token: w.teacher.token, json: { taskKind: 'LEARNING' } })
    expect([fine.status, fine.data.taskKind]).toEqual([200, 'LEARNING'])
  })

  test('homework and quizzes still take answers', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Q', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 1)] })
    expect((await submit(quiz.id, { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [0] }] })).status).toBe(201)
    const hw = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay', ...textTask, taskKind: 'HOMEWORK', dueAt: '2026-12-01T08:00:00.000Z' })
    expect((await submit(hw.id, { content: '<p>mine</p>' })).status).toBe(201)
  })
})

describe('a question added after a sheet was handed in (issue 56.5a)', () => {
  const asSent = (qs: any[]) => qs.map(({ id, type, stem, options, correctOptions, points }) => ({ id, type, stem, ...(type === 'SHORT_ANSWER' ? {} : { options, correctOptions }), points }))

  test('is not wrong on the old sheet: not asked, not in its score; a later sheet answers it', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Keys', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [1], 2), choice('SINGLE_CHOICE', [0], 2)] })
    const [q1, q2] = quiz.questions
    expect(q1.addedAt).toBeUndefined()
    const old = await submit(quiz.id, { answers: [{ questionId: q1.id, selectedOptions: [1] }, { questionId: q2.id, selectedOptions: [0] }] })
    expect(old.data).toMatchObject({ status: 'GRADED', score: 100, autoScore: 100 })

    clock.advance(60_000)
    const edited = await w.api.patch(`${w.base}/tasks/${quiz.id}`, { token: w.teacher.token, json: { questions: [...asSent(quiz.questions), choice('SINGLE_CHOICE', [2], 1), shortAnswer(1)] } })
    expect([edited.status, edited.code]).toEqual([200, 0])
    const [, , q3, q4] = edited.data.questions
    expect(q3.addedAt).toBe(clock.now().toISOString())
    expect(q4.addedAt).toBe(clock.now().toISOString())
    // The old sheet keeps its 100: the new questions were not on it.
    expect(edited.data.regrade).toEqual({ sheets: 1, rescored: 0, needsReview: 0 })

    for (const token of [w.teacher.token, w.student.token]) {
      const [sheet] = await sheetsOf(quiz.id, token)
      expect(sheet).toMatchObject({ id: old.data.id, score: 100, autoScore: 100, status: 'GRADED' })
      expect(sheet.questionResults).toEqual([
        { questionId: q1.id, points: 2, earned: 2, addedAfterSubmission: false },
        { questionId: q2.id, points: 2, earned: 2, addedAfterSubmission: false },
        { questionId: q3.id, points: 1, earned: null, addedAfterSubmission: true },
        { questionId: q4.id, points: 1, earned: null, addedAfterSubmission: true },
      ])
    }
    // A later edit keeps when each question was added.
    const renamed = await w.api.patch(`${w.base}/tasks/${quiz.id}`, { token: w.teacher.token, json: { title: 'Keys, again', questions: asSent(edited.data.questions) } })
    expect(renamed.data.questions.map((q: any) => q.addedAt ?? null)).toEqual([null, null, q3.addedAt, q4.addedAt])

    // Grading the old sheet by its (now absent) short answer: computed from the questions it was asked.
    const g = await w.api.patch(`${w.base}/submissions/${old.data.id}/grade`, { token: w.teacher.token, json: { questionScores: [], feedback: '<p>ok</p>' } })
    expect([g.status, g.data.score]).toEqual([200, 100])

    // A sheet handed in after the edit is asked everything: the wrong new choice counts.
    clock.advance(60_000)
    const fresh = await submit(
      quiz.id,
      { answers: [{ questionId: q1.id, selectedOptions: [1] }, { questionId: q2.id, selectedOptions: [0] }, { questionId: q3.id, selectedOptions: [0] }, { questionId: q4.id, text: 'x' }] },
      w.student2.token,
    )
    expect(fresh.data).toMatchObject({ status: 'SUBMITTED', autoScore: 80, score: null })
    const graded = await w.api.patch(`${w.base}/submissions/${fresh.data.id}/grade`, { token: w.teacher.token, json: { questionScores: [{ questionId: q4.id, score: 1 }] } })
    expect(graded.data.score).toBe(83.33)
    expect(graded.data.questionResults.map((r: any) => [r.earned, r.addedAfterSubmission])).toEqual([
      [2, false],
      [2, false],
      [0, false],
      [1, false],
    ])
  })
})
