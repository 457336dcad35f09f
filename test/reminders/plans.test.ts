import { beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import type { Sql } from '../../src/db/connect.ts'
import { deliverDue } from '../../src/modules/reminders/delivery.ts'
import { insertCourse, insertPoint } from '../support/fixtures.ts'
import { testDatabase, usingExternalDb } from '../support/harness.ts'
import { plansOf } from '../support/plans.ts'
import { HOUR, DAY, bulkJoin, bulkStudents, createHomework, eventsOf, joinLate, plus } from '../support/reminders.ts'

/**
 * The dispatch batch marks its events by key, whatever the sizes (delivery.ts). Joined to its
 * judged events by id, the planner hashed the whole events table once a batch was large for the
 * table: batches of 5,000 in the mooc bench (500,000 events: a seq scan and a hash spilled to
 * disk, 115 of 274 ms), and a test database's few thousand events for a batch of 300. Plans from
 * auto_explain (support/plans.ts: PostgreSQL only).
 */
let sql: Sql
beforeAll(async () => {
  sql = (await testDatabase()).sql
}, 30_000)

const T0 = new Date('2031-05-01T08:00:00.000Z')

describe.skipIf(!usingExternalDb())('the dispatch batch by key (real PostgreSQL)', () => {
  test('300 due START events: the batch marks them through the primary key, never by reading the events table', async () => {
    const [teacherId, ...students] = await bulkStudents(sql, 301)
    const c = await insertCourse(sql, teacherId!)
    await bulkJoin(sql, c.id, students)
    const { pointId } = await insertPoint(sql, c.id)
    const hw = await createHomework(sql, c.id, pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    // History around the batch, as in any database that has run a while (30,000 canceled events):
    // in a table of the batch's own 900 events a scan of it is the cheaper plan, and chosen.
    await sql`
      insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, canceled, created_at)
      select gen_uuid_v7(), ${hw.id}, s.id, 'DUE', ${plus(T0, -DAY)}::timestamptz - n * interval '1 minute', true, ${plus(T0, -DAY)}
        from unnest(${students}::uuid[]) as s (id) cross join generate_series(1, 100) as n`
    // Statistics that know the table and the due events, as autovacuum would have them.
    await sql`analyze homework_reminder_events`
    let claimed = 0
    const plans = await plansOf(async (tx) => {
      claimed = (await deliverDue(tx, plus(T0, 2 * HOUR), 2000, [])).claimed
    })
    expect(claimed).toBeGreaterThanOrEqual(300)
    // The marking step of the batch's plan: from its CTE to the next one.
    const marking = /CTE marked\n([^]*?)\n  CTE /.exec(plans.find((p) => /Update on homework_reminder_events/.test(p)) ?? '')?.[1]
    expect(marking).toContain('Update on homework_reminder_events')
    expect(marking).not.toMatch(/(Seq Scan|Bitmap Heap Scan) on homework_reminder_events\b/)
    expect(marking).toMatch(/Index Scan using homework_reminder_events_pkey on homework_reminder_events/)
  })
})

/**
 * A late joiner's events (joins by invite code) come from statements with scalar parameters:
 * with the course and student as one-element arrays, PostgreSQL could not size them when
 * planning generically and re-planned both statements at every join (custom plans: ~0.24 ms of
 * a join's ~1.5 ms of database CPU in the mooc bench). Read from pg_prepared_statements of the
 * connection that ran them; on both databases.
 */
describe('a late joiner\'s events are planned once per connection', () => {
  test('eight joins on one connection: the lock and the insert run generic plans', async () => {
    // The embedded database is one connection already; on PostgreSQL, one of our own.
    const conn = usingExternalDb() ? (postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} }) as unknown as Sql) : sql
    try {
      const [teacherId, ...students] = await bulkStudents(sql, 9)
      const c = await insertCourse(sql, teacherId!)
      const { pointId } = await insertPoint(sql, c.id)
      const open = await createHomework(sql, c.id, pointId, { startAt: plus(T0, -HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
      await createHomework(sql, c.id, pointId, { startAt: plus(T0, DAY), dueAt: plus(T0, 4 * DAY) }, T0)
      for (const s of students) await joinLate(conn, c.id, s, T0)
      // The open homework: START now, then the two due reminders, for each of the eight.
      const events = await eventsOf(sql, open.id)
      const eight = (trigger: string, at: Date) => Array.from({ length: 8 }, () => `${trigger} ${at.toISOString()}`)
      expect(events.map((e) => `${e.trigger_type} ${e.scheduled_at.toISOString()}`)).toEqual([
        ...eight('START', T0), ...eight('BEFORE_DUE_24H', plus(T0, 2 * DAY)), ...eight('DUE', plus(T0, 3 * DAY)),
      ])
      const prepared = await conn<{ statement: string; generic_plans: number; custom_plans: number }[]>`
        select statement, generic_plans::int, custom_plans::int from pg_prepared_statements
         where statement ~ '^\\s*(insert into homework_reminder_events|select 1 from learning_tasks t where)'`
      const insert = prepared.find((p) => /^\s*insert into homework_reminder_events/.test(p.statement) && /as j \(course_id, user_id\)/.test(p.statement))
      const lock = prepared.find((p) => /for key share of t/.test(p.statement))
      expect(insert?.generic_plans).toBeGreaterThan(0)
      expect(lock?.generic_plans).toBeGreaterThan(0)
    } finally {
      if (conn !== sql) await conn.end()
    }
  })
})
