import { beforeAll, describe, expect, test } from 'bun:test'
import { formOf } from '../storage/helpers.ts'
import { ManualClock } from '../support/harness.ts'
import { choice, createTask, essayTask, NOT_A_UUID, pointIn, shortAnswer, textTask, world, type World } from './helpers.ts'

/**
 * Rubrics (issue 54): criteria × levels on a homework, a quiz's short answers and an experiment.
 * Grading by rubric fills the score (homework, experiments: the share of the best levels; quiz:
 * each short answer's points) and keeps the choices with the sheet; students see the rubric on
 * the task, and the levels they got once the grade is theirs (released).
 */
const clock = new ManualClock('2026-12-02T08:00:00.000Z')
let w: World
let pointId: string
let essay: any
let rubric: any

const two = (title: string, low: number, high: number) => ({
  title,
  description: `${title} described`,
  levels: [
    { title: 'Beginning', description: 'Not yet', points: low },
    { title: 'Exemplary', description: 'All there', points: high },
  ],
})
const putRubric = (taskId: string, json: unknown, token = w.teacher.token) => w.api.put(`${w.base}/tasks/${taskId}/rubric`, { token, json })
const hand = async (taskId: string, json: unknown, token = w.student.token) => {
  const r = await w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token, json })
  expect(r.status).toBe(201)
  return r.data
}
const grade = (id: string, json: unknown) => w.api.patch(`${w.base}/submissions/${id}/grade`, { token: w.teacher.token, json })
const pick = (criteria: any[], levels: number[]) => criteria.map((c, i) => ({ criterionId: c.id, levelId: c.levels[levels[i]!].id }))

beforeAll(async () => {
  w = await world({ clock })
  pointId = (await pointIn(w)).point.id
  essay = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay 3', ...essayTask })
}, 60_000)

describe('rubric on a homework', () => {
  test('the teacher sets it (ids given); students see it on the task', async () => {
    const r = await putRubric(essay.id, { rubric: { criteria: [two('Argument', 0, 6), two('Style', 1, 4)] } })
    expect([r.status, r.code]).toEqual([200, 0])
    rubric = r.data.rubric
    expect(rubric.criteria.map((c: any) => [c.title, c.questionId, c.levels.map((l: any) => l.points)])).toEqual([
      ['Argument', null, [0, 6]],
      ['Style', null, [1, 4]],
    ])
    const seen = await w.api.get(`${w.base}/tasks/${essay.id}`, { token: w.student.token })
    expect(seen.data.rubric).toEqual(rubric)
  })

  test('sent back with its ids, they are kept; a new level gets a new id', async () => {
    const again = structuredClone(rubric)
    again.criteria[1].levels.push({ title: 'Beyond', description: '', points: 4 })
    again.criteria[1].levels[1].points = 3
    const r = await putRubric(essay.id, { rubric: again })
    expect(r.status).toBe(200)
    expect(r.data.rubric.criteria.map((c: any) => c.id)).toEqual(rubric.criteria.map((c: any) => c.id))
    expect(r.data.rubric.criteria[1].levels.slice(0, 2).map((l: any) => l.id)).toEqual(rubric.criteria[1].levels.map((l: any) => l.id))
    rubric = r.data.rubric
  })

  test('grading by rubric: the score is the share of the best levels, the choices stay with the sheet and the student sees them', async () => {
    const sheet = await hand(essay.id, { content: '<p>essay</p>' })
    // Argument 6 of 6, Style 3 of 4 (best 4): 9 / 10.
    const choices = pick(rubric.criteria, [1, 1])
    const r = await grade(sheet.id, { rubric: choices, feedback: '<p>Strong</p>' })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data).toMatchObject({ status: 'GRADED', score: 90, rubricChoices: choices })
    const mine = await w.api.get(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token })
    expect(mine.data.items[0]).toMatchObject({ score: 90, rubricChoices: choices })
    // A given score overrides; the choices are still kept.
    expect((await grade(sheet.id, { rubric: pick(rubric.criteria, [0, 0]), score: 55 })).data).toMatchObject({ score: 55, rubricChoices: pick(rubric.criteria, [0, 0]) })
  })

  test('held (MANUAL): the student sees neither score nor levels until the release', async () => {
    const task = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay 5', ...essayTask, gradeRelease: 'MANUAL' })
    const set = await putRubric(task.id, { rubric: { criteria: [two('Argument', 0, 5)] } })
    const sheet = await hand(task.id, { content: '<p>x</p>' })
    const choices = pick(set.data.rubric.criteria, [1])
    expect((await grade(sheet.id, { rubric: choices })).data).toMatchObject({ score: 100, rubricChoices: choices, released: false })
    const before = await w.api.get(`${w.base}/tasks/${task.id}/submissions`, { token: w.student.token })
    expect(before.data.items[0]).toMatchObject({ score: null, rubricChoices: [], status: 'SUBMITTED' })
    expect((await w.api.post(`${w.base}/tasks/${task.id}/release`, { token: w.teacher.token })).data.released).toBe(1)
    const after = await w.api.get(`${w.base}/tasks/${task.id}/submissions`, { token: w.student.token })
    expect(after.data.items[0]).toMatchObject({ score: 100, rubricChoices: choices, status: 'GRADED' })
  })

  test('400: a criterion missing, picked twice, a level of another criterion, an unknown criterion; no rubric on the task', async () => {
    const sheet = await hand(essay.id, { content: '<p>again</p>' })
    const [a, s] = rubric.criteria
    const cases = [
      [{ criterionId: a.id, levelId: a.levels[0].id }],
      [{ criterionId: a.id, levelId: a.levels[0].id }, { criterionId: a.id, levelId: a.levels[1].id }, { criterionId: s.id, levelId: s.levels[0].id }],
      [{ criterionId: a.id, levelId: s.levels[0].id }, { criterionId: s.id, levelId: s.levels[0].id }],
      [{ criterionId: crypto.randomUUID(), levelId: a.levels[0].id }, { criterionId: a.id, levelId: a.levels[0].id }, { criterionId: s.id, levelId: s.levels[0].id }],
    ]
    for (const rubricChoices of cases) {
      const r = await grade(sheet.id, { rubric: rubricChoices })
      expect([r.status, r.code]).toEqual([400, 40001])
    }
    const plain = await createTask(w.api, w.base, w.teacher, pointId, { title: 'No rubric', ...essayTask })
    const other = await hand(plain.id, { content: '<p>y</p>' })
    const r = await grade(other.id, { rubric: pick(rubric.criteria, [0, 0]) })
    expect([r.status, r.code, r.body.data.fields[0].field]).toEqual([400, 40001, 'rubric'])
  })

  test('400 for a bad rubric; 409 on reading material; null removes it', async () => {
    for (const bad of [
      { rubric: { criteria: [] } },
      { rubric: { criteria: [{ title: 'A', levels: [] }] } },
      { rubric: { criteria: [two('Zero', 0, 0)] } },
      { rubric: { criteria: [{ ...two('A', 0, 1), questionId: crypto.randomUUID() }] } },
      { rubric: { criteria: [{ title: 'A', levels: [{ title: 'L', points: -1 }] }] } },
      {},
    ]) {
      const r = await putRubric(essay.id, bad)
      expect([r.status, r.code]).toEqual([400, 40001])
    }
    const material = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Read', ...textTask })
    expect((await putRubric(material.id, { rubric: { criteria: [two('A', 0, 1)] } })).code).toBe(40909)
    const task = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Throwaway', ...essayTask })
    await putRubric(task.id, { rubric: { criteria: [two('A', 0, 1)] } })
    const r = await putRubric(task.id, { rubric: null })
    expect([r.status, r.data.rubric]).toEqual([200, null])
  })

  test('permissions: 401, 403 (student, other teacher), 404 (unknown task, another course\'s task), 400 (bad id)', async () => {
    const body = { rubric: { criteria: [two('A', 0, 1)] } }
    expect((await w.api.put(`${w.base}/tasks/${essay.id}/rubric`, { json: body })).status).toBe(401)
    expect((await putRubric(essay.id, body, w.student.token)).status).toBe(403)
    expect((await putRubric(essay.id, body, w.otherTeacher.token)).status).toBe(403)
    const unknown = await putRubric('01900000-0000-7000-8000-000000000000', body)
    expect([unknown.status, unknown.code]).toEqual([404, 40404])
    const otherPoint = (await pointIn({ api: w.api, base: w.otherBase, teacher: w.otherTeacher })).point.id
    const foreign = await createTask(w.api, w.otherBase, w.otherTeacher, otherPoint, { ...essayTask })
    expect((await putRubric(foreign.id, body)).status).toBe(404)
    expect((await putRubric(NOT_A_UUID, body)).status).toBe(400)
  })
})

describe('rubric on a quiz\'s short answers', () => {
  test('each criterion grades a short-answer question; grading by rubric fills the question scores and the score', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, {
      title: 'Mixed quiz',
      taskType: 'QUIZ',
      questions: [choice('SINGLE_CHOICE', [1], 2), shortAnswer(8)],
    })
    const [c, sa] = quiz.questions
    // Without questionId, with a choice question, or worth more than the question: 400.
    for (const bad of [[two('A', 0, 4)], [{ ...two('A', 0, 2), questionId: c.id }], [{ ...two('A', 0, 5), questionId: sa.id }, { ...two('B', 0, 4), questionId: sa.id }]]) {
      expect((await putRubric(quiz.id, { rubric: { criteria: bad } })).status).toBe(400)
    }
    const set = await putRubric(quiz.id, { rubric: { criteria: [{ ...two('Idea', 0, 5), questionId: sa.id }, { ...two('Clarity', 1, 3), questionId: sa.id }] } })
    expect(set.status).toBe(200)
    const sheet = await hand(quiz.id, { answers: [{ questionId: c.id, selectedOptions: [1] }, { questionId: sa.id, text: 'because' }] })
    // Idea 5 + Clarity 1 = 6 of 8; with the choice question's 2: 8 of 10.
    const choices = pick(set.data.rubric.criteria, [1, 0])
    const r = await grade(sheet.id, { rubric: choices })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data).toMatchObject({ score: 80, questionScores: [{ questionId: sa.id, score: 6 }], rubricChoices: choices })
    expect((await grade(sheet.id, { rubric: choices, questionScores: [] })).status).toBe(400)
  })
})

describe('rubric on an experiment', () => {
  test('set, seen by students, graded by rubric; 403 for a student, 404 for another course\'s experiment', async () => {
    const e = await w.api.post(`/courses/${w.course.id}/experiments`, { token: w.teacher.token, json: { title: 'Lab', description: '<p>x</p>', dueAt: '2099-01-01T00:00:00Z' } })
    const path = `/courses/${w.course.id}/experiments/${e.data.id}/rubric`
    const set = await w.api.put(path, { token: w.teacher.token, json: { rubric: { criteria: [two('Method', 1, 3), two('Report', 0, 1)] } } })
    expect([set.status, set.code]).toEqual([200, 0])
    expect((await w.api.put(path, { token: w.student.token, json: { rubric: null } })).status).toBe(403)
    expect((await w.api.put(`/courses/${w.otherCourse.id}/experiments/${e.data.id}/rubric`, { token: w.otherTeacher.token, json: { rubric: null } })).status).toBe(404)
    const seen = await w.api.get(`/courses/${w.course.id}/experiments/${e.data.id}`, { token: w.student.token })
    expect(seen.data.rubric).toEqual(set.data.rubric)
    const sub = await w.api.post(`/experiments/${e.data.id}/submissions`, { token: w.student.token, form: formOf({ file: new File(['lab'], 'lab.txt', { type: 'text/plain' }) }) })
    expect(sub.status).toBe(201)
    const choices = pick(set.data.rubric.criteria, [1, 0])
    const g = await w.api.patch(`/submissions/${sub.data.id}/grade`, { token: w.teacher.token, json: { rubric: choices } })
    // 3 of the best 4.
    expect([g.status, g.data.score, g.data.rubricChoices]).toEqual([200, 75, choices])
    expect((await w.api.patch(`/submissions/${sub.data.id}/grade`, { token: w.teacher.token, json: { rubric: choices.slice(1) } })).status).toBe(400)
    expect((await w.api.patch(`/submissions/${sub.data.id}/grade`, { token: w.teacher.token, json: {} })).status).toBe(400)
  })
})

describe('copied with the course', () => {
  test('a copy of the course keeps each task\'s rubric and grade release', async () => {
    const r = await w.api.post(`/courses/${w.course.id}/copy`, { token: w.teacher.token, json: { title: 'Next term', shiftDays: 7 } })
    expect([r.status, r.code]).toEqual([201, 0])
    const tree = await w.api.get(`/courses/${r.data.id}/learning`, { token: w.teacher.token })
    expect(tree.status).toBe(200)
    const tasks = tree.data.units.flatMap((u: any) => u.points.flatMap((p: any) => p.tasks))
    const copied = tasks.find((t: any) => t.title === 'Essay 3')
    expect(copied.rubric).toEqual(rubric)
    expect(tasks.find((t: any) => t.title === 'Essay 5').gradeRelease).toBe('MANUAL')
    const labs = await w.api.get(`/courses/${r.data.id}/experiments`, { token: w.teacher.token })
    expect(labs.data[0].rubric.criteria.map((c: any) => c.title)).toEqual(['Method', 'Report'])
  })
})

describe('in the grades CSV', () => {
  test('one column per criterion of each rubric, after every earlier column: the points of the level the newest sheet got', async () => {
    const sheet = await hand(essay.id, { content: '<p>bob</p>' }, w.student2.token)
    expect((await grade(sheet.id, { rubric: pick(rubric.criteria, [1, 0]) })).status).toBe(200)
    const r = await w.api.get(`/courses/${w.course.id}/grades/overview.csv`, { token: w.teacher.token })
    expect(r.status).toBe(200)
    const lines = String(r.body).replace(/^\uFEFF/, '').trim().split('\r\n').map((l) => l.split(','))
    const header = lines[0]!
    const at = header.indexOf('Essay 3: Argument (rubric)')
    expect(at).toBeGreaterThan(header.findLastIndex((h) => h.endsWith(': status')))
    expect(header[at + 1]).toBe('Essay 3: Style (rubric)')
    const bob = lines.find((l) => l[1] === w.student2.username)!
    expect([bob[at], bob[at + 1]]).toEqual(['6', '1'])
    // Alice's newest Essay 3 sheet is not graded yet: empty cells.
    const alice = lines.find((l) => l[1] === w.student.username)!
    expect([alice[at], alice[at + 1]]).toEqual(['', ''])
  })
})
