import { beforeAll, describe, expect, test } from 'bun:test'
import { renderNotification, type NotificationParams } from '../../src/modules/notifications/texts.ts'
import type { Sql } from '../../src/db/connect.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { testDatabase } from '../support/harness.ts'
import { failingOn } from './faults.ts'
import { DAY, HOUR, bulkJoin, bulkStudents, createHomework, deliveriesOf, eventsOf, pending, plus } from '../support/reminders.ts'

let sql: Sql
beforeAll(async () => {
  sql = (await testDatabase()).sql
}, 30_000)

// Each test uses its own stretch of time, far from the others, so that a dispatch only meets
// the events of its own test (earlier stretches are flushed before a test starts).
let base = new Date('2027-03-01T08:00:00.000Z')
async function freshStretch() {
  base = plus(base, 30 * DAY)
  await dispatch(sql, base)
  return base
}

async function course(n: number, title = 'Algorithms') {
  const [teacherId, ...students] = await bulkStudents(sql, n + 1)
  const c = await insertCourse(sql, teacherId!, title)
  await bulkJoin(sql, c.id, students)
  const { pointId } = await insertPoint(sql, c.id)
  return { courseId: c.id, students, pointId }
}

/** A fresh stretch, a course of `n` students and a homework that opens an hour in and is due three days in. */
async function homeworkInAnHour(n: number, courseTitle?: string, title?: string) {
  const T = await freshStretch()
  const c = await course(n, courseTitle)
  const startAt = plus(T, HOUR)
  const dueAt = plus(T, 3 * DAY)
  const hw = await createHomework(sql, c.courseId, c.pointId, { ...(title ? { title } : {}), startAt, dueAt }, T)
  return { T, c, startAt, dueAt, hw }
}

/** A stored row's text in English at `now`, as the inbox renders it. */
const text = (n: { title: string; content: string; params: NotificationParams }, now: Date) => renderNotification({ title: n.title, content: n.content }, n.params, 'en', now)

const notificationsFor = (taskId: string) => sql<
  { user_id: string; notification_type: string; title: string; content: string; action_path: string; delivered_at: Date; read_at: Date | null; event_id: string; trigger_type: string; params: NotificationParams }[]
>`
  select n.user_id, n.notification_type, n.title, n.content, n.action_path, n.delivered_at, n.read_at, n.event_id, e.trigger_type, n.params
    from notifications n join homework_reminder_events e on e.id = n.event_id
   where e.task_id = ${taskId}
   order by e.scheduled_at, n.user_id`

describe('dispatch', () => {
  test('sends each trigger when its time comes: sent_at and one notification per event', async () => {
    const { T, c, startAt, dueAt, hw } = await homeworkInAnHour(2, 'Graph Theory', 'Dijkstra drill')

    // 1 ms early: nothing.
    await dispatch(sql, plus(startAt, -1))
    expect(pending(await eventsOf(sql, hw.id))).toHaveLength(6)

    // At START exactly (scheduled_at <= now).
    const r1 = await dispatch(sql, startAt)
    expect(r1).toEqual({ sent: 2, canceled: 0 })
    let events = await eventsOf(sql, hw.id)
    expect(events.filter((e) => e.sent_at).map((e) => [e.trigger_type, e.sent_at!.toISOString()])).toEqual([
      ['START', startAt.toISOString()],
      ['START', startAt.toISOString()],
    ])
    const [n] = await notificationsFor(hw.id)
    // No wording is stored (issue 28): the row keeps params, rendered for its reader when read.
    expect(n).toMatchObject({
      notification_type: 'HOMEWORK_REMINDER',
      title: '',
      content: '',
      action_path: `/courses/${c.courseId}?taskId=${hw.id}`,
      read_at: null,
      trigger_type: 'START',
      params: { kind: 'HOMEWORK_REMINDER', trigger: 'START', taskTitle: 'Dijkstra drill', courseTitle: 'Graph Theory', dueAt: dueAt.toISOString() },
    })
    expect(text(n!, startAt)).toEqual({ title: 'New homework: Dijkstra drill', content: '"Dijkstra drill" in Graph Theory is open. It is due in 3 days.' })
    expect(n!.delivered_at.toISOString()).toBe(startAt.toISOString())

    // BEFORE_DUE_24H, then DUE.
    expect(await dispatch(sql, plus(dueAt, -DAY))).toEqual({ sent: 2, canceled: 0 })
    expect(await dispatch(sql, dueAt)).toEqual({ sent: 2, canceled: 0 })
    events = await eventsOf(sql, hw.id)
    expect(events.every((e) => e.sent_at && !e.canceled)).toBe(true)
    const all = await notificationsFor(hw.id)
    expect(all.map((x) => x.trigger_type)).toEqual(['START', 'START', 'BEFORE_DUE_24H', 'BEFORE_DUE_24H', 'DUE', 'DUE'])
    expect(text(all[2]!, dueAt).title).toBe('Homework due in 24 hours: Dijkstra drill')
    expect(text(all[2]!, dueAt).content).toBe('"Dijkstra drill" in Graph Theory is due in 24 hours. Remember to submit it in time.')
    expect(text(all[4]!, dueAt).title).toBe('Homework due now: Dijkstra drill')
    expect(text(all[4]!, dueAt).content).toContain('is due now.')
    // No clock time fixed in one zone (issue 12.5): the structure travels in params.
    expect(all.some((x) => /UTC|\d{2}:\d{2}/.test(x.title + x.content))).toBe(false)
    expect(new Set(all.map((x) => x.user_id))).toEqual(new Set(c.students))

    // Nothing is delivered twice.
    expect(await dispatch(sql, plus(dueAt, HOUR))).toEqual({ sent: 0, canceled: 0 })
    expect((await deliveriesOf(sql, [hw.id])).every((d) => d.n === 1)).toBe(true)
  })

  test('an event that already has its notification (its sent_at reset by hand) is marked sent again, not delivered twice', async () => {
    // The batch inserts plainly first; meeting the existing notification (23505) it is repeated
    // with ON CONFLICT, so the other events of the batch are still delivered.
    const { T, c, startAt, hw } = await homeworkInAnHour(3, 'Topology', 'Open sets')
    expect(await dispatch(sql, startAt)).toEqual({ sent: 3, canceled: 0 })
    const [first] = (await eventsOf(sql, hw.id)).filter((e) => e.sent_at)
    await sql`update homework_reminder_events set sent_at = null where id = ${first!.id}`
    const other = await createHomework(sql, c.courseId, c.pointId, { title: 'Closed sets', startAt, dueAt: plus(T, 3 * DAY) }, T)
    expect(await dispatch(sql, plus(startAt, 1))).toEqual({ sent: 4, canceled: 0 })
    expect((await eventsOf(sql, hw.id)).filter((e) => e.trigger_type === 'START').every((e) => e.sent_at && !e.canceled)).toBe(true)
    expect((await deliveriesOf(sql, [hw.id, other.id])).map((d) => d.n)).toEqual([1, 1, 1, 1, 1, 1])
    expect(await notificationsFor(other.id)).toHaveLength(3)
  })

  test('the event key (sql/051) holds reminders only: a second notification of an event is refused, notifications without one take no entry', async () => {
    const [index] = await sql<{ def: string }[]>`select indexdef as def from pg_indexes where indexname = 'notifications_event_id_key'`
    expect(index!.def).toMatch(/^CREATE UNIQUE INDEX notifications_event_id_key ON (public\.)?notifications USING btree \(event_id\) WHERE \(event_id IS NOT NULL\)$/)
    const { T, c, startAt, hw } = await homeworkInAnHour(1, 'Measure theory', 'Sigma algebras')
    expect(await dispatch(sql, startAt)).toEqual({ sent: 1, canceled: 0 })
    const [sent] = (await eventsOf(sql, hw.id)).filter((e) => e.sent_at)
    const insert = (eventId: string | null) => sql`
      insert into notifications (id, user_id, notification_type, title, content, delivered_at, event_id)
      values (gen_uuid_v7(), ${c.students[0]!}, ${eventId ? 'HOMEWORK_REMINDER' : 'ANNOUNCEMENT'}, 'x', '', ${T}, ${eventId})`
    expect(await insert(sent!.id).catch((e) => e.code)).toBe('23505')
    await insert(null)
    await insert(null)
    const [n] = await sql<{ n: number }[]>`select count(*)::int as n from notifications where user_id = ${c.students[0]!} and event_id is null`
    expect(n!.n).toBe(2)
  })

  test('skip-if-submitted: BEFORE_DUE_24H and DUE of a student who submitted are canceled, not sent', async () => {
    const { T, c, startAt, dueAt, hw } = await homeworkInAnHour(2)
    const [done, notYet] = c.students as [string, string]
    await dispatch(sql, startAt)
    await insertSubmission(sql, hw.id, c.courseId, done, plus(startAt, HOUR))

    expect(await dispatch(sql, plus(dueAt, -DAY))).toEqual({ sent: 1, canceled: 1 })
    expect(await dispatch(sql, dueAt)).toEqual({ sent: 1, canceled: 1 })

    const events = await eventsOf(sql, hw.id)
    const of = (u: string) => Object.fromEntries(events.filter((e) => e.target_user_id === u).map((e) => [e.trigger_type, e.canceled ? 'CANCELED' : e.sent_at ? 'SENT' : 'PENDING']))
    expect(of(done)).toEqual({ START: 'SENT', BEFORE_DUE_24H: 'CANCELED', DUE: 'CANCELED' })
    expect(of(notYet)).toEqual({ START: 'SENT', BEFORE_DUE_24H: 'SENT', DUE: 'SENT' })
    expect((await notificationsFor(hw.id)).filter((n) => n.user_id === done).map((n) => n.trigger_type)).toEqual(['START'])
  })

  test('START is sent even to a student who already submitted (it is not a nag)', async () => {
    const T = await freshStretch()
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T, HOUR), dueAt: plus(T, 3 * DAY) }, T)
    await insertSubmission(sql, hw.id, c.courseId, c.students[0]!, plus(T, 10 * 60_000))
    expect(await dispatch(sql, plus(T, HOUR))).toEqual({ sent: 1, canceled: 0 })
  })

  test('events of a student who left the course or of a task that is no longer homework are canceled', async () => {
    const T = await freshStretch()
    const c = await course(2)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T, HOUR), dueAt: plus(T, 3 * DAY) }, T)
    await sql`delete from course_members where course_id = ${c.courseId} and user_id = ${c.students[0]!}`
    expect(await dispatch(sql, plus(T, HOUR))).toEqual({ sent: 1, canceled: 1 })
    await sql`update learning_tasks set task_kind = 'LEARNING' where id = ${hw.id}`
    expect(await dispatch(sql, plus(T, 3 * DAY))).toEqual({ sent: 0, canceled: 4 })
  })

  test('catch-up after downtime: events that came due hours ago are all sent on the next dispatch', async () => {
    const T = await freshStretch()
    const c = await course(3)
    const a = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T, HOUR), dueAt: plus(T, 2 * DAY) }, T)
    const b = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T, 2 * HOUR), dueAt: plus(T, 30 * HOUR) }, T)
    // The service was down from T until well after both homeworks were due.
    const back = plus(T, 2 * DAY + 5 * HOUR)
    const r = await dispatch(sql, back, { batchSize: 4 })
    expect(r).toEqual({ sent: 18, canceled: 0 })
    const events = await eventsOf(sql, [a.id, b.id])
    expect(events).toHaveLength(18)
    expect(events.every((e) => e.sent_at?.toISOString() === back.toISOString())).toBe(true)
    const deliveries = await deliveriesOf(sql, [a.id, b.id])
    expect(deliveries).toHaveLength(18)
    expect(deliveries.every((d) => d.n === 1)).toBe(true)
  })

  test('late events of a student who submitted meanwhile are canceled on catch-up', async () => {
    const T = await freshStretch()
    const c = await course(2)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T, HOUR), dueAt: plus(T, 2 * DAY) }, T)
    await insertSubmission(sql, hw.id, c.courseId, c.students[0]!, plus(T, 3 * HOUR))
    expect(await dispatch(sql, plus(T, 3 * DAY))).toEqual({ sent: 4, canceled: 2 })
  })

  describe('a dispatch that fails half-way', () => {
    async function seed(n: number) {
      const T = await freshStretch()
      const c = await course(n)
      const tasks = []
      for (let i = 0; i < 4; i++) {
        tasks.push((await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T, (i + 1) * HOUR), dueAt: plus(T, 2 * DAY) }, T)).id)
      }
      return { tasks, now: plus(T, 3 * DAY), total: n * 4 * 3 }
    }

    test('rolls back the failing batch (earlier batches stay delivered) and the next dispatch delivers the rest once', async () => {
      const { tasks, now, total } = await seed(3) // 36 events
      // The second batch fails (one worker, so "the second batch" is well defined).
      const faulty = failingOn(sql, /set sent_at/, 2)
      expect(String(await dispatch(faulty, now, { batchSize: 15, workers: 1 }).catch((e) => e))).toContain('injected failure')
      expect(faulty.failures).toBe(1)

      let events = await eventsOf(sql, tasks)
      expect(events.filter((e) => e.sent_at)).toHaveLength(15)
      expect(pending(events)).toHaveLength(total - 15)
      // A notification exists exactly for the events marked sent.
      const delivered = new Set((await deliveriesOf(sql, tasks)).map((d) => d.event_id))
      expect(delivered).toEqual(new Set(events.filter((e) => e.sent_at).map((e) => e.id)))

      const r = await dispatch(sql, now, { batchSize: 15 })
      expect(r).toEqual({ sent: total - 15, canceled: 0 })
      events = await eventsOf(sql, tasks)
      expect(events.every((e) => e.sent_at)).toBe(true)
      const deliveries = await deliveriesOf(sql, tasks)
      expect(deliveries).toHaveLength(total)
      expect(deliveries.every((d) => d.n === 1)).toBe(true)
    })

    test('a failure in the first batch, including its cancellations, leaves everything as it was', async () => {
      const { tasks, now, total } = await seed(2) // 24 events
      const [task] = tasks
      const [student] = (await eventsOf(sql, task!)).map((e) => e.target_user_id)
      const courseId = (await sql<{ course_id: string }[]>`select course_id from learning_tasks where id = ${task!}`)[0]!.course_id
      await insertSubmission(sql, task!, courseId, student!, plus(now, -2 * DAY - 30 * 60_000))

      const faulty = failingOn(sql, /insert into notifications/, 1)
      expect(String(await dispatch(faulty, now, { workers: 1 }).catch((e) => e))).toContain('injected failure')
      const before = await eventsOf(sql, tasks)
      expect(pending(before)).toHaveLength(total)
      expect(await deliveriesOf(sql, tasks)).toHaveLength(0)

      expect(await dispatch(sql, now)).toEqual({ sent: total - 2, canceled: 2 })
      expect(await deliveriesOf(sql, tasks)).toHaveLength(total - 2)
    })
  })
})
