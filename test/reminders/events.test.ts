import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { homeworkScheduleChanged } from '../../src/modules/reminders/hooks.ts'
import { addStudent, insertCourse, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { testDatabase } from '../support/harness.ts'
import { DAY, HOUR, bulkJoin, bulkStudents, createHomework, eventsOf, joinLate, live, pending, plus, rescheduleHomework } from '../support/reminders.ts'

let sql: Sql
beforeAll(async () => {
  sql = (await testDatabase()).sql
}, 30_000)

const T0 = new Date('2026-12-01T08:00:00.000Z')

/** A course with its teacher, `n` students and a knowledge point. */
async function course(n = 2) {
  const [teacherId, ...students] = await bulkStudents(sql, n + 1)
  const c = await insertCourse(sql, teacherId!)
  for (const s of students) await addStudent(sql, c.id, s)
  const { pointId } = await insertPoint(sql, c.id)
  return { courseId: c.id, teacherId: teacherId!, students, pointId }
}

const shape = (events: { trigger_type: string; scheduled_at: Date }[]) =>
  events.map((e) => [e.trigger_type, e.scheduled_at.toISOString()]).sort()

describe('generating events when a homework is created', () => {
  test('one event per student and trigger, at START = startAt, BEFORE_DUE_24H = dueAt - 24h, DUE = dueAt', async () => {
    const c = await course(2)
    const startAt = plus(T0, 2 * HOUR)
    const dueAt = plus(T0, 3 * DAY)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt, dueAt }, T0)
    const events = await eventsOf(sql, hw.id)
    expect(events).toHaveLength(6)
    for (const s of c.students) {
      expect(shape(events.filter((e) => e.target_user_id === s))).toEqual(
        shape([
          { trigger_type: 'START', scheduled_at: startAt },
          { trigger_type: 'BEFORE_DUE_24H', scheduled_at: new Date('2026-12-03T08:00:00.000Z') },
          { trigger_type: 'DUE', scheduled_at: dueAt },
        ]),
      )
    }
    expect(events.every((e) => !e.canceled && e.sent_at === null)).toBe(true)
    // Ids generated in SQL are UUIDv7, like the app's.
    expect(events.every((e) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(e.id))).toBe(true)
    // The teacher is not a target.
    expect(events.some((e) => e.target_user_id === c.teacherId)).toBe(false)
  })

  /** A homework created for a course of 200 students (its events: 600, three triggers). */
  async function homeworkOf200() {
    const [teacherId, ...students] = await bulkStudents(sql, 201)
    const c = await insertCourse(sql, teacherId!)
    await bulkJoin(sql, c.id, students)
    const { pointId } = await insertPoint(sql, c.id)
    const hw = await createHomework(sql, c.id, pointId, { startAt: plus(T0, 2 * HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    return { hw, students }
  }

  test('written trigger by trigger: the events one dispatch moment sends lie together on the heap', async () => {
    // Issue 26: the events of one trigger (100,001 STARTs) are marked sent together; written
    // student by student they were one in three on every page of the homework's events. With
    // 200 students each trigger's rows fill pages of their own, so the pages holding STARTs and
    // those holding DUEs are disjoint (written student by student, every page holds both). Pages,
    // not the order within them: where a row lands is the free-space map's choice.
    const { hw } = await homeworkOf200()
    const pages = await sql<{ trigger_type: string; pages: number[] }[]>`
      select trigger_type, array_agg(distinct (ctid::text::point)[0]::int) as pages
        from homework_reminder_events where task_id = ${hw.id} group by trigger_type order by trigger_type`
    const of = (t: string) => new Set(pages.find((p) => p.trigger_type === t)!.pages)
    expect(pages.map((p) => p.trigger_type)).toEqual(['BEFORE_DUE_24H', 'DUE', 'START'])
    const start = of('START')
    expect(start.size).toBeGreaterThan(1)
    expect([...of('DUE')].filter((p) => start.has(p))).toEqual([])
  })

  test('their ids ascend in that order: the dispatch claims (scheduled_at, id) student by student, page after page', async () => {
    // The ids of one INSERT … SELECT count up in its ORDER BY (db/uuid-v7.ts uuidV7Rows): the
    // claim order of a trigger's events is the order they were written in. Before, each row drew
    // a random id within its millisecond, so the claim jumped between the trigger's pages.
    const { hw, students } = await homeworkOf200()
    const claimed = await sql<{ target_user_id: string; id: string }[]>`
      select target_user_id, id::text from homework_reminder_events
       where task_id = ${hw.id} and trigger_type = 'START' order by scheduled_at, id`
    expect(claimed.map((e) => e.target_user_id)).toEqual([...students].sort())
    for (const e of claimed) expect(e.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  test.each([
    ['START off', { notifyOnStart: false }, ['BEFORE_DUE_24H', 'DUE']],
    ['BEFORE_DUE_24H off', { notifyBeforeDue24h: false }, ['DUE', 'START']],
    ['DUE off', { notifyOnDue: false }, ['BEFORE_DUE_24H', 'START']],
    ['all off', { notifyOnStart: false, notifyBeforeDue24h: false, notifyOnDue: false }, []],
  ] as const)('a switched-off trigger makes no event: %s', async (_name, switches, expected) => {
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY), ...switches }, T0)
    expect((await eventsOf(sql, hw.id)).map((e) => e.trigger_type).sort()).toEqual([...expected])
  })

  const startAt = plus(T0, HOUR)
  const dueAt = plus(T0, 3 * DAY)
  test.each([
    ['before start', T0, ['BEFORE_DUE_24H', 'DUE', 'START']],
    ['exactly at start (open: START now)', startAt, ['BEFORE_DUE_24H', 'DUE', 'START']],
    ['1 ms before start', plus(startAt, -1), ['BEFORE_DUE_24H', 'DUE', 'START']],
    ['between start and due - 24h (open: START now)', plus(startAt, DAY), ['BEFORE_DUE_24H', 'DUE', 'START']],
    ['exactly at due - 24h (open: START now)', plus(dueAt, -DAY), ['DUE', 'START']],
    ['inside the last 24 hours (open: START now)', plus(dueAt, -HOUR), ['DUE', 'START']],
    // At exactly dueAt work is still on time (src/lib/due.ts): the homework is open, START now.
    ['exactly at due (still open: START now)', dueAt, ['START']],
    ['after due', plus(dueAt, HOUR), []],
  ] as const)('a trigger whose time has passed makes no event, except START at publish time of an open homework: generated %s', async (_name, now, expected) => {
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt, dueAt }, now)
    const events = await eventsOf(sql, hw.id)
    expect(events.map((e) => e.trigger_type).sort()).toEqual([...expected])
    // START of an open homework is scheduled at the publish time, sent by the next scan.
    const start = events.find((e) => e.trigger_type === 'START')
    if (start) expect(start.scheduled_at.toISOString()).toBe((now < startAt ? startAt : now).toISOString())
  })

  test('the database allows at most one live event per (task, student, trigger)', async () => {
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    const insert = () => sql`
      insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at)
      values (${newId()}, ${hw.id}, ${c.students[0]!}, 'START', ${T0})`
    expect(await insert().catch((e) => e)).toMatchObject({ code: '23505' })
    // Once the live one is canceled, a new one may exist (history is kept).
    await sql`update homework_reminder_events set canceled = true where task_id = ${hw.id} and trigger_type = 'START'`
    await insert()
    expect(live(await eventsOf(sql, hw.id)).filter((e) => e.trigger_type === 'START')).toHaveLength(1)
  })

  test('generation is idempotent: a second call for unchanged times leaves one live event per trigger', async () => {
    const c = await course(2)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    const before = await eventsOf(sql, hw.id)
    await sql.begin((tx) => homeworkScheduleChanged(tx, hw.id, T0))
    const events = await eventsOf(sql, hw.id)
    // Unchanged times keep their events: nothing canceled, nothing new.
    expect(live(events)).toHaveLength(6)
    expect(events.filter((e) => e.canceled)).toHaveLength(0)
    expect(events.map((e) => e.id).sort()).toEqual(before.map((e) => e.id).sort())
  })

  test('students of other courses get nothing', async () => {
    const a = await course(2)
    const b = await course(3)
    const hw = await createHomework(sql, a.courseId, a.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    const targets = new Set((await eventsOf(sql, hw.id)).map((e) => e.target_user_id))
    expect([...targets].sort()).toEqual([...a.students].sort())
    expect(b.students.some((s) => targets.has(s))).toBe(false)
  })
})

describe('rescheduling', () => {
  test('new times cancel every pending event and create events at the new times', async () => {
    const c = await course(2)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    const before = await eventsOf(sql, hw.id)
    const now = plus(T0, 10 * 60_000)
    const newStart = plus(T0, 5 * HOUR)
    const newDue = plus(T0, 5 * DAY)
    await rescheduleHomework(sql, hw.id, { startAt: newStart, dueAt: newDue }, now)
    const after = await eventsOf(sql, hw.id)
    // The old ones are canceled, kept as history.
    for (const old of before) expect(after.find((e) => e.id === old.id)?.canceled).toBe(true)
    const current = pending(after)
    expect(current).toHaveLength(6)
    for (const s of c.students) {
      expect(shape(current.filter((e) => e.target_user_id === s))).toEqual(
        shape([
          { trigger_type: 'START', scheduled_at: newStart },
          { trigger_type: 'BEFORE_DUE_24H', scheduled_at: plus(newDue, -DAY) },
          { trigger_type: 'DUE', scheduled_at: newDue },
        ]),
      )
    }
  })

  test('turning a switch off cancels its pending events; turning it on again brings them back', async () => {
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    await rescheduleHomework(sql, hw.id, { notifyBeforeDue24h: false }, T0)
    expect(pending(await eventsOf(sql, hw.id)).map((e) => e.trigger_type).sort()).toEqual(['DUE', 'START'])
    await rescheduleHomework(sql, hw.id, { notifyBeforeDue24h: true }, T0)
    expect(pending(await eventsOf(sql, hw.id)).map((e) => e.trigger_type).sort()).toEqual(['BEFORE_DUE_24H', 'DUE', 'START'])
  })

  test('a trigger already sent stays sent and is not sent twice; the others are regenerated', async () => {
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    // START was delivered.
    await sql`update homework_reminder_events set sent_at = ${plus(T0, HOUR)} where task_id = ${hw.id} and trigger_type = 'START'`
    const now = plus(T0, 2 * HOUR)
    await rescheduleHomework(sql, hw.id, { startAt: plus(T0, 4 * HOUR), dueAt: plus(T0, 4 * DAY) }, now)
    const events = await eventsOf(sql, hw.id)
    const start = events.filter((e) => e.trigger_type === 'START')
    expect(start).toHaveLength(1)
    expect(start[0]!.sent_at).not.toBeNull()
    expect(start[0]!.canceled).toBe(false)
    expect(shape(pending(events))).toEqual(
      shape([
        { trigger_type: 'BEFORE_DUE_24H', scheduled_at: plus(T0, 3 * DAY) },
        { trigger_type: 'DUE', scheduled_at: plus(T0, 4 * DAY) },
      ]),
    )
  })

  test('moving the due time into the past cancels and creates nothing for passed triggers', async () => {
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    const now = plus(T0, 2 * HOUR)
    await rescheduleHomework(sql, hw.id, { startAt: plus(T0, -DAY), dueAt: plus(T0, 20 * HOUR) }, now)
    // START (due at T0+1h, not yet sent by a scan) stays: the homework is still open, nobody was told.
    expect(shape(pending(await eventsOf(sql, hw.id)))).toEqual(
      shape([
        { trigger_type: 'START', scheduled_at: plus(T0, HOUR) },
        { trigger_type: 'DUE', scheduled_at: plus(T0, 20 * HOUR) },
      ]),
    )
  })

  test('a task that is no longer homework only has its pending events canceled', async () => {
    const c = await course(2)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    await sql.begin(async (tx) => {
      await tx`update learning_tasks set task_kind = 'LEARNING' where id = ${hw.id}`
      await homeworkScheduleChanged(tx, hw.id, T0)
    })
    const events = await eventsOf(sql, hw.id)
    expect(events).toHaveLength(6)
    expect(events.every((e) => e.canceled)).toBe(true)
  })

  test('an unknown task changes nothing', async () => {
    // Other tests of this file run in parallel on the same database: compare this course's rows.
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    const before = await eventsOf(sql, hw.id)
    const unknown = newId()
    await sql.begin((tx) => homeworkScheduleChanged(tx, unknown, T0))
    expect(await eventsOf(sql, hw.id)).toEqual(before)
    const [n] = await sql<{ n: number }[]>`select count(*)::int as n from homework_reminder_events where task_id = ${unknown}`
    expect(n!.n).toBe(0)
  })
})

describe('late joiners', () => {
  test('a student who joins later gets the events whose time has not passed, for every homework of the course', async () => {
    const c = await course(1)
    const early = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    const later = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, 2 * DAY), dueAt: plus(T0, 6 * DAY) }, T0)
    const over = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, -2 * DAY), dueAt: plus(T0, 5 * HOUR) }, T0)
    const other = await course(1)
    const otherHw = await createHomework(sql, other.courseId, other.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)

    const [joiner] = await bulkStudents(sql, 1)
    // Joins after `early` started and after `over` is due.
    const now = plus(T0, 6 * HOUR)
    await joinLate(sql, c.courseId, joiner!, now)

    const mine = async (taskId: string) => (await eventsOf(sql, taskId)).filter((e) => e.target_user_id === joiner)
    // `early` is open: START at the join time ("new homework" for them).
    expect(shape(await mine(early.id))).toEqual(
      shape([
        { trigger_type: 'START', scheduled_at: now },
        { trigger_type: 'BEFORE_DUE_24H', scheduled_at: plus(T0, 2 * DAY) },
        { trigger_type: 'DUE', scheduled_at: plus(T0, 3 * DAY) },
      ]),
    )
    expect(shape(await mine(later.id))).toEqual(
      shape([
        { trigger_type: 'START', scheduled_at: plus(T0, 2 * DAY) },
        { trigger_type: 'BEFORE_DUE_24H', scheduled_at: plus(T0, 5 * DAY) },
        { trigger_type: 'DUE', scheduled_at: plus(T0, 6 * DAY) },
      ]),
    )
    expect(await mine(over.id)).toHaveLength(0)
    expect(await mine(otherHw.id)).toHaveLength(0)
    // The students already there keep exactly their events.
    expect(live(await eventsOf(sql, early.id)).filter((e) => e.target_user_id === c.students[0])).toHaveLength(3)

    // Joining again (or a retried join) duplicates nothing.
    await joinLate(sql, c.courseId, joiner!, now)
    expect(await mine(later.id)).toHaveLength(3)
  })

  test('switched-off triggers make no event for a late joiner either', async () => {
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY), notifyOnDue: false, notifyOnStart: false }, T0)
    const [joiner] = await bulkStudents(sql, 1)
    await joinLate(sql, c.courseId, joiner!, T0)
    expect((await eventsOf(sql, hw.id)).filter((e) => e.target_user_id === joiner).map((e) => e.trigger_type)).toEqual(['BEFORE_DUE_24H'])
  })

  test('a student who submitted still gets events generated; dispatch decides at send time', async () => {
    const c = await course(1)
    const hw = await createHomework(sql, c.courseId, c.pointId, { startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    await insertSubmission(sql, hw.id, c.courseId, c.students[0]!, plus(T0, 2 * HOUR))
    await rescheduleHomework(sql, hw.id, { dueAt: plus(T0, 4 * DAY) }, plus(T0, 3 * HOUR))
    // START (time passed, not yet scanned) keeps its unchanged time.
    expect(pending(await eventsOf(sql, hw.id)).map((e) => e.trigger_type).sort()).toEqual(['BEFORE_DUE_24H', 'DUE', 'START'])
  })
})
