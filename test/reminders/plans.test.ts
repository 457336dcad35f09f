import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { deliverDue } from '../../src/modules/reminders/delivery.ts'
import { insertCourse, insertPoint } from '../support/fixtures.ts'
import { testDatabase, usingExternalDb } from '../support/harness.ts'
import { plansOf } from '../support/plans.ts'
import { HOUR, DAY, bulkJoin, bulkStudents, createHomework, plus } from '../support/reminders.ts'

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
    await createHomework(sql, c.id, pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
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
