import { beforeAll, describe, expect, test } from 'bun:test'
import { roundScore } from '../../src/lib/score.ts'
import { choice, createTask, pointIn, shortAnswer, textTask, world, type World } from '../learning/helpers.ts'
import { download } from '../storage/helpers.ts'
import { ManualClock } from '../support/harness.ts'

/**
 * The gradebook (issue 14): one column per homework/quiz and per experiment in the grade
 * overview and its CSV, with one rounding rule (one decimal, half up) for screen and file.
 */
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World
let quiz: any, homework: any, material: any, experimentId: string

beforeAll(async () => {
  w = await world({ clock })
  const pointId = (await pointIn(w)).point.id
  material = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Reading', ...textTask })
  quiz = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Quiz 1', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0]), shortAnswer()] })
  homework = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Essay',
    ...textTask,
    taskKind: 'HOMEWORK',
    startAt: '2026-11-21T00:00:00Z',
    dueAt: '2026-11-30T00:00:00Z',
  })
  experimentId = (
    await w.api.post(`/courses/${w.course.id}/experiments`, { token: w.teacher.token, json: { title: 'Lab', description: '', dueAt: '2026-12-01T00:00:00Z' } })
  ).data.id
  const submit = (taskId: string, json: unknown, token: string) => w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token, json })
  const gradeIt = (id: string, score: number) => w.api.patch(`${w.base}/submissions/${id}/grade`, { token: w.teacher.token, json: { score } })
  // Alice: quiz 90.5, essay 90 → average 90.25 (the case that showed 90.3 on screen, 90.25 in the file).
  const q = (await submit(quiz.id, { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [0] }, { questionId: quiz.questions[1].id, text: 'x' }] }, w.student.token)).data
  await gradeIt(q.id, 90.5)
  const h = (await submit(homework.id, { content: 'essay' }, w.student.token)).data
  await gradeIt(h.id, 90)
  // Bob: essay submitted, not graded.
  await submit(homework.id, { content: 'late essay' }, w.student2.token)
}, 60_000)

describe('gradebook columns and cells', () => {
  test('homework and quizzes in course order, then experiments; materials are no column', async () => {
    const r = await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data.columns).toEqual([
      { id: quiz.id, kind: 'TASK', taskKind: 'LEARNING', taskType: 'QUIZ', title: 'Quiz 1', dueAt: null },
      { id: homework.id, kind: 'TASK', taskKind: 'HOMEWORK', taskType: 'MEDIA', title: 'Essay', dueAt: '2026-11-30T00:00:00.000Z' },
      { id: experimentId, kind: 'EXPERIMENT', taskKind: null, taskType: null, title: 'Lab', dueAt: '2026-12-01T00:00:00.000Z' },
    ])
    expect(r.data.columns.map((c: any) => c.id)).not.toContain(material.id)
    const byName = Object.fromEntries(r.data.students.map((s: any) => [s.displayName, s]))
    expect(byName.Alice).toMatchObject({ averageScore: 90.25 })
    // Sparse cells: the ungraded experiment has no key.
    expect(byName.Alice.cells).toEqual({ [quiz.id]: 90.5, [homework.id]: 90 })
    expect(byName.Bob).toMatchObject({ averageScore: null })
    expect(byName.Bob.cells).toEqual({})
  })

  test('the CSV has one score column per homework/quiz, rounded by the same rule as the screen', async () => {
    const res = await download(w, `/courses/${w.course.id}/grades/overview.csv`, w.teacher.token)
    expect(res.status).toBe(200)
    const lines = new TextDecoder().decode(res.bytes).replace(/^\uFEFF/, '').split('\r\n')
    expect(lines[0]).toBe(
      'User ID,Username,Display name,Submissions,Graded,Average score,Quiz 1: score,Essay: score,Lab: score,Lab: submitted at,Quiz 1: status,Essay: status,Lab: status',
    )
    const alice = lines.find((l) => l.startsWith(w.student.id))!
    expect(alice.split(',').slice(3)).toEqual(['2', '2', String(roundScore(90.25)), '90.5', '90', '', '', 'Graded', 'Graded', ''])
    expect(roundScore(90.25)).toBe(90.3)
  })

  test('403 for a student and another teacher', async () => {
    for (const who of [w.student, w.otherTeacher]) {
      const r = await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: who.token })
      expect([r.status, r.code]).toEqual([403, 40300])
    }
  })
})

test('roundScore: one decimal, half up, no binary-fraction surprises', () => {
  const cases: [number | null, number | null][] = [
    [90.25, 90.3], [90.35, 90.4], [90.24, 90.2], [1.05, 1.1], [2.45, 2.5], [100, 100], [0, 0], [85.17, 85.2], [null, null],
  ]
  for (const [input, out] of cases) expect([input, roundScore(input)]).toEqual([input, out])
})
