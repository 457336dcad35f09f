import { beforeAll, describe, expect, test } from 'bun:test'
import { computeQuestionCorrectness, computeTotalsDistribution } from '../../src/modules/analytics/service.ts'
import { addStudent } from '../support/fixtures.ts'
import { ManualClock, signUp, type Account } from '../support/harness.ts'
import { choice, createTask, essayTask, pointIn, shortAnswer, world, type World } from '../learning/helpers.ts'

/**
 * The charts are served from analytics_chart_cache (sql/060) while the course's gradebook
 * version is unchanged (issue 54: fast at 100,000 students). Here every chart, after each kind
 * of write (hand-ins, grading, regrading, a quiz edit that rescores, a MANUAL release, a student
 * leaving, a student deleted, a task deleted), is held against a recomputation from the raw rows
 * over random data: the score buckets and the timeline in this file from the sheets and the
 * roster, the per-question shares and the totals by the service's direct aggregates in a fresh
 * snapshot. Each chart is read twice, the second read a hit.
 */
const T0 = new Date('2026-12-01T08:00:00.000Z')
const DAY = 86_400_000
const clock = new ManualClock(T0)
let w: World
let students: Account[]
let essay: any, held: any, quiz: any
let seed = 54

/** A small deterministic generator (mulberry32), so a failure replays. */
function random() {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!

const get = (path: string) => w.api.get(`/courses/${w.course.id}/analytics${path}`, { token: w.teacher.token })
const hand = async (taskId: string, who: Account, json: unknown) => {
  const r = await w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token: who.token, json })
  expect(r.status).toBe(201)
  return r.data
}
const grade = async (id: string, json: unknown) => {
  const r = await w.api.patch(`${w.base}/submissions/${id}/grade`, { token: w.teacher.token, json })
  expect(r.status).toBe(200)
}

/** The score buckets and the timeline of a task straight from learning_submissions and course_members. */
async function fromRows(taskId: string) {
  const sql = w.deps.sql
  const members = new Set((await sql<{ user_id: string }[]>`select user_id from course_members where course_id = ${w.course.id}`).map((r) => r.user_id))
  const [task] = await sql<{ due_at: Date | null; title: string }[]>`select due_at, title from learning_tasks where id = ${taskId}`
  const sheets = await sql<{ id: string; student_id: string; score: string | null; submitted_at: Date }[]>`
    select id, student_id, score, submitted_at from learning_submissions where task_id = ${taskId}`
  const newest = new Map<string, (typeof sheets)[number]>()
  const first = new Map<string, (typeof sheets)[number]>()
  for (const s of sheets) {
    if (!members.has(s.student_id)) continue
    const n = newest.get(s.student_id)
    if (!n || s.submitted_at > n.submitted_at || (+s.submitted_at === +n.submitted_at && s.id > n.id)) newest.set(s.student_id, s)
    const f = first.get(s.student_id)
    if (!f || s.submitted_at < f.submitted_at || (+s.submitted_at === +f.submitted_at && s.id < f.id)) first.set(s.student_id, s)
  }
  const counts = Array.from({ length: 10 }, () => 0)
  let graded = 0
  for (const s of newest.values())
    if (s.score !== null) {
      counts[Math.min(9, Math.floor(Number(s.score) / 10))]!++
      graded++
    }
  const days = new Map<string, { date: string; onTime: number; late: number }>()
  for (const s of first.values()) {
    const date = s.submitted_at.toISOString().slice(0, 10)
    const d = days.get(date) ?? { date, onTime: 0, late: 0 }
    if (task!.due_at === null || s.submitted_at <= task!.due_at) d.onTime++
    else d.late++
    days.set(date, d)
  }
  const onTime = [...days.values()].reduce((a, d) => a + d.onTime, 0)
  const late = [...days.values()].reduce((a, d) => a + d.late, 0)
  const past = task!.due_at !== null && clock.now() > task!.due_at
  const without = members.size - onTime - late
  return {
    scores: { taskId, title: task!.title, buckets: counts.map((count, i) => ({ from: i * 10, to: i * 10 + 10, count })), graded, ungraded: newest.size - graded, students: members.size },
    timeline: {
      taskId,
      title: task!.title,
      dueAt: task!.due_at?.toISOString() ?? null,
      days: [...days.values()].sort((a, b) => a.date.localeCompare(b.date)),
      onTime,
      late,
      missing: past ? without : 0,
      notYet: past ? 0 : without,
      students: members.size,
    },
  }
}

const direct = <T>(f: (tx: any) => Promise<T>) => w.deps.sql.begin('isolation level repeatable read read only', f)

/** Every chart twice over HTTP (a miss, then a hit), each equal to the recomputation. */
async function expectChartsExact(tasks: any[]) {
  for (const t of tasks) {
    const want = await fromRows(t.id)
    for (let i = 0; i < 2; i++) {
      const s = await get(`/tasks/${t.id}/scores`)
      expect([s.status, s.code]).toEqual([200, 0])
      expect(s.data).toEqual(want.scores)
      const l = await get(`/tasks/${t.id}/timeline`)
      expect(l.data).toEqual(want.timeline)
    }
  }
  if (tasks.includes(quiz)) {
    const want = await direct((tx) => computeQuestionCorrectness(tx, w.course.id, quiz.id))
    for (let i = 0; i < 2; i++) expect((await get(`/tasks/${quiz.id}/questions`)).data).toEqual(want)
  }
  const want = await direct((tx) => computeTotalsDistribution(tx, w.course.id))
  for (let i = 0; i < 2; i++) expect((await get('/totals')).data).toEqual(want)
}

/** Random hand-ins by random students over a few days, and random grades of some of them. */
async function randomWork(rounds: number, tasks = [essay, held, quiz]) {
  const [q1, q2, q3] = quiz.questions
  for (let i = 0; i < rounds; i++) {
    clock.set(new Date(clock.now().getTime() + Math.floor(random() * DAY * 0.15)))
    const who = pick(students)
    const task = pick(tasks)
    const sheet =
      task === quiz
        ? await hand(quiz.id, who, {
            answers: [
              { questionId: q1.id, selectedOptions: [pick([0, 1])] },
              ...(random() < 0.7 ? [{ questionId: q2.id, selectedOptions: pick([[0, 2], [0], [2, 0]]) }] : []),
              { questionId: q3.id, text: 'because' },
            ],
          })
        : await hand(task.id, who, { content: '<p>x</p>' })
    if (random() < 0.6) {
      if (task === quiz) await grade(sheet.id, { questionScores: [{ questionId: q3.id, score: Math.floor(random() * 5) }] })
      else await grade(sheet.id, { score: Math.round(random() * 10000) / 100 })
    }
  }
}

beforeAll(async () => {
  w = await world({ clock })
  students = [w.student, w.student2]
  for (let i = 0; i < 6; i++) {
    const s = await signUp(w.api, 'STUDENT', `S${i}`)
    await addStudent(w.deps.sql, w.course.id, s.id)
    students.push(s)
  }
  const pointId = (await pointIn(w)).point.id
  essay = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay', ...essayTask, dueAt: new Date(T0.getTime() + 1 * DAY).toISOString() })
  held = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Held', ...essayTask, gradeRelease: 'MANUAL', dueAt: new Date(T0.getTime() + 2 * DAY).toISOString() })
  quiz = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Quiz',
    taskKind: 'HOMEWORK',
    taskType: 'QUIZ',
    dueAt: new Date(T0.getTime() + 3 * DAY).toISOString(),
    questions: [choice('SINGLE_CHOICE', [1], 1), choice('MULTIPLE_CHOICE', [0, 2], 1), shortAnswer(4)],
  })
}, 60_000)

describe('charts from the cache equal a recomputation from the raw rows', () => {
  test('after hand-ins, grading and regrading, a quiz edit, a release, leaving, deletion of a student and of a task', async () => {
    await expectChartsExact([essay, held, quiz])
    await randomWork(30)
    await expectChartsExact([essay, held, quiz])
    // Regrading: new scores on the newest sheets of some students.
    const sheets = await w.deps.sql<{ id: string; task_id: string }[]>`
      select id, task_id from learning_submissions where task_id in (${essay.id}, ${held.id}) order by id`
    for (const s of sheets.filter(() => random() < 0.5)) await grade(s.id, { score: Math.round(random() * 10000) / 100 })
    await expectChartsExact([essay, held, quiz])
    // A quiz edit that changes the key of question 1 rescores every sheet.
    const edited = await w.api.patch(`${w.base}/tasks/${quiz.id}`, {
      token: w.teacher.token,
      json: { questions: quiz.questions.map((q: any, i: number) => ({ id: q.id, type: q.type, stem: q.stem, options: q.options, points: q.points, correctOptions: i === 0 ? [0] : q.correctOptions })) },
    })
    expect(edited.status).toBe(200)
    await expectChartsExact([essay, held, quiz])
    // The held grades are released.
    const released = await w.api.post(`${w.base}/tasks/${held.id}/release`, { token: w.teacher.token })
    expect(released.status).toBe(200)
    await expectChartsExact([essay, held, quiz])
    // A student leaves (their sheets stay), another is deleted with their account.
    const leaver = students[2]!
    expect((await w.api.post(`/courses/${w.course.id}/leave`, { token: leaver.token })).status).toBe(200)
    await expectChartsExact([essay, held, quiz])
    const gone = students[3]!
    await w.deps.sql`delete from users where id = ${gone.id}`
    await expectChartsExact([essay, held, quiz])
    // The due times pass (no write): missing instead of not yet. (Sessions last 7 days.)
    clock.set(new Date(Math.max(clock.now().getTime(), T0.getTime() + 4 * DAY + 1)))
    await expectChartsExact([essay, held, quiz])
    // A task is deleted (with its sheets: the API refuses that, 409, so by the database's
    // cascade): its charts are 404, the totals follow.
    expect((await w.api.call('DELETE', `${w.base}/tasks/${essay.id}`, { token: w.teacher.token })).status).toBe(409)
    await w.deps.sql`delete from learning_tasks where id = ${essay.id}`
    expect((await get(`/tasks/${essay.id}/scores`)).status).toBe(404)
    students = students.filter((s) => s !== leaver && s !== gone)
    await randomWork(10, [held, quiz])
    await expectChartsExact([held, quiz])
  }, 120_000)

  test('a chart is served from its entry while the version holds, and computed again after a write', async () => {
    const first = await get(`/tasks/${quiz.id}/scores`)
    expect(first.status).toBe(200)
    const [entry] = await w.deps.sql<{ version: string; current: string }[]>`
      select c.version::text, (select sum(version)::text from gradebook_versions where course_id = c.course_id) as current
        from analytics_chart_cache c where c.course_id = ${w.course.id} and c.chart = 'scores' and c.subject = ${quiz.id}`
    expect(entry!.version).toBe(entry!.current)
    // The entry is what is served: mark it and read it back.
    await w.deps.sql`
      update analytics_chart_cache set data = jsonb_set(data, '{title}', '"from the cache"')
       where course_id = ${w.course.id} and chart = 'scores' and subject = ${quiz.id}`
    expect((await get(`/tasks/${quiz.id}/scores`)).data.title).toBe('from the cache')
    // A hand-in raises the version: the answer is recomputed (the mark is gone).
    await hand(quiz.id, pick(students), { answers: [] })
    const after = await get(`/tasks/${quiz.id}/scores`)
    expect(after.data.title).toBe('Quiz')
    expect(after.data).toEqual((await fromRows(quiz.id)).scores)
  })
})
