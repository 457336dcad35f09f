import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { insertNotifications } from '../support/notifications.ts'
import { countingSql } from '../support/counting-sql.ts'
import { addStudent, insertCourse, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, testDatabase, type Account, type Client } from '../support/harness.ts'
import { DAY, HOUR, createHomework, plus } from '../support/reminders.ts'

const T0 = new Date('2028-01-10T08:00:00.000Z')
const clock = new ManualClock(T0)
let api: Client
let sql: Sql
let teacher: Account, s1: Account, s2: Account, outsider: Account, otherTeacher: Account
let A: { id: string; title: string }, B: { id: string; title: string }
const hw: Record<string, string> = {}

/** Counts the SQL statements the app runs (support/counting-sql.ts: when run, so fragments never count). */
let queries = 0

const ITEM_KEYS = ['courseId', 'courseTitle', 'dueAt', 'remainingSeconds', 'score', 'startAt', 'status', 'submittedAt', 'taskId', 'title']

beforeAll(async () => {
  sql = (await testDatabase()).sql
  ;({ api } = await testApp({ clock, deps: { sql: countingSql(sql, () => queries++) } }))
  ;[teacher, otherTeacher] = await Promise.all([signUp(api, 'TEACHER'), signUp(api, 'TEACHER')])
  ;[s1, s2, outsider] = await Promise.all([signUp(api), signUp(api), signUp(api)])
  A = await insertCourse(sql, teacher.id, 'Databases')
  B = await insertCourse(sql, otherTeacher.id, 'Networks')
  await addStudent(sql, A.id, s1.id)
  await addStudent(sql, A.id, s2.id)
  await addStudent(sql, B.id, s1.id)
  const pa = (await insertPoint(sql, A.id)).pointId
  const pb = (await insertPoint(sql, B.id)).pointId
  const mk = async (key: string, course: string, point: string, startAt: Date, dueAt: Date) =>
    (hw[key] = (await createHomework(sql, course, point, { title: key, startAt, dueAt }, T0)).id)
  await mk('future', A.id, pa, plus(T0, HOUR), plus(T0, 2 * DAY)) // NOT_STARTED
  await mk('open', A.id, pa, plus(T0, -DAY), plus(T0, DAY)) // IN_PROGRESS
  await mk('overdue', A.id, pa, plus(T0, -3 * DAY), plus(T0, -DAY)) // OVERDUE
  await mk('done', A.id, pa, plus(T0, -2 * DAY), plus(T0, 3 * DAY)) // s1 submitted twice, newest graded
  await mk('networks', B.id, pb, plus(T0, -HOUR), plus(T0, 12 * HOUR))
  await insertSubmission(sql, hw.done!, A.id, s1.id, plus(T0, -DAY))
  const newest = await insertSubmission(sql, hw.done!, A.id, s1.id, plus(T0, -HOUR))
  await sql`update learning_submissions set score = 87.5, status = 'GRADED', graded_at = ${plus(T0, -HOUR)} where id = ${newest.id}`
  await sql`update learning_submissions set score = 40, status = 'GRADED', graded_at = ${plus(T0, -DAY)} where task_id = ${hw.done!} and id <> ${newest.id}`
  // A learning task is not homework.
  await sql`
    insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, sort_order)
    values (${newId()}, ${pa}, ${A.id}, 'reading', 'LEARNING', 'MEDIA', 'TEXT', 99)`
}, 30_000)

describe('GET /courses/{courseId}/homeworks', () => {
  test("a student sees every homework of the course with their own status, ordered by dueAt", async () => {
    const r = await api.get(`/courses/${A.id}/homeworks`, { token: s1.token })
    expect(r.status).toBe(200)
    expect(r.code).toBe(0)
    expect(r.data.unreadReminderCount).toBe(0)
    const items = r.data.items
    expect(items.map((i: any) => i.title)).toEqual(['overdue', 'open', 'future', 'done'])
    for (const i of items) expect(Object.keys(i).sort()).toEqual(ITEM_KEYS)
    expect(items[0]).toEqual({
      taskId: hw.overdue,
      courseId: A.id,
      courseTitle: 'Databases',
      title: 'overdue',
      startAt: plus(T0, -3 * DAY).toISOString(),
      dueAt: plus(T0, -DAY).toISOString(),
      status: 'OVERDUE',
      submittedAt: null,
      score: null,
      remainingSeconds: 0,
    })
    expect(items[1]).toMatchObject({ status: 'IN_PROGRESS', remainingSeconds: 86_400 })
    expect(items[2]).toMatchObject({ status: 'NOT_STARTED', remainingSeconds: 2 * 86_400 })
    expect(items[3]).toMatchObject({
      status: 'SUBMITTED',
      submittedAt: plus(T0, -HOUR).toISOString(),
      score: 87.5,
      remainingSeconds: 3 * 86_400,
    })
  })

  test('another student of the same course has their own statuses', async () => {
    const r = await api.get(`/courses/${A.id}/homeworks`, { token: s2.token })
    const done = r.data.items.find((i: any) => i.taskId === hw.done)
    expect(done).toMatchObject({ status: 'IN_PROGRESS', submittedAt: null, score: null })
  })

  test("the teacher sees each homework once, time-based status, with submittedCount and studentCount", async () => {
    const r = await api.get(`/courses/${A.id}/homeworks`, { token: teacher.token })
    expect(r.status).toBe(200)
    const items = r.data.items
    expect(items.map((i: any) => [i.title, i.status, i.submittedCount, i.studentCount])).toEqual([
      ['overdue', 'OVERDUE', 0, 2],
      ['open', 'IN_PROGRESS', 0, 2],
      ['future', 'NOT_STARTED', 0, 2],
      ['done', 'IN_PROGRESS', 1, 2],
    ])
    for (const i of items) {
      expect(Object.keys(i).sort()).toEqual([...ITEM_KEYS, 'studentCount', 'submittedCount'].sort())
      expect(i.submittedAt).toBeNull()
      expect(i.score).toBeNull()
    }
  })

  test('the status follows the clock: NOT_STARTED → IN_PROGRESS → OVERDUE, and SUBMITTED once submitted', async () => {
    const status = async (who: Account) =>
      (await api.get(`/courses/${A.id}/homeworks`, { token: who.token })).data.items.find((i: any) => i.taskId === hw.future).status
    try {
      expect(await status(s2)).toBe('NOT_STARTED')
      clock.set(plus(T0, HOUR - 1))
      expect(await status(s2)).toBe('NOT_STARTED')
      clock.set(plus(T0, HOUR))
      expect(await status(s2)).toBe('IN_PROGRESS')
      clock.set(plus(T0, 2 * DAY))
      expect(await status(s2)).toBe('IN_PROGRESS')
      clock.set(plus(T0, 2 * DAY + 1))
      expect(await status(s2)).toBe('OVERDUE')
      expect(await status(teacher)).toBe('OVERDUE')
      const late = await insertSubmission(sql, hw.future!, A.id, s2.id, clock.now())
      expect(await status(s2)).toBe('SUBMITTED')
      expect(await status(teacher)).toBe('OVERDUE')
      await sql`delete from learning_submissions where id = ${late.id}`
    } finally {
      clock.set(T0)
    }
  })

  const cases: [string, () => string, () => string | undefined, number, number][] = [
    ['no credentials', () => `/courses/${A.id}/homeworks`, () => undefined, 401, 40100],
    ['a student of another course', () => `/courses/${A.id}/homeworks`, () => outsider.token, 403, 40300],
    ['a teacher of another course', () => `/courses/${A.id}/homeworks`, () => otherTeacher.token, 403, 40300],
    ['an unknown course', () => `/courses/${newId()}/homeworks`, () => s1.token, 404, 40401],
    ['a course id that is not a UUID', () => '/courses/not-a-uuid/homeworks', () => s1.token, 400, 40001],
    ['hostile course id', () => `/courses/${encodeURIComponent('<script>alert(1)</script>')}/homeworks`, () => s1.token, 400, 40001],
  ]
  test.each(cases)('%s → %d', async (_name, path, token, status, code) => {
    const r = await api.get(path(), { token: token() })
    expect(r.status).toBe(status)
    expect(r.code).toBe(code)
  })
})

describe('GET /homeworks/mine', () => {
  test('a student sees the homework of all their courses, ordered by dueAt', async () => {
    const r = await api.get('/homeworks/mine', { token: s1.token })
    expect(r.status).toBe(200)
    expect(r.data.items.map((i: any) => [i.title, i.courseTitle, i.status])).toEqual([
      ['overdue', 'Databases', 'OVERDUE'],
      ['networks', 'Networks', 'IN_PROGRESS'],
      ['open', 'Databases', 'IN_PROGRESS'],
      ['future', 'Databases', 'NOT_STARTED'],
      ['done', 'Databases', 'SUBMITTED'],
    ])
  })

  test.each([
    ['NOT_STARTED', ['future']],
    ['IN_PROGRESS', ['networks', 'open']],
    ['SUBMITTED', ['done']],
    ['OVERDUE', ['overdue']],
  ] as const)('status=%s filters on the status at request time', async (status, titles) => {
    const r = await api.get(`/homeworks/mine?status=${status}`, { token: s1.token })
    expect(r.status).toBe(200)
    expect(r.data.items.map((i: any) => i.title)).toEqual([...titles])
  })

  test('courseId narrows to one course, combined with status', async () => {
    const r = await api.get(`/homeworks/mine?courseId=${B.id}`, { token: s1.token })
    expect(r.data.items.map((i: any) => i.title)).toEqual(['networks'])
    const none = await api.get(`/homeworks/mine?courseId=${B.id}&status=OVERDUE`, { token: s1.token })
    expect(none.data.items).toEqual([])
  })

  test('a teacher sees the courses they teach, with the teacher fields', async () => {
    const r = await api.get('/homeworks/mine', { token: teacher.token })
    expect(r.data.items.map((i: any) => [i.title, i.submittedCount, i.studentCount])).toEqual([
      ['overdue', 0, 2],
      ['open', 0, 2],
      ['future', 0, 2],
      ['done', 1, 2],
    ])
    const submitted = await api.get('/homeworks/mine?status=SUBMITTED', { token: teacher.token })
    expect(submitted.data.items).toEqual([])
  })

  test('a user with no course gets an empty list', async () => {
    const r = await api.get('/homeworks/mine', { token: outsider.token })
    expect(r.status).toBe(200)
    expect(r.data).toEqual({ items: [], unreadReminderCount: 0 })
  })

  test('unreadReminderCount counts only unread HOMEWORK_REMINDER notifications of the caller', async () => {
    const who = await signUp(api)
    await addStudent(sql, B.id, who.id)
    const now = clock.now()
    await insertNotifications(
      sql,
      [
        { userId: who.id, type: 'HOMEWORK_REMINDER', title: 'r1', content: '', actionPath: null },
        { userId: who.id, type: 'HOMEWORK_REMINDER', title: 'r2', content: '', actionPath: null },
        { userId: who.id, type: 'ANNOUNCEMENT', title: 'a', content: '', actionPath: null },
        { userId: s2.id, type: 'HOMEWORK_REMINDER', title: 'not yours', content: '', actionPath: null },
      ],
      now,
    )
    const first = await api.get('/homeworks/mine', { token: who.token })
    expect(first.data.unreadReminderCount).toBe(2)
    expect((await api.get(`/courses/${B.id}/homeworks`, { token: who.token })).data.unreadReminderCount).toBe(2)
    const inbox = await api.get('/notifications?unreadOnly=true', { token: who.token })
    const r1 = inbox.data.items.find((n: any) => n.title === 'r1')
    await api.patch(`/notifications/${r1.id}/read`, { token: who.token })
    expect((await api.get('/homeworks/mine', { token: who.token })).data.unreadReminderCount).toBe(1)
  })

  test('the items come from one query whatever the number of courses', async () => {
    const t = await signUp(api, 'TEACHER')
    const s = await signUp(api)
    const measure = async (who: Account) => {
      queries = 0
      const r = await api.get('/homeworks/mine', { token: who.token })
      expect(r.status).toBe(200)
      return { n: queries, items: r.data.items.length }
    }
    const addCourse = async () => {
      const c = await insertCourse(sql, t.id)
      await addStudent(sql, c.id, s.id)
      const { pointId } = await insertPoint(sql, c.id)
      for (let i = 0; i < 3; i++) await createHomework(sql, c.id, pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, (i + 2) * DAY) }, T0)
      await insertSubmission(sql, (await sql<{ id: string }[]>`select id from learning_tasks where course_id = ${c.id} limit 1`)[0]!.id, c.id, s.id, T0)
    }
    await addCourse()
    const one = { student: await measure(s), teacher: await measure(t) }
    for (let i = 0; i < 5; i++) await addCourse()
    const six = { student: await measure(s), teacher: await measure(t) }
    expect(one.student.items).toBe(3)
    expect(six.student.items).toBe(18)
    expect(six.teacher.items).toBe(18)
    expect(six.student.n).toBe(one.student.n)
    expect(six.teacher.n).toBe(one.teacher.n)
    // Authentication, the items, the red dot.
    expect(six.student.n).toBe(3)
  })

  const cases: [string, () => string, () => string | undefined, number, number][] = [
    ['no credentials', () => '/homeworks/mine', () => undefined, 401, 40100],
    ['a bad token', () => '/homeworks/mine', () => 'not.a.token', 401, 40100],
    ['a course the caller is not in', () => `/homeworks/mine?courseId=${B.id}`, () => s2.token, 403, 40300],
    ['a course the teacher does not teach', () => `/homeworks/mine?courseId=${A.id}`, () => otherTeacher.token, 403, 40300],
    ['an unknown course', () => `/homeworks/mine?courseId=${newId()}`, () => s1.token, 404, 40401],
    ['a courseId that is not a UUID', () => '/homeworks/mine?courseId=42', () => s1.token, 400, 40001],
    ['an unknown status', () => '/homeworks/mine?status=DONE', () => s1.token, 400, 40001],
    ['a lower-case status', () => '/homeworks/mine?status=submitted', () => s1.token, 400, 40001],
    ['an empty status', () => '/homeworks/mine?status=', () => s1.token, 400, 40001],
    ['hostile HTML in status', () => `/homeworks/mine?status=${encodeURIComponent('<img src=x onerror=alert(1)>')}`, () => s1.token, 400, 40001],
    ['a 200 KB status', () => `/homeworks/mine?status=${'A'.repeat(200_000)}`, () => s1.token, 400, 40001],
  ]
  test.each(cases)('%s → %d', async (_name, path, token, status, code) => {
    const r = await api.get(path(), { token: token() })
    expect(r.status).toBe(status)
    expect(r.code).toBe(code)
    expect(r.data === null || typeof r.data === 'object').toBe(true)
  })

  test('served under /core/api/v1 as well', async () => {
    const r = await api.get('//core/api/v1/homeworks/mine', { token: s1.token })
    expect(r.status).toBe(200)
    expect(r.data.items).toHaveLength(5)
  })
})
