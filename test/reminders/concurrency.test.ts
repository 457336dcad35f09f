import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import type { Sql } from '../../src/db/connect.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { insertCourse, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { testDatabase, usingExternalDb } from '../support/harness.ts'
import { failingOn } from './faults.ts'
import { DAY, HOUR, bulkJoin, bulkStudents, createHomework, deliveriesOf, eventsOf, plus } from '../support/reminders.ts'

/**
 * Several instances scanning at the same moment, as two separate connection pools (two
 * processes would be no different to PostgreSQL). Only on a real server: the embedded
 * database serves one connection, so nothing would run concurrently there.
 */
describe.skipIf(!usingExternalDb())('several dispatchers at once (real PostgreSQL)', () => {
  let sql: Sql
  const pools: Sql[] = []
  beforeAll(async () => {
    sql = (await testDatabase()).sql
    for (let i = 0; i < 2; i++) {
      const pool = postgres(process.env.DATABASE_URL!, { max: 4, onnotice: () => {} })
      // Warm both pools so neither starts late.
      await Promise.all([pool`select 1`, pool`select 1`, pool`select 1`, pool`select 1`])
      pools.push(pool)
    }
  }, 30_000)
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end({ timeout: 5 })))
  })

  test('over 2000 due events: every event delivered exactly once, both dispatchers did work', async () => {
    const T = new Date('2029-01-01T08:00:00.000Z')
    const now = plus(T, 3 * DAY)
    // Whatever earlier runs left due by `now` is delivered first, so the counts below are ours.
    await dispatch(sql, now)

    const [teacherId, ...students] = await bulkStudents(sql, 101)
    const c = await insertCourse(sql, teacherId!, 'Concurrency')
    await bulkJoin(sql, c.id, students)
    const { pointId } = await insertPoint(sql, c.id)
    const tasks: string[] = []
    for (let i = 0; i < 7; i++) {
      tasks.push((await createHomework(sql, c.id, pointId, { title: `HW ${i}`, startAt: plus(T, (i + 1) * HOUR), dueAt: plus(T, 2 * DAY + i * HOUR) }, T)).id)
    }
    // A few students already submitted one homework: their BEFORE_DUE_24H and DUE are canceled.
    for (const s of students.slice(0, 5)) await insertSubmission(sql, tasks[0]!, c.id, s, plus(T, 2 * HOUR))
    const total = 100 * 7 * 3
    expect(await eventsOf(sql, tasks)).toHaveLength(total)

    // Two pools, two concurrent scans each: four dispatchers competing for the same rows.
    const [a1, b1, a2, b2] = await Promise.all([
      dispatch(pools[0]!, now, { batchSize: 50 }),
      dispatch(pools[1]!, now, { batchSize: 50 }),
      dispatch(pools[0]!, now, { batchSize: 50 }),
      dispatch(pools[1]!, now, { batchSize: 50 }),
    ])
    const sent = a1.sent + b1.sent + a2.sent + b2.sent
    const canceled = a1.canceled + b1.canceled + a2.canceled + b2.canceled
    expect({ sent, canceled }).toEqual({ sent: total - 10, canceled: 10 })
    expect(a1.sent + a2.sent).toBeGreaterThan(0)
    expect(b1.sent + b2.sent).toBeGreaterThan(0)

    const events = await eventsOf(sql, tasks)
    expect(events.filter((e) => e.sent_at && !e.canceled)).toHaveLength(total - 10)
    expect(events.filter((e) => e.canceled && !e.sent_at)).toHaveLength(10)
    const deliveries = await deliveriesOf(sql, tasks)
    expect(deliveries).toHaveLength(total - 10)
    expect(deliveries.every((d) => d.n === 1)).toBe(true)
    // And per student: exactly one notification per (task, trigger) that was sent.
    const [perUser] = await sql<{ max: number }[]>`
      select coalesce(max(k), 0)::int as max from (
        select count(*) as k
          from notifications n join homework_reminder_events e on e.id = n.event_id
         where e.task_id = any(${tasks}::uuid[])
         group by n.user_id, e.task_id, e.trigger_type) x`
    expect(perUser!.max).toBe(1)

    // A further scan by either finds nothing left.
    expect(await dispatch(pools[1]!, now)).toEqual({ sent: 0, canceled: 0 })
  }, 60_000)

  test('a dispatcher never waits on rows another one holds: SKIP LOCKED', async () => {
    const T = new Date('2029-02-01T08:00:00.000Z')
    const now = plus(T, 3 * DAY)
    await dispatch(sql, now)
    const [teacherId, ...students] = await bulkStudents(sql, 4)
    const c = await insertCourse(sql, teacherId!)
    await bulkJoin(sql, c.id, students)
    const { pointId } = await insertPoint(sql, c.id)
    const hw = await createHomework(sql, c.id, pointId, { startAt: plus(T, HOUR), dueAt: plus(T, 2 * DAY) }, T)

    // Another instance holds every due event of this homework in an open transaction.
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let locked!: () => void
    const isLocked = new Promise<void>((r) => (locked = r))
    const holder = pools[0]!.begin(async (tx) => {
      await tx`select id from homework_reminder_events where task_id = ${hw.id} for update`
      locked()
      await held
    })
    await isLocked
    const started = performance.now()
    const r = await dispatch(pools[1]!, now)
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(r.sent).toBe(0)
    release()
    await holder
    // Once released, the next scan delivers them.
    expect(await dispatch(pools[1]!, now)).toEqual({ sent: 9, canceled: 0 })
  }, 30_000)

  describe('one dispatch() with two workers (batches in flight on two connections)', () => {
    async function seedDue(T: Date, students: number, homeworks: number) {
      const [teacherId, ...ids] = await bulkStudents(sql, students + 1)
      const c = await insertCourse(sql, teacherId!)
      await bulkJoin(sql, c.id, ids)
      const { pointId } = await insertPoint(sql, c.id)
      const tasks: string[] = []
      for (let i = 0; i < homeworks; i++) {
        tasks.push((await createHomework(sql, c.id, pointId, { title: `W ${i}`, startAt: plus(T, (i + 1) * HOUR), dueAt: plus(T, 2 * DAY) }, T)).id)
      }
      return { tasks, total: students * homeworks * 3 }
    }

    test('every event delivered exactly once, notification counters right', async () => {
      const T = new Date('2029-03-01T08:00:00.000Z')
      const now = plus(T, 3 * DAY)
      await dispatch(sql, now)
      const { tasks, total } = await seedDue(T, 60, 5) // 900 events
      const r = await dispatch(pools[0]!, now, { batchSize: 40, workers: 2 })
      expect(r).toEqual({ sent: total, canceled: 0 })
      const deliveries = await deliveriesOf(sql, tasks)
      expect(deliveries).toHaveLength(total)
      expect(deliveries.every((d) => d.n === 1)).toBe(true)
      const [off] = await sql<{ n: number }[]>`
        select count(*)::int as n from notification_counters c
          join (select user_id, count(*)::int as total, (count(*) filter (where read_at is null and notification_type = 'HOMEWORK_REMINDER'))::int as reminders
                  from notifications group by user_id) x on x.user_id = c.user_id
         where c.total <> x.total or c.unread_reminders <> x.reminders`
      expect(off!.n).toBe(0)
    }, 60_000)

    test('a failing batch: the error is thrown, the other worker stops, the next dispatch delivers the rest once', async () => {
      const T = new Date('2029-04-01T08:00:00.000Z')
      const now = plus(T, 3 * DAY)
      await dispatch(sql, now)
      const { tasks, total } = await seedDue(T, 30, 4) // 360 events
      const faulty = failingOn(pools[0]!, /set sent_at/, 3)
      expect(String(await dispatch(faulty, now, { batchSize: 20, workers: 2 }).catch((e) => e))).toContain('injected failure')
      const delivered = (await eventsOf(sql, tasks)).filter((e) => e.sent_at).length
      // Two batches went through before the failure; the other worker stopped soon after.
      expect(delivered).toBeGreaterThanOrEqual(40)
      expect(delivered).toBeLessThan(total)
      expect(await deliveriesOf(sql, tasks)).toHaveLength(delivered)

      expect(await dispatch(pools[1]!, now, { batchSize: 20, workers: 2 })).toEqual({ sent: total - delivered, canceled: 0 })
      const deliveries = await deliveriesOf(sql, tasks)
      expect(deliveries).toHaveLength(total)
      expect(deliveries.every((d) => d.n === 1)).toBe(true)
    }, 60_000)
  })
})
