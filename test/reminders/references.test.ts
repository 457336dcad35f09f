import { beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse, insertPoint } from '../support/fixtures.ts'
import { testDatabase, usingExternalDb } from '../support/harness.ts'
import { plansOf } from '../support/plans.ts'
import { DAY, HOUR, bulkStudents, createHomework, eventsOf, plus } from '../support/reminders.ts'

/**
 * sql/026 and sql/027: a notification's user and event, and an event's task and student, are
 * checked once per statement by triggers instead of per-row foreign keys. The guarantees must be
 * the ones the foreign keys gave: no row referring to a missing one (SQLSTATE 23503, the whole
 * statement refused), events and notifications go when their user (or task) is deleted, also
 * through cascades, a notification forgets a deleted event, and nothing changes owner.
 */
let sql: Sql
beforeAll(async () => {
  sql = (await testDatabase()).sql
}, 30_000)

const T0 = new Date('2027-02-01T08:00:00.000Z')

async function homework(n = 2) {
  const [teacherId, ...students] = await bulkStudents(sql, n + 1)
  const c = await insertCourse(sql, teacherId!)
  for (const s of students) await addStudent(sql, c.id, s)
  const { pointId } = await insertPoint(sql, c.id)
  const hw = await createHomework(sql, c.id, pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
  return { courseId: c.id, teacherId: teacherId!, students, pointId, taskId: hw.id }
}

const sqlstate = (e: unknown) => (e instanceof postgres.PostgresError ? e.code : String(e))

function insertEvents(rows: { task_id: string; target_user_id: string }[]) {
  return sql`
    insert into homework_reminder_events ${sql(
      rows.map((r) => ({ id: newId(), ...r, trigger_type: 'DUE', scheduled_at: plus(T0, 10 * DAY) })),
      'id', 'task_id', 'target_user_id', 'trigger_type', 'scheduled_at',
    )}`
}

describe('reminder events refer to an existing task and student', () => {
  test('an event of a task or a user that does not exist is refused with 23503, and so is the whole statement', async () => {
    const h = await homework(1)
    const before = (await eventsOf(sql, h.taskId)).length
    expect(sqlstate(await insertEvents([{ task_id: newId(), target_user_id: h.students[0]! }]).catch((e) => e))).toBe('23503')
    expect(sqlstate(await insertEvents([{ task_id: h.taskId, target_user_id: newId() }]).catch((e) => e))).toBe('23503')
    // One bad row among good ones: nothing is written.
    const [other] = await bulkStudents(sql, 1)
    const res = await insertEvents([
      { task_id: h.taskId, target_user_id: other! },
      { task_id: h.taskId, target_user_id: newId() },
    ]).catch((e) => e)
    expect(sqlstate(res)).toBe('23503')
    expect(await eventsOf(sql, h.taskId)).toHaveLength(before)
    // A good statement still goes through.
    await insertEvents([{ task_id: h.taskId, target_user_id: other! }])
    expect(await eventsOf(sql, h.taskId)).toHaveLength(before + 1)
  })

  test('an event cannot move to another task or student', async () => {
    const h = await homework(2)
    const [e] = await eventsOf(sql, h.taskId)
    expect(sqlstate(await sql`update homework_reminder_events set target_user_id = ${h.students[1]!} where id = ${e!.id}`.catch((x) => x))).toBe('23503')
    const other = await createHomework(sql, h.courseId, h.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 4 * DAY) }, T0)
    expect(sqlstate(await sql`update homework_reminder_events set task_id = ${other.id} where id = ${e!.id}`.catch((x) => x))).toBe('23503')
    // Other columns change as before.
    await sql`update homework_reminder_events set canceled = true where id = ${e!.id}`
  })

  // Issue 30.3: the notification is not rewritten (nulling the key rewrote 100,000 rows for a
  // homework delivered to a MOOC); its event_id stays, a delivery key no row reads back (sql/037).
  test('deleting a homework deletes its events; a sent reminder keeps its notification untouched', async () => {
    const h = await homework(2)
    const keep = await homework(1)
    expect(await dispatch(sql, plus(T0, 2 * HOUR))).toMatchObject({ sent: expect.any(Number) })
    const [delivered] = await sql<{ id: string; event_id: string; xmin: string }[]>`
      select n.id, n.event_id, n.xmin::text from notifications n join homework_reminder_events e on e.id = n.event_id where e.task_id = ${h.taskId} limit 1`
    expect(delivered).toBeDefined()
    await sql`delete from learning_tasks where id = ${h.taskId}`
    expect(await eventsOf(sql, h.taskId)).toHaveLength(0)
    const [n] = await sql<{ event_id: string | null; xmin: string }[]>`select event_id, xmin::text from notifications where id = ${delivered!.id}`
    expect(n!.event_id).toBe(delivered!.event_id)
    expect(n!.xmin).toBe(delivered!.xmin)
    expect(await eventsOf(sql, keep.taskId)).toHaveLength(3)
  })

  test('deleting a course (points, tasks by cascade) deletes its events', async () => {
    const h = await homework(2)
    await sql`delete from courses where id = ${h.courseId}`
    expect(await eventsOf(sql, h.taskId)).toHaveLength(0)
  })

  test("deleting a user deletes that user's events only", async () => {
    const h = await homework(3)
    const [gone, ...stay] = h.students
    await sql`delete from users where id = ${gone!}`
    const events = await eventsOf(sql, h.taskId)
    expect(events).toHaveLength(6)
    expect(events.every((e) => stay.includes(e.target_user_id))).toBe(true)
  })
})

describe('notifications refer to an existing user and event', () => {
  function insertNotifications(rows: { user_id: string; event_id?: string | null }[]) {
    return sql`
      insert into notifications ${sql(
        rows.map((r) => ({ id: newId(), user_id: r.user_id, event_id: r.event_id ?? null, notification_type: 'ANNOUNCEMENT', title: 't', delivered_at: T0 })),
        'id', 'user_id', 'event_id', 'notification_type', 'title', 'delivered_at',
      )}`
  }
  const countersOf = async (userId: string) =>
    (await sql<{ total: number }[]>`select total from notification_counters where user_id = ${userId}`)[0]?.total ?? 0

  test('a notification of a missing user or event is refused with 23503, the whole statement with it', async () => {
    const [a, b] = await bulkStudents(sql, 2)
    expect(sqlstate(await insertNotifications([{ user_id: newId() }]).catch((e) => e))).toBe('23503')
    expect(sqlstate(await insertNotifications([{ user_id: a!, event_id: newId() }]).catch((e) => e))).toBe('23503')
    expect(sqlstate(await insertNotifications([{ user_id: a! }, { user_id: b! }, { user_id: newId() }]).catch((e) => e))).toBe('23503')
    expect(await countersOf(a!)).toBe(0)
    await insertNotifications([{ user_id: a! }, { user_id: b! }])
    expect(await countersOf(a!)).toBe(1)
  })

  test("a reminder notification is for its event's student: another user's, or a user deleted with the event, is refused", async () => {
    const h = await homework(2)
    const [mine, theirs] = h.students as [string, string]
    const [event] = await eventsOf(sql, h.taskId).then((es) => es.filter((e) => e.target_user_id === mine))
    // The event is the first student's: a notification of it for the second is refused (23503).
    expect(sqlstate(await insertNotifications([{ user_id: theirs, event_id: event!.id }]).catch((e) => e))).toBe('23503')
    expect(await countersOf(theirs)).toBe(0)
    await insertNotifications([{ user_id: mine, event_id: event!.id }])
    expect(await countersOf(mine)).toBe(1)
    // Deleting the student deletes their events (sql/027): a notification of one finds neither.
    const [gone] = await eventsOf(sql, h.taskId).then((es) => es.filter((e) => e.target_user_id === theirs))
    await sql`delete from users where id = ${theirs}`
    expect(sqlstate(await insertNotifications([{ user_id: theirs, event_id: gone!.id }]).catch((e) => e))).toBe('23503')
  })

  test('the counters add up for users with and without a counter row in one statement, and go down on delete', async () => {
    const [a, b, c] = await bulkStudents(sql, 3)
    await insertNotifications([{ user_id: a! }])
    // a has a row (updated), b and c not yet (inserted); a twice in the statement.
    await insertNotifications([{ user_id: a! }, { user_id: b! }, { user_id: a! }, { user_id: c! }])
    expect([await countersOf(a!), await countersOf(b!), await countersOf(c!)]).toEqual([3, 1, 1])
    await sql`delete from notifications where user_id in (${a!}, ${b!})`
    expect([await countersOf(a!), await countersOf(b!), await countersOf(c!)]).toEqual([0, 0, 1])
  })

  test("deleting a user deletes that user's notifications (and their counter row), no one else's", async () => {
    const [a, b] = await bulkStudents(sql, 2)
    await insertNotifications([{ user_id: a! }, { user_id: a! }, { user_id: b! }])
    await sql`delete from users where id = ${a!}`
    const rows = await sql<{ user_id: string }[]>`select user_id from notifications where user_id in (${a!}, ${b!})`
    expect(rows.map((r) => r.user_id)).toEqual([b!])
    expect(await sql`select 1 from notification_counters where user_id = ${a!}`).toHaveLength(0)
    expect(await countersOf(b!)).toBe(1)
  })

  test('a notification does not change owner; marking it read still works', async () => {
    const [a, b] = await bulkStudents(sql, 2)
    await insertNotifications([{ user_id: a! }])
    expect(sqlstate(await sql`update notifications set user_id = ${b!} where user_id = ${a!}`.catch((e) => e))).toBe('23503')
    await sql`update notifications set read_at = ${T0} where user_id = ${a!}`
    expect((await sql`select 1 from notifications where user_id = ${a!} and read_at is not null`).length).toBe(1)
  })
})

/**
 * sql/049: the reference checks of notifications, outbox rows and events probe the referenced
 * table by key, however many rows the statement has. As NOT EXISTS the planner hashed (or merged)
 * the whole referenced table once the statement was large enough (a dispatch batch of 5,000 read
 * all 580,001 events of the mooc bench): O(table) per statement, and events and notifications
 * grow without bound. On a test database a few hundred rows are enough for that plan. The plans
 * are read from auto_explain (PostgreSQL only: the embedded database has no auto_explain).
 */
describe.skipIf(!usingExternalDb())('reference checks by key (real PostgreSQL)', () => {
  test('300 events, 600 notifications and 300 mails in four statements: every check probes users, events and notifications by key', async () => {
    const h = await homework(1)
    const users = await bulkStudents(sql, 300)
    const plans = await plansOf(async (tx) => {
      const events = users.map((u) => ({ id: newId(), task_id: h.taskId, target_user_id: u, trigger_type: 'DUE', scheduled_at: plus(T0, 10 * DAY) }))
      await tx`insert into homework_reminder_events ${tx(events, 'id', 'task_id', 'target_user_id', 'trigger_type', 'scheduled_at')}`
      const reminders = events.map((e) => ({ id: newId(), user_id: e.target_user_id, notification_type: 'HOMEWORK_REMINDER', title: 't', delivered_at: T0, event_id: e.id }))
      await tx`insert into notifications ${tx(reminders, 'id', 'user_id', 'notification_type', 'title', 'delivered_at', 'event_id')}`
      const news = users.map((u) => ({ id: newId(), user_id: u, notification_type: 'ANNOUNCEMENT', title: 't', delivered_at: T0 }))
      await tx`insert into notifications ${tx(news, 'id', 'user_id', 'notification_type', 'title', 'delivered_at')}`
      const mails = news.map((n) => ({ id: newId(), notification_id: n.id, user_id: n.user_id, created_at: T0, next_attempt_at: T0 }))
      await tx`insert into email_outbox ${tx(mails, 'id', 'notification_id', 'user_id', 'created_at', 'next_attempt_at')}`
    })
    // The checks' statements: the events' students, the notifications' users and events, the mails' notifications.
    const checks = plans.filter((p) => /from new_rows/.test(p) && /from (users|homework_reminder_events|notifications) [a-z]\b/.test(p))
    expect(checks.length).toBeGreaterThanOrEqual(3)
    for (const plan of checks) {
      expect(plan).not.toMatch(/(Seq Scan|Bitmap Heap Scan) on (users|homework_reminder_events|notifications)\b/)
      expect(plan).not.toMatch(/(Hash|Merge)( Right)? Anti Join/)
    }
    const probed = checks.join('\n')
    for (const index of ['users_pkey', 'homework_reminder_events_pkey', 'notifications_pkey']) expect(probed).toContain(`using ${index}`)
  })
})
