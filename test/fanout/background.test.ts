import { beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { partsOf } from '../../src/db/student-range.ts'
import { announcementChunk, queueAnnouncement } from '../../src/modules/announcements/fanout.ts'
import { queueReminders, reminderChunk } from '../../src/modules/reminders/fanout.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, testDatabase, usingExternalDb, type Account, type TestContext } from '../support/harness.ts'
import { DAY, HOUR, bulkStudents, plus } from '../support/reminders.ts'
import { waitFor } from '../support/wait.ts'
import { createPoint, createTask, createUnit, textTask } from '../learning/helpers.ts'

/*
 * Issue 26: in a course above FANOUT_INLINE_STUDENTS the reminder events and announcement
 * notifications are written by the background fan-out, in chunks, after the request's commit.
 * Whatever the path, the outcome must be the inline one: the same events (times, states,
 * history) and exactly one notification per student. Two apps on one database: `inline` (the
 * default limit) and `background` (limit 2, chunks of 2 students), each on a course of its own
 * with 5 students, doing the same things at the same times.
 */

const T0 = new Date('2031-02-03T08:00:00.000Z')
const clock = new ManualClock(T0)
let sql: Sql
let inline: TestContext
let background: TestContext
let other: TestContext

interface Side {
  ctx: TestContext
  teacher: Account
  courseId: string
  students: string[]
  pointId: string
}
let a: Side
let b: Side

async function side(ctx: TestContext, n = 5): Promise<Side> {
  const teacher = await signUp(ctx.api, 'TEACHER')
  const courseId = (await insertCourse(sql, teacher.id, 'Fan-out course')).id
  const students = (await bulkStudents(sql, n)).sort()
  for (const s of students) await addStudent(sql, courseId, s)
  const base = `/courses/${courseId}/learning`
  const unit = await createUnit(ctx.api, base, teacher)
  const point = await createPoint(ctx.api, base, teacher, unit.id)
  return { ctx, teacher, courseId, students, pointId: point.id }
}

/** A homework in the side's course (text task), with `fields` (title, times). */
const homework = (s: Side, fields: Record<string, unknown>) =>
  createTask(s.ctx.api, `/courses/${s.courseId}/learning`, s.teacher, s.pointId, { ...textTask, taskKind: 'HOMEWORK', ...fields })

const drainAll = async () => {
  await background.deps.fanout.drain()
  await other.deps.fanout.drain()
}

/** The teacher's reminder list with students by position, comparable across the two courses. */
async function events(s: Side, taskId: string) {
  const r = await s.ctx.api.get(`/courses/${s.courseId}/homeworks/${taskId}/reminders`, { token: s.teacher.token })
  expect(r.status).toBe(200)
  expect(r.code).toBe(0)
  return (r.data as { targetUserId: string; triggerType: string; scheduledAt: string; state: string }[])
    .map((e) => `${s.students.indexOf(e.targetUserId)} ${e.triggerType} ${e.scheduledAt} ${e.state}`)
    .sort()
}

beforeAll(async () => {
  sql = (await testDatabase()).sql
  inline = await testApp({ clock })
  background = await testApp({ clock, config: { fanoutInlineStudents: 2, fanoutChunkStudents: 2, fanoutCron: 'off' } })
  // A second runner (another instance) on the same queue.
  other = await testApp({ clock, config: { fanoutInlineStudents: 2, fanoutChunkStudents: 2, fanoutCron: 'off' } })
  a = await side(inline)
  b = await side(background)
}, 30_000)

describe('reminder events of a large course', () => {
  test('a new open homework: the same events as inline, START at the request time, nothing left queued', async () => {
    const body = { title: 'Essay', dueAt: plus(T0, 3 * DAY).toISOString() }
    const ta = await homework(a, body)
    const tb = await homework(b, body)
    await drainAll()
    const ea = await events(a, ta.id)
    expect(ea).toHaveLength(15)
    expect(ea.filter((e) => e.includes(`START ${T0.toISOString()} PENDING`))).toHaveLength(5)
    expect(await events(b, tb.id)).toEqual(ea)
    expect(await sql`select 1 from reminder_fanout where task_id = ${tb.id}`).toHaveLength(0)
  })

  test('a moved deadline: old pending events canceled, new ones made, START kept — as inline', async () => {
    clock.set(plus(T0, HOUR))
    const body = { title: 'Lab', startAt: plus(T0, 2 * HOUR).toISOString(), dueAt: plus(T0, 3 * DAY).toISOString() }
    const ta = await homework(a, body)
    const tb = await homework(b, body)
    await drainAll()
    clock.set(plus(T0, 2 * HOUR + 60_000))
    const move = { dueAt: plus(T0, 5 * DAY).toISOString() }
    expect((await a.ctx.api.patch(`/courses/${a.courseId}/learning/tasks/${ta.id}`, { token: a.teacher.token, json: move })).status).toBe(200)
    const r = await b.ctx.api.patch(`/courses/${b.courseId}/learning/tasks/${tb.id}`, { token: b.teacher.token, json: move })
    expect(r.status).toBe(200)
    expect(r.data.dueAt).toBe(move.dueAt)
    await drainAll()
    const ea = await events(a, ta.id)
    expect(ea.filter((e) => e.endsWith('CANCELED'))).toHaveLength(10)
    expect(ea.filter((e) => e.endsWith('PENDING'))).toHaveLength(15)
    expect(await events(b, tb.id)).toEqual(ea)
  })

  test('an edit while the first fan-out is half done: it starts over with both changes, each student once', async () => {
    clock.set(plus(T0, 3 * HOUR))
    const tb = await homework(b, { title: 'Half done', dueAt: plus(T0, 4 * DAY).toISOString() })
    await drainAll()
    // As if the runner had stopped after the first chunk of a fresh homework: only the first two
    // students have events, and the queue row says so.
    await sql`delete from homework_reminder_events where task_id = ${tb.id} and target_user_id = any(${b.students.slice(2)}::uuid[])`
    await sql`insert into reminder_fanout (task_id, course_id, requested_at, published, triggers, after_user)
              values (${tb.id}, ${b.courseId}, ${plus(T0, 3 * HOUR)}, true, '{START,BEFORE_DUE_24H,DUE}', ${b.students[1]!})`
    clock.set(plus(T0, 4 * HOUR))
    const r = await b.ctx.api.patch(`/courses/${b.courseId}/learning/tasks/${tb.id}`, { token: b.teacher.token, json: { dueAt: plus(T0, 6 * DAY).toISOString() } })
    expect(r.status).toBe(200)
    await drainAll()
    const eb = await events(b, tb.id)
    for (let i = 0; i < 5; i++) {
      const mine = eb.filter((e) => e.startsWith(`${i} `) && e.endsWith('PENDING'))
      // START at the first request's time for everyone (the merged row kept `published`), the new deadline's two.
      expect(mine).toEqual([
        `${i} BEFORE_DUE_24H ${plus(T0, 5 * DAY).toISOString()} PENDING`,
        `${i} DUE ${plus(T0, 6 * DAY).toISOString()} PENDING`,
        `${i} START ${(i < 2 ? plus(T0, 3 * HOUR) : plus(T0, 4 * HOUR)).toISOString()} PENDING`,
      ])
    }
    expect(await sql`select 1 from reminder_fanout where task_id = ${tb.id}`).toHaveLength(0)
  })

  test('archiving the course drops its queued fan-out: nothing is generated afterwards', async () => {
    clock.set(plus(T0, 5 * HOUR))
    const tb = await homework(b, { title: 'Archived', dueAt: plus(T0, 4 * DAY).toISOString() })
    await drainAll()
    await sql`delete from homework_reminder_events where task_id = ${tb.id}`
    await sql`insert into reminder_fanout (task_id, course_id, requested_at, published, triggers)
              values (${tb.id}, ${b.courseId}, ${plus(T0, 5 * HOUR)}, true, '{START,BEFORE_DUE_24H,DUE}')`
    const r = await b.ctx.api.patch(`/courses/${b.courseId}`, { token: b.teacher.token, json: { archived: true } })
    expect(r.status).toBe(200)
    expect(await sql`select 1 from reminder_fanout where course_id = ${b.courseId}`).toHaveLength(0)
    expect(await drainAll()).toBeUndefined()
    expect(await events(b, tb.id)).toEqual([])
    // Unarchived: the course's homework is queued again and gets the events still ahead.
    clock.set(plus(T0, 6 * HOUR))
    expect((await b.ctx.api.patch(`/courses/${b.courseId}`, { token: b.teacher.token, json: { archived: false } })).status).toBe(200)
    await drainAll()
    const after = await events(b, tb.id)
    expect(after.filter((e) => e.endsWith('PENDING'))).toHaveLength(10)
    expect(after.filter((e) => e.includes(' START '))).toEqual([])
    expect(await sql`select 1 from reminder_fanout where course_id = ${b.courseId}`).toHaveLength(0)
  })
})

describe('a job in parts of the students (sql/050)', () => {
  const membersOf = async (courseId: string) =>
    (await sql<{ user_id: string }[]>`select user_id from course_members where course_id = ${courseId} order by user_id`).map((r) => r.user_id)

  /** A new homework of `b` whose events are gone again and queued in two parts, as its request at `at` would. */
  async function queuedInTwoParts(title: string, at: Date) {
    clock.set(at)
    const tb = await homework(b, { title, dueAt: plus(T0, 4 * DAY).toISOString() })
    await drainAll()
    await sql`delete from homework_reminder_events where task_id = ${tb.id}`
    const ids = await membersOf(b.courseId)
    await sql.begin((tx) => queueReminders(tx, tb.id, { courseId: b.courseId, students: ids.length }, at, true, 2))
    return { tb, ids }
  }

  test('the course cut into parts of about the same size, in key order, each from after the last one', async () => {
    const ids = await membersOf(b.courseId)
    expect(ids).toHaveLength(5)
    const parts = (n: number) => sql.begin((tx) => partsOf(tx, { courseId: b.courseId, students: ids.length }, n))
    expect(await parts(1)).toEqual([{ after: null, upTo: null }])
    expect(await parts(2)).toEqual([{ after: null, upTo: ids[2]! }, { after: ids[2]!, upTo: null }])
    expect(await parts(3)).toEqual([{ after: null, upTo: ids[1]! }, { after: ids[1]!, upTo: ids[3]! }, { after: ids[3]!, upTo: null }])
    // More parts than students: one student each, no empty part.
    expect(await parts(8)).toHaveLength(5)
  })

  test('a homework queued in two parts; each runs to its own bound; together every student once', async () => {
    const { tb, ids } = await queuedInTwoParts('Parts', plus(T0, 9 * HOUR))
    const queued = await sql<{ part: number; after_user: string | null; up_to_user: string | null }[]>`
      select part, after_user, up_to_user from reminder_fanout where task_id = ${tb.id} order by part`
    expect([...queued]).toEqual([{ part: 0, after_user: null, up_to_user: ids[2]! }, { part: 1, after_user: ids[2]!, up_to_user: null }])
    // Chunks of 2: the first part (3 students) takes two chunks, the second (2) one; every chunk
    // stays within its part.
    expect(await reminderChunk(sql, 2)).toBe(true)
    const first = await sql<{ u: string }[]>`select distinct target_user_id as u from homework_reminder_events where task_id = ${tb.id} order by 1`
    expect(first.map((r) => r.u)).toEqual(ids.slice(0, 2))
    expect(await drainAll()).toBeUndefined()
    const live = await sql<{ u: string; n: number }[]>`
      select target_user_id as u, count(*)::int as n from homework_reminder_events where task_id = ${tb.id} and not canceled group by 1 order by 1`
    expect([...live]).toEqual(ids.map((u) => ({ u, n: 3 })))
    expect(await sql`select 1 from reminder_fanout where task_id = ${tb.id}`).toHaveLength(0)
  })

  // A part held by one runner while another writes the other part: two transactions at once, so
  // only on a PostgreSQL server (the embedded database has one connection).
  test.skipIf(!usingExternalDb())('two runners write one homework at once: a part held by one does not hold up the other', async () => {
    const { tb, ids } = await queuedInTwoParts('Parallel', plus(T0, 10 * HOUR))
    const side = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
    try {
      // Another runner, in the middle of a chunk of the first part...
      await side.begin(async (tx) => {
        await tx`select 1 from reminder_fanout where task_id = ${tb.id} and part = 0 for update`
        await tx`select 1 from learning_tasks where id = ${tb.id} for key share`
        // ...while this one takes the second part (with one row per job it found nothing to do).
        expect(await reminderChunk(sql, 2)).toBe(true)
        const written = await sql<{ u: string }[]>`select distinct target_user_id as u from homework_reminder_events where task_id = ${tb.id} order by 1`
        expect(written.map((r) => r.u)).toEqual(ids.slice(3))
        expect(await reminderChunk(sql, 2)).toBe(false)
      })
    } finally {
      await side.end()
    }
    await drainAll()
    const [n] = await sql<{ n: number }[]>`select count(*)::int as n from homework_reminder_events where task_id = ${tb.id} and not canceled`
    expect(n!.n).toBe(15)
  })

  test.skipIf(!usingExternalDb())('an announcement\'s parts likewise: the second part notified while the first is held', async () => {
    const id = newId()
    await sql`insert into announcements (id, course_id, author_id, title, content) values (${id}, ${b.courseId}, ${b.teacher.id}, 'In parts', '<p>x</p>')`
    const ids = await membersOf(b.courseId)
    await sql.begin((tx) => queueAnnouncement(tx, id, { courseId: b.courseId, students: ids.length }, 2))
    const side = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
    try {
      await side.begin(async (tx) => {
        await tx`select 1 from announcement_fanout where announcement_id = ${id} and part = 0 for update`
        expect(await announcementChunk(sql, 5, clock.now(), [])).toBe(true)
        expect(await announcementChunk(sql, 5, clock.now(), [])).toBe(false)
      })
    } finally {
      await side.end()
    }
    const notified = async () => (await sql<{ u: string }[]>`select user_id as u from notifications where params->>'announcementId' = ${id} order by 1`).map((r) => r.u)
    expect(await notified()).toEqual(ids.slice(3))
    await drainAll()
    expect(await notified()).toEqual(ids)
  })
})

describe('the scan while a reschedule is still being written', () => {
  test('an event of the old deadline that comes due before its chunk is canceled, not sent', async () => {
    clock.set(plus(T0, 8 * HOUR))
    const due = plus(T0, 5 * DAY)
    const tb = await homework(b, { title: 'Stale', startAt: plus(T0, 9 * HOUR).toISOString(), dueAt: due.toISOString() })
    await drainAll()
    // As a moved deadline leaves them until their chunk runs: a pending DUE at the old time.
    const old = plus(T0, 10 * HOUR)
    await sql`insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at)
              values (${newId()}, ${tb.id}, ${b.students[0]!}, 'DUE', ${old})`
    await dispatch(sql, plus(old, 60_000))
    const [starts] = await sql<{ n: number }[]>`select count(*)::int as n from homework_reminder_events where task_id = ${tb.id} and trigger_type = 'START' and sent_at is not null`
    expect(starts!.n).toBe(5)
    const rows = await sql<{ state: string }[]>`
      select case when canceled then 'CANCELED' when sent_at is not null then 'SENT' else 'PENDING' end as state
        from homework_reminder_events where task_id = ${tb.id} and trigger_type = 'DUE' and scheduled_at = ${old}`
    expect(rows.map((x) => x.state)).toEqual(['CANCELED'])
    const inbox = await sql`select 1 from notifications where user_id = ${b.students[0]!} and params->>'taskId' = ${tb.id} and params->>'trigger' = 'DUE'`
    expect(inbox).toHaveLength(0)
  })
})

describe('a student who joins while a chunk is being written', () => {
  // Two transactions at once: only on a PostgreSQL server (the embedded database has one connection).
  test.skipIf(!usingExternalDb())('their events, committed between the chunk\'s look-up and its insert, are kept and not doubled', async () => {
    clock.set(plus(T0, 7 * HOUR))
    const due = plus(T0, 4 * DAY)
    const tb = await homework(b, { title: 'Race', startAt: plus(T0, 8 * HOUR).toISOString(), dueAt: due.toISOString() })
    await drainAll()
    await sql`delete from homework_reminder_events where task_id = ${tb.id}`
    await sql`insert into reminder_fanout (task_id, course_id, requested_at, published, triggers)
              values (${tb.id}, ${b.courseId}, ${plus(T0, 7 * HOUR)}, true, '{START,BEFORE_DUE_24H,DUE}')`
    const side = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
    try {
      let release!: () => void
      let written!: () => void
      const held = new Promise<void>((r) => (release = r))
      const wrote = new Promise<void>((r) => (written = r))
      // The join's transaction: the first student's DUE written, not yet committed.
      const join = side.begin(async (tx) => {
        await tx`insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at)
                 values (${newId()}, ${tb.id}, ${b.students[0]!}, 'DUE', ${due})`
        written()
        await held
      })
      await wrote
      const draining = background.deps.fanout.drain()
      // The chunk's insert waits for the join's row (a backend of this database waiting on a lock)...
      await waitFor(async () => (await sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`).length > 0, { what: 'the chunk to wait for the join' })
      // ...the join commits; the chunk meets 23505 and retries arbitrated.
      release()
      await join
      expect(await draining).toBeGreaterThanOrEqual(1)
    } finally {
      await side.end()
    }
    const live = await sql<{ user_id: string; trigger_type: string }[]>`
      select target_user_id as user_id, trigger_type from homework_reminder_events where task_id = ${tb.id} and not canceled`
    expect(live).toHaveLength(15)
    expect(live.filter((e) => e.user_id === b.students[0] && e.trigger_type === 'DUE')).toHaveLength(1)
    expect(await sql`select 1 from reminder_fanout where task_id = ${tb.id}`).toHaveLength(0)
  })
})

describe('announcements of a large course', () => {
  const inboxCount = async (userId: string, announcementId: string) =>
    Number((await sql<{ n: number }[]>`select count(*)::int as n from notifications where user_id = ${userId} and params->>'announcementId' = ${announcementId}`)[0]!.n)

  test('published at once; every student gets exactly one notification, counted unread', async () => {
    clock.set(plus(T0, 6 * HOUR))
    const r = await b.ctx.api.post(`/courses/${b.courseId}/announcements`, { token: b.teacher.token, json: { title: 'Welcome', content: '<p>Hello all</p>' } })
    expect(r.status).toBe(201)
    expect(r.code).toBe(0)
    expect(r.data.title).toBe('Welcome')
    await drainAll()
    for (const s of b.students) expect(await inboxCount(s, r.data.id)).toBe(1)
    const [c] = await sql<{ n: number }[]>`select count(*)::int as n from notification_counters where user_id = any(${b.students}::uuid[]) and unread >= 1`
    expect(c!.n).toBe(5)
    expect(await sql`select 1 from announcement_fanout where announcement_id = ${r.data.id}`).toHaveLength(0)
  })

  test('a queue row left after two students resumes at the third; two runners at once write each notification once', async () => {
    const id = newId()
    await sql`insert into announcements (id, course_id, author_id, title, content) values (${id}, ${b.courseId}, ${b.teacher.id}, 'Resumed', '<p>x</p>')`
    await sql`insert into announcement_fanout (announcement_id, course_id, after_user) values (${id}, ${b.courseId}, ${b.students[1]!})`
    const [x, y] = await Promise.all([background.deps.fanout.drain(), other.deps.fanout.drain()])
    expect(x + y).toBe(2)
    expect(await Promise.all(b.students.map((s) => inboxCount(s, id)))).toEqual([0, 0, 1, 1, 1])
  })

  test('the notification reads the title of an edit made while it was queued', async () => {
    const id = newId()
    await sql`insert into announcements (id, course_id, author_id, title, content) values (${id}, ${b.courseId}, ${b.teacher.id}, 'Old title', '<p>x</p>')`
    await sql`insert into announcement_fanout (announcement_id, course_id) values (${id}, ${b.courseId})`
    const e = await b.ctx.api.patch(`/courses/${b.courseId}/announcements/${id}`, { token: b.teacher.token, json: { title: 'New title' } })
    expect(e.status).toBe(200)
    await drainAll()
    const rows = await sql<{ t: string }[]>`select params->>'announcementTitle' as t from notifications where params->>'announcementId' = ${id}`
    expect(rows.map((r) => r.t)).toEqual(Array(5).fill('New title'))
  })

  test('deleting a queued announcement drops its fan-out', async () => {
    const id = newId()
    await sql`insert into announcements (id, course_id, author_id, title, content) values (${id}, ${b.courseId}, ${b.teacher.id}, 'Gone', '<p>x</p>')`
    await sql`insert into announcement_fanout (announcement_id, course_id) values (${id}, ${b.courseId})`
    expect((await b.ctx.api.del(`/courses/${b.courseId}/announcements/${id}`, { token: b.teacher.token })).status).toBe(200)
    await drainAll()
    expect(await sql`select 1 from notifications where params->>'announcementId' = ${id}`).toHaveLength(0)
    expect(await sql`select 1 from announcement_fanout where announcement_id = ${id}`).toHaveLength(0)
  })

  test('a course at the limit stays inline: written in the request', async () => {
    const small = await side(background, 2)
    const r = await small.ctx.api.post(`/courses/${small.courseId}/announcements`, { token: small.teacher.token, json: { title: 'Small', content: '<p>x</p>' } })
    expect(r.status).toBe(201)
    expect(await sql`select 1 from announcement_fanout where announcement_id = ${r.data.id}`).toHaveLength(0)
    for (const s of small.students) expect(await inboxCount(s, r.data.id)).toBe(1)
  })
})

describe('configuration', () => {
  test('defaults, limits and the job that resumes a stopped instance\'s work', async () => {
    const { loadConfig } = await import('../../src/config.ts')
    const { defaultJobs } = await import('../../src/jobs.ts')
    const c = loadConfig({ DATA_DIR: '/tmp/x' })
    expect([c.fanoutInlineStudents, c.fanoutChunkStudents, c.fanoutCron, c.fanoutWorkers]).toEqual([5000, 10_000, '*/15 * * * * *', 2])
    expect(() => loadConfig({ DATA_DIR: '/tmp/x', FANOUT_CHUNK_STUDENTS: '0' })).toThrow(/FANOUT_CHUNK_STUDENTS/)
    expect(() => loadConfig({ DATA_DIR: '/tmp/x', FANOUT_WORKERS: '0' })).toThrow(/FANOUT_WORKERS/)
    expect(() => loadConfig({ DATA_DIR: '/tmp/x', FANOUT_INLINE_STUDENTS: 'many' })).toThrow(/FANOUT_INLINE_STUDENTS/)
    expect(defaultJobs(background.deps).find((j) => j.name === 'fan-out')?.pattern).toBe('off')
    expect(defaultJobs(inline.deps).find((j) => j.name === 'fan-out')?.pattern).toBe('*/15 * * * * *')
  })
})
