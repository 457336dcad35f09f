import { beforeAll, describe, expect, test } from 'bun:test'
import { addStudent } from '../support/fixtures.ts'
import { ManualClock, signUp, type Account } from '../support/harness.ts'
import { choice, createTask, essayTask, NOT_A_UUID, pointIn, shortAnswer, textTask, world, type World } from '../learning/helpers.ts'

/**
 * The charts' endpoints (issue 54), with real sheets: a score histogram, a hand-in timeline
 * (on time / late / missing), per question the share correct, and the course's totals. Only the
 * course's teachers read them.
 */
const T0 = new Date('2026-12-01T08:00:00.000Z')
const clock = new ManualClock(T0)
let w: World
let carol: Account, dave: Account
let essay: any, quiz: any, held: any
const DAY = 86_400_000

beforeAll(async () => {
  w = await world({ clock })
  carol = await signUp(w.api, 'STUDENT', 'Carol')
  dave = await signUp(w.api, 'STUDENT', 'Dave')
  for (const s of [carol, dave]) await addStudent(w.deps.sql, w.course.id, s.id)
  const pointId = (await pointIn(w)).point.id
  essay = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay 3', ...essayTask, dueAt: new Date(T0.getTime() + DAY).toISOString() })
  quiz = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Quiz',
    taskKind: 'HOMEWORK',
    dueAt: '2099-01-01T00:00:00.000Z',
    taskType: 'QUIZ',
    questions: [choice('SINGLE_CHOICE', [1], 1), choice('MULTIPLE_CHOICE', [0, 2], 1), shortAnswer(4)],
  })
  held = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Held', ...essayTask, gradeRelease: 'MANUAL' })
  const hand = async (taskId: string, who: Account, json: unknown) => {
    const r = await w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token: who.token, json })
    expect(r.status).toBe(201)
    return r.data
  }
  const grade = (id: string, score: number) => w.api.patch(`${w.base}/submissions/${id}/grade`, { token: w.teacher.token, json: { score } })
  // Essay: Alice and Bob on day 1, Carol on day 3 (late), Dave never. Scores 95, 42; Carol ungraded.
  const a = await hand(essay.id, w.student, { content: '<p>a</p>' })
  const b = await hand(essay.id, w.student2, { content: '<p>b</p>' })
  clock.set(new Date(T0.getTime() + 2 * DAY))
  await hand(essay.id, carol, { content: '<p>c</p>' })
  await grade(a.id, 95)
  await grade(b.id, 42)
  // Quiz: Q1 right by Alice and Bob, wrong by Carol; Q2 right only by Alice; Q3 scored 4 and 1 of 4.
  const [q1, q2, q3] = quiz.questions
  const sheets = [
    await hand(quiz.id, w.student, { answers: [{ questionId: q1.id, selectedOptions: [1] }, { questionId: q2.id, selectedOptions: [2, 0] }, { questionId: q3.id, text: 'x' }] }),
    await hand(quiz.id, w.student2, { answers: [{ questionId: q1.id, selectedOptions: [1] }, { questionId: q2.id, selectedOptions: [0] }, { questionId: q3.id, text: 'y' }] }),
    await hand(quiz.id, carol, { answers: [{ questionId: q1.id, selectedOptions: [0] }] }),
  ]
  await w.api.patch(`${w.base}/submissions/${sheets[0].id}/grade`, { token: w.teacher.token, json: { questionScores: [{ questionId: q3.id, score: 4 }] } })
  await w.api.patch(`${w.base}/submissions/${sheets[1].id}/grade`, { token: w.teacher.token, json: { questionScores: [{ questionId: q3.id, score: 1 }] } })
  // A held grade shows in no chart.
  const h = await hand(held.id, dave, { content: '<p>d</p>' })
  await grade(h.id, 10)
}, 60_000)

const get = (path: string, token = w.teacher.token) => w.api.get(`/courses/${w.course.id}/analytics${path}`, { token })

describe('charts', () => {
  test('score distribution: students by their newest released score, ten buckets', async () => {
    const r = await get(`/tasks/${essay.id}/scores`)
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data).toMatchObject({ taskId: essay.id, title: 'Essay 3', graded: 2, ungraded: 1, students: 4 })
    expect(r.data.buckets).toHaveLength(10)
    expect(r.data.buckets.filter((b: any) => b.count).map((b: any) => [b.from, b.to, b.count])).toEqual([
      [40, 50, 1],
      [90, 100, 1],
    ])
    const h = await get(`/tasks/${held.id}/scores`)
    expect(h.data).toMatchObject({ graded: 0, ungraded: 1 })
  })

  test('hand-in timeline: per day on time and late; missing once past due', async () => {
    const r = await get(`/tasks/${essay.id}/timeline`)
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data).toMatchObject({
      days: [
        { date: '2026-12-01', onTime: 2, late: 0 },
        { date: '2026-12-03', onTime: 0, late: 1 },
      ],
      onTime: 2,
      late: 1,
      missing: 1,
      notYet: 0,
      students: 4,
    })
    const open = await get(`/tasks/${quiz.id}/timeline`)
    expect(open.data).toMatchObject({ onTime: 3, late: 0, missing: 0, notYet: 1 })
  })

  test('per question: the share exactly right among those who answered; short answers by points awarded', async () => {
    const r = await get(`/tasks/${quiz.id}/questions`)
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data.questions.map((q: any) => [q.position, q.type, q.answered, q.shareCorrect])).toEqual([
      [1, 'SINGLE_CHOICE', 3, 0.667],
      [2, 'MULTIPLE_CHOICE', 2, 0.5],
      [3, 'SHORT_ANSWER', 2, 0.625],
    ])
    expect((await get(`/tasks/${essay.id}/questions`)).data.questions).toEqual([])
  })

  test("the course's totals: students by their average over graded work", async () => {
    const r = await get('/totals')
    expect([r.status, r.code]).toEqual([200, 0])
    // Alice: essay 95, quiz 6 of 6 points = 100 → 97.5; Bob: essay 42, quiz 2 of 6 = 33.33 → 37.67.
    // Carol's sheets are ungraded; Dave's only grade is held.
    expect(r.data).toMatchObject({ graded: 2, ungraded: 2, students: 4 })
    expect(r.data.buckets.filter((b: any) => b.count).map((b: any) => [b.from, b.count])).toEqual([
      [30, 1],
      [90, 1],
    ])
  })

  test('401, 403 (student, other teacher), 404 (unknown task, material, another course), 400 (bad id)', async () => {
    for (const path of [`/tasks/${essay.id}/scores`, `/tasks/${essay.id}/timeline`, `/tasks/${quiz.id}/questions`, '/totals']) {
      expect((await w.api.get(`/courses/${w.course.id}/analytics${path}`)).status).toBe(401)
      expect((await get(path, w.student.token)).code).toBe(40300)
      expect((await get(path, w.otherTeacher.token)).status).toBe(403)
    }
    const pointId = (await pointIn(w)).point.id
    const material = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Read', ...textTask })
    for (const id of ['01900000-0000-7000-8000-000000000000', material.id]) {
      const r = await get(`/tasks/${id}/scores`)
      expect([r.status, r.code]).toEqual([404, 40404])
    }
    const foreign = await w.api.get(`/courses/${w.otherCourse.id}/analytics/tasks/${essay.id}/timeline`, { token: w.otherTeacher.token })
    expect(foreign.status).toBe(404)
    expect((await get(`/tasks/${NOT_A_UUID}/questions`)).status).toBe(400)
  })
})
