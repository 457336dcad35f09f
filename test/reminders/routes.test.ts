import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, testDatabase, type Account, type Client } from '../support/harness.ts'
import { DAY, HOUR, createHomework, plus, rescheduleHomework } from '../support/reminders.ts'

const T0 = new Date('2028-03-01T08:00:00.000Z')
const clock = new ManualClock(T0)
let api: Client
let sql: Sql
let teacher: Account, s1: Account, s2: Account, otherTeacher: Account
let courseId: string, otherCourseId: string
let taskId: string, otherTaskId: string, learningTaskId: string

beforeAll(async () => {
  sql = (await testDatabase()).sql
  ;({ api } = await testApp({ clock }))
  ;[teacher, otherTeacher, s1, s2] = await Promise.all([signUp(api, 'TEACHER'), signUp(api, 'TEACHER'), signUp(api), signUp(api)])
  courseId = (await insertCourse(sql, teacher.id)).id
  otherCourseId = (await insertCourse(sql, otherTeacher.id)).id
  await addStudent(sql, courseId, s1.id)
  await addStudent(sql, courseId, s2.id)
  const { pointId } = await insertPoint(sql, courseId)
  taskId = (await createHomework(sql, courseId, pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)).id
  const other = await insertPoint(sql, otherCourseId)
  otherTaskId = (await createHomework(sql, otherCourseId, other.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)).id
  learningTaskId = newId()
  await sql`
    insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, sort_order)
    values (${learningTaskId}, ${pointId}, ${courseId}, 'reading', 'LEARNING', 'MEDIA', 'TEXT', 9)`
}, 30_000)

const path = (c = courseId, t = taskId) => `/courses/${c}/homeworks/${t}/reminders`

describe('GET /courses/{courseId}/homeworks/{taskId}/reminders', () => {
  test('lists every event with trigger, target, time and state, ordered by scheduledAt', async () => {
    const r = await api.get(path(), { token: teacher.token })
    expect(r.status).toBe(200)
    expect(r.code).toBe(0)
    expect(r.data).toHaveLength(6)
    for (const e of r.data) {
      expect(Object.keys(e).sort()).toEqual(['canceled', 'id', 'scheduledAt', 'sentAt', 'state', 'targetUserId', 'taskId', 'triggerType'])
      expect(e).toMatchObject({ taskId, sentAt: null, canceled: false, state: 'PENDING' })
    }
    expect(r.data.map((e: any) => [e.triggerType, e.scheduledAt])).toEqual([
      ['START', plus(T0, HOUR).toISOString()],
      ['START', plus(T0, HOUR).toISOString()],
      ['BEFORE_DUE_24H', plus(T0, 2 * DAY).toISOString()],
      ['BEFORE_DUE_24H', plus(T0, 2 * DAY).toISOString()],
      ['DUE', plus(T0, 3 * DAY).toISOString()],
      ['DUE', plus(T0, 3 * DAY).toISOString()],
    ])
    expect(new Set(r.data.map((e: any) => e.targetUserId))).toEqual(new Set([s1.id, s2.id]))
  })

  test('shows SENT, CANCELED (reschedule, already submitted) and the new PENDING events', async () => {
    await dispatch(sql, plus(T0, HOUR))
    await insertSubmission(sql, taskId, courseId, s1.id, plus(T0, 2 * HOUR))
    // Due moves one day later.
    await rescheduleHomework(sql, taskId, { dueAt: plus(T0, 4 * DAY) }, plus(T0, 3 * HOUR))
    await dispatch(sql, plus(T0, 3 * DAY))
    const r = await api.get(path(), { token: teacher.token })
    const rows = r.data.map((e: any) => [e.triggerType, e.targetUserId === s1.id ? 's1' : 's2', e.state, e.scheduledAt])
    const d = (ms: number) => plus(T0, ms).toISOString()
    expect(rows).toEqual(
      expect.arrayContaining([
        ['START', 's1', 'SENT', d(HOUR)],
        ['START', 's2', 'SENT', d(HOUR)],
        // The old BEFORE_DUE_24H / DUE, canceled by the reschedule.
        ['BEFORE_DUE_24H', 's1', 'CANCELED', d(2 * DAY)],
        ['BEFORE_DUE_24H', 's2', 'CANCELED', d(2 * DAY)],
        ['DUE', 's1', 'CANCELED', d(3 * DAY)],
        ['DUE', 's2', 'CANCELED', d(3 * DAY)],
        // The new ones: s1 had submitted, so theirs was canceled when it came due.
        ['BEFORE_DUE_24H', 's1', 'CANCELED', d(3 * DAY)],
        ['BEFORE_DUE_24H', 's2', 'SENT', d(3 * DAY)],
        ['DUE', 's1', 'PENDING', d(4 * DAY)],
        ['DUE', 's2', 'PENDING', d(4 * DAY)],
      ]),
    )
    expect(rows).toHaveLength(10)
    const times = r.data.map((e: any) => e.scheduledAt)
    expect(times).toEqual([...times].sort())
    const sent = r.data.find((e: any) => e.state === 'SENT')
    expect(sent.sentAt).toBe(plus(T0, HOUR).toISOString())
    expect(sent.canceled).toBe(false)
  })

  test('a homework with no events (all switches off) lists nothing', async () => {
    const { pointId } = await insertPoint(sql, courseId)
    const quiet = await createHomework(
      sql,
      courseId,
      pointId,
      { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY), notifyOnStart: false, notifyBeforeDue24h: false, notifyOnDue: false },
      T0,
    )
    const r = await api.get(path(courseId, quiet.id), { token: teacher.token })
    expect(r.status).toBe(200)
    expect(r.data).toEqual([])
  })

  const cases: [string, () => string, () => string | undefined, number, number][] = [
    ['no credentials', () => path(), () => undefined, 401, 40100],
    ['a student of the course', () => path(), () => s1.token, 403, 40300],
    ['the teacher of another course', () => path(), () => otherTeacher.token, 403, 40300],
    ['an unknown course', () => path(newId()), () => teacher.token, 404, 40401],
    ['an unknown task', () => path(courseId, newId()), () => teacher.token, 404, 40404],
    ['a homework of another course', () => path(courseId, otherTaskId), () => teacher.token, 404, 40404],
    ['a task that is not homework', () => path(courseId, learningTaskId), () => teacher.token, 404, 40404],
    ['a task id that is not a UUID', () => path(courseId, 'abc'), () => teacher.token, 400, 40001],
    ['a course id that is not a UUID', () => path('abc'), () => teacher.token, 400, 40001],
    ['a 200 KB task id', () => path(courseId, 'x'.repeat(200_000)), () => teacher.token, 400, 40001],
  ]
  test.each(cases)('%s → %d', async (_name, p, token, status, code) => {
    const r = await api.get(p(), { token: token() })
    expect(r.status).toBe(status)
    expect(r.code).toBe(code)
  })
})
