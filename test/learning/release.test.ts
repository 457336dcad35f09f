import { beforeAll, describe, expect, test } from 'bun:test'
import { formOf } from '../storage/helpers.ts'
import { ManualClock } from '../support/harness.ts'
import { choice, createTask, essayTask, NOT_A_UUID, pointIn, textTask, world, type World } from './helpers.ts'

/**
 * Grades released when the teacher says (issue 54): under MANUAL release a grade is the
 * teacher's only until POST …/release, and every route a student reads a score from shows the
 * sheet as handed in (SUBMITTED, no score, no feedback), their totals leave it out and nobody is
 * told; the release tells each student once. Experiments the same way.
 */
const clock = new ManualClock('2026-12-01T08:00:00.000Z')
let w: World
let pointId: string
let essay: any
let quiz: any
const UNKNOWN = '01900000-0000-7000-8000-000000000000'

beforeAll(async () => {
  w = await world({ clock })
  pointId = (await pointIn(w)).point.id
  essay = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay 3', ...essayTask, gradeRelease: 'MANUAL' })
  quiz = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Choice quiz',
    taskKind: 'HOMEWORK',
    dueAt: '2099-12-31T00:00:00.000Z',
    taskType: 'QUIZ',
    gradeRelease: 'MANUAL',
    questions: [choice('SINGLE_CHOICE', [1], 2)],
  })
}, 60_000)

const hand = async (taskId: string, token: string, json: unknown) => {
  const r = await w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token, json })
  expect(r.status).toBe(201)
  return r.data
}
const grade = (id: string, json: unknown) => w.api.patch(`${w.base}/submissions/${id}/grade`, { token: w.teacher.token, json })
const graded = async (token: string) => {
  const r = await w.api.get('/notifications?pageSize=100', { token })
  expect(r.status).toBe(200)
  return (r.data.items as any[]).filter((n) => n.type === 'SUBMISSION_GRADED')
}

/** Every student-facing answer that carries a score of `taskId` for `token`'s student. */
async function studentViews(taskId: string, token: string) {
  const [sheets, mine, overview] = await Promise.all([
    w.api.get(`${w.base}/tasks/${taskId}/submissions`, { token }),
    w.api.get('/homeworks/mine', { token }),
    w.api.get(`${w.base}/overview`, { token }),
  ])
  for (const r of [sheets, mine, overview]) expect([r.status, r.code]).toEqual([200, 0])
  return {
    sheet: sheets.data.items[0],
    homework: (mine.data.items as any[]).find((h) => h.taskId === taskId),
    overview: overview.data.students[0],
  }
}

describe('MANUAL release of a task', () => {
  let aliceSheet: any, bobSheet: any, quizSheet: any

  test('the task says MANUAL; a grade is held: the teacher sees it (released: false), nobody is told', async () => {
    expect(essay.gradeRelease).toBe('MANUAL')
    aliceSheet = await hand(essay.id, w.student.token, { content: '<p>mine</p>' })
    bobSheet = await hand(essay.id, w.student2.token, { content: '<p>bob</p>' })
    const r = await grade(aliceSheet.id, { score: 88, feedback: '<p>Well argued</p>' })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data).toMatchObject({ status: 'GRADED', score: 88, feedback: '<p>Well argued</p>', released: false })
    expect((await grade(bobSheet.id, { score: 70 })).data).toMatchObject({ score: 70, released: false })
    const list = await w.api.get(`${w.base}/tasks/${essay.id}/submissions`, { token: w.teacher.token })
    expect(list.data.items.map((s: any) => [s.student.id, s.score, s.released]).sort()).toEqual(
      [[w.student.id, 88, false], [w.student2.id, 70, false]].sort(),
    )
    expect(await graded(w.student.token)).toEqual([])
  })

  test('every student-facing route shows the sheet as handed in; the totals leave it out', async () => {
    const v = await studentViews(essay.id, w.student.token)
    expect(v.sheet).toMatchObject({ id: aliceSheet.id, status: 'SUBMITTED', score: null, feedback: null, gradedAt: null, rubricChoices: [] })
    expect(v.sheet.released).toBeUndefined()
    expect(v.homework).toMatchObject({ status: 'SUBMITTED', score: null })
    expect(v.overview).toMatchObject({ gradedTasks: 0, averageScore: null })
    // The teacher's gradebook is built from the same released columns.
    const book = await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })
    expect(book.status).toBe(200)
    expect(book.data.students.map((s: any) => [s.gradedCount, s.cells, s.status[essay.id]])).toEqual([
      [0, {}, 'NOT_GRADED'],
      [0, {}, 'NOT_GRADED'],
    ])
  })

  test('a quiz graded at once is held too: no score and no autoScore for the student', async () => {
    quizSheet = await hand(quiz.id, w.student.token, { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [1] }] })
    expect(quizSheet).toMatchObject({ status: 'SUBMITTED', score: null, autoScore: null, questionResults: [] })
    const v = await studentViews(quiz.id, w.student.token)
    expect(v.sheet).toMatchObject({ status: 'SUBMITTED', score: null, autoScore: null, questionResults: [] })
    const teacher = await w.api.get(`${w.base}/tasks/${quiz.id}/submissions`, { token: w.teacher.token })
    expect(teacher.data.items[0]).toMatchObject({ status: 'GRADED', score: 100, autoScore: 100, released: false })
  })

  test('back to AUTOMATIC while grades are held: 409 GRADES_HELD', async () => {
    const r = await w.api.patch(`${w.base}/tasks/${essay.id}`, { token: w.teacher.token, json: { gradeRelease: 'AUTOMATIC' } })
    expect([r.status, r.code]).toEqual([409, 40940])
  })

  test('the release shows the grades and tells each student once; a second release tells nobody', async () => {
    const r = await w.api.post(`${w.base}/tasks/${essay.id}/release`, { token: w.teacher.token })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data).toEqual({ released: 2, notified: 2 })
    const v = await studentViews(essay.id, w.student.token)
    expect(v.sheet).toMatchObject({ status: 'GRADED', score: 88, feedback: '<p>Well argued</p>' })
    expect(v.homework.score).toBe(88)
    expect(v.overview).toMatchObject({ gradedTasks: 1, averageScore: 88 })
    const told = await graded(w.student.token)
    expect(told).toHaveLength(1)
    expect(told[0].params).toMatchObject({ subject: 'TASK', title: 'Essay 3', score: 88 })
    expect(told[0].actionPath).toBe(`/courses/${w.course.id}?taskId=${essay.id}`)
    expect(await graded(w.student2.token)).toHaveLength(1)
    expect((await w.api.post(`${w.base}/tasks/${essay.id}/release`, { token: w.teacher.token })).data).toEqual({ released: 0, notified: 0 })
    expect(await graded(w.student.token)).toHaveLength(1)
  })

  test('a regrade after the release waits for the next one; the student keeps the released grade', async () => {
    expect((await grade(aliceSheet.id, { score: 95 })).data).toMatchObject({ score: 95, feedback: '<p>Well argued</p>', released: false })
    const v = await studentViews(essay.id, w.student.token)
    expect(v.sheet).toMatchObject({ status: 'GRADED', score: 88, feedback: '<p>Well argued</p>' })
    expect((await w.api.post(`${w.base}/tasks/${essay.id}/release`, { token: w.teacher.token })).data).toEqual({ released: 1, notified: 1 })
    expect((await studentViews(essay.id, w.student.token)).sheet.score).toBe(95)
    // Released, nothing held: AUTOMATIC again is allowed.
    const r = await w.api.patch(`${w.base}/tasks/${essay.id}`, { token: w.teacher.token, json: { gradeRelease: 'AUTOMATIC' } })
    expect([r.status, r.data.gradeRelease]).toEqual([200, 'AUTOMATIC'])
  })

  test('AUTOMATIC (the default) is as before: the grade shows and is told at once', async () => {
    const task = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Auto', ...essayTask })
    expect(task.gradeRelease).toBe('AUTOMATIC')
    const sheet = await hand(task.id, w.student2.token, { content: '<p>x</p>' })
    const before = (await graded(w.student2.token)).length
    expect((await grade(sheet.id, { score: 60 })).data).toMatchObject({ score: 60, released: true })
    expect((await studentViews(task.id, w.student2.token)).sheet).toMatchObject({ status: 'GRADED', score: 60 })
    expect(await graded(w.student2.token)).toHaveLength(before + 1)
  })

  test('release: 401, 403 (student, other teacher), 404 (unknown task, task of another course), 400 (bad id)', async () => {
    const path = `${w.base}/tasks/${quiz.id}/release`
    expect((await w.api.post(path)).status).toBe(401)
    expect((await w.api.post(path, { token: w.student.token })).code).toBe(40300)
    expect((await w.api.post(path, { token: w.otherTeacher.token })).status).toBe(403)
    const unknown = await w.api.post(`${w.base}/tasks/${UNKNOWN}/release`, { token: w.teacher.token })
    expect([unknown.status, unknown.code]).toEqual([404, 40404])
    const otherPoint = (await pointIn({ api: w.api, base: w.otherBase, teacher: w.otherTeacher })).point.id
    const foreign = await createTask(w.api, w.otherBase, w.otherTeacher, otherPoint, { ...textTask })
    expect((await w.api.post(`${w.base}/tasks/${foreign.id}/release`, { token: w.teacher.token })).status).toBe(404)
    expect((await w.api.post(`${w.base}/tasks/${NOT_A_UUID}/release`, { token: w.teacher.token })).status).toBe(400)
    // The quiz's held sheet is released here (after the checks above changed nothing).
    expect((await w.api.post(path, { token: w.teacher.token })).data).toEqual({ released: 1, notified: 1 })
  })

  test('gradeRelease must be AUTOMATIC or MANUAL', async () => {
    const r = await w.api.patch(`${w.base}/tasks/${quiz.id}`, { token: w.teacher.token, json: { gradeRelease: 'LATER' } })
    expect([r.status, r.code]).toEqual([400, 40001])
  })
})

describe('MANUAL release of an experiment', () => {
  let experiment: any
  const report = (token: string) =>
    w.api.post(`/experiments/${experiment.id}/submissions`, { token, form: formOf({ file: new File(['%PDF-1.4 lab'], 'lab.pdf', { type: 'application/pdf' }) }) })

  test('held grades stay out of the detail, the submissions, the latest and "my experiments" until the release', async () => {
    const c = await w.api.post(`/courses/${w.course.id}/experiments`, {
      token: w.teacher.token,
      json: { title: 'Lab 2', description: '<p>Measure</p>', dueAt: '2099-12-31T00:00:00Z', gradeRelease: 'MANUAL' },
    })
    expect([c.status, c.data.gradeRelease]).toEqual([201, 'MANUAL'])
    experiment = c.data
    const sub = await report(w.student.token)
    expect(sub.status).toBe(201)
    const g = await w.api.patch(`/submissions/${sub.data.id}/grade`, { token: w.teacher.token, json: { score: 77, feedback: '<p>ok</p>' } })
    expect([g.status, g.data.score, g.data.released]).toEqual([200, 77, false])
    const token = w.student.token
    const views = async () => {
      const [detail, list, latest, mine] = await Promise.all([
        w.api.get(`/courses/${w.course.id}/experiments/${experiment.id}`, { token }),
        w.api.get(`/experiments/${experiment.id}/submissions`, { token }),
        w.api.get(`/experiments/${experiment.id}/submissions/latest`, { token }),
        w.api.get(`/experiments/mine?courseId=${w.course.id}`, { token }),
      ])
      for (const r of [detail, list, latest, mine]) expect(r.status).toBe(200)
      return [detail.data.mySubmission, list.data.items[0], latest.data, (mine.data.items as any[]).find((e) => e.experimentId === experiment.id)]
    }
    for (const v of await views()) expect(v).toMatchObject({ score: null })
    for (const v of (await views()).slice(0, 3)) expect(v).toMatchObject({ feedback: null, gradedAt: null })
    // The essay and the quiz released above; the held lab report is not counted.
    expect((await studentViews(essay.id, token)).overview.gradedTasks).toBe(2)
    const before = (await graded(token)).length
    const bad = await w.api.patch(`/courses/${w.course.id}/experiments/${experiment.id}`, { token: w.teacher.token, json: { gradeRelease: 'AUTOMATIC' } })
    expect([bad.status, bad.code]).toEqual([409, 40940])

    const r = await w.api.post(`/experiments/${experiment.id}/release`, { token: w.teacher.token })
    expect([r.status, r.code, r.data]).toEqual([200, 0, { released: 1, notified: 1 }])
    for (const v of await views()) expect(v).toMatchObject({ score: 77 })
    const told = await graded(token)
    expect(told).toHaveLength(before + 1)
    expect(told[0]).toMatchObject({ actionPath: `/experiments/${experiment.id}?courseId=${w.course.id}`, params: { subject: 'EXPERIMENT', score: 77 } })
    expect((await w.api.post(`/experiments/${experiment.id}/release`, { token: w.teacher.token })).data).toEqual({ released: 0, notified: 0 })
  })

  test('release: 401, 403 (student, other teacher), 404, 400', async () => {
    const path = `/experiments/${experiment.id}/release`
    expect((await w.api.post(path)).status).toBe(401)
    expect((await w.api.post(path, { token: w.student.token })).status).toBe(403)
    expect((await w.api.post(path, { token: w.otherTeacher.token })).status).toBe(403)
    const unknown = await w.api.post(`/experiments/${UNKNOWN}/release`, { token: w.teacher.token })
    expect([unknown.status, unknown.code]).toEqual([404, 40406])
    expect((await w.api.post(`/experiments/${NOT_A_UUID}/release`, { token: w.teacher.token })).status).toBe(400)
  })
})
