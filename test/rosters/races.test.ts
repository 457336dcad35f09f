import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { insertHomework, insertPoint } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, uniq, usingExternalDb, type Account, type TestContext } from '../support/harness.ts'
import { createCourse, join } from '../courses/world.ts'
import { bulkStudents } from '../support/reminders.ts'

/**
 * Issue 23's races, 50 trials each, on a real server only (the embedded database serves one
 * connection, so nothing would run concurrently there).
 */
const TRIALS = 50

describe.skipIf(!usingExternalDb())('roster races (real PostgreSQL)', () => {
  let ctx: TestContext
  let sql: Sql
  let owner: Account, student: Account
  const clock = new ManualClock('2031-03-01T08:00:00.000Z')

  beforeAll(async () => {
    ctx = await testApp({ clock })
    sql = ctx.deps.sql
    ;[owner, student] = await Promise.all([signUp(ctx.api, 'TEACHER'), signUp(ctx.api, 'STUDENT')])
    // Whatever earlier runs left due by now is delivered first.
    await dispatch(sql, clock.now())
  }, 120_000)

  /** The counter row against the rows it counts. */
  async function countersMatch(courseId: string) {
    const [r] = await sql<{ counted: number; kept: number; invited: number; kept_invitations: number }[]>`
      select (select count(*)::int from course_members where course_id = ${courseId}) as counted,
             course_student_count(${courseId}) as kept,
             (select count(*)::int from course_invitations where course_id = ${courseId}) as invited,
             coalesce((select invitations from course_counters where course_id = ${courseId}), 0) as kept_invitations`
    expect(r!.kept).toBe(r!.counted)
    expect(r!.kept_invitations).toBe(r!.invited)
    return r!.counted
  }

  test('remove vs submit: never 500; the student is gone, an accepted submission is kept', async () => {
    const c = await createCourse(ctx.api, owner)
    const unit = await ctx.api.post(`/courses/${c.id}/learning/units`, { token: owner.token, json: { title: 'U' } })
    const point = await ctx.api.post(`/courses/${c.id}/learning/units/${unit.data.id}/points`, { token: owner.token, json: { title: 'P' } })
    const task = await ctx.api.post(`/courses/${c.id}/learning/points/${point.data.id}/tasks`, {
      token: owner.token,
      // Homework: reading material takes no answers (409 40909).
      json: { title: 'T', taskKind: 'HOMEWORK', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>x</p>', startAt: '2031-02-01T00:00:00.000Z', dueAt: '2031-04-01T00:00:00.000Z' },
    })
    expect(task.status).toBe(201)
    const outcomes = new Map<string, number>()
    for (let i = 0; i < TRIALS; i++) {
      await join(ctx.api, student, c.inviteCode)
      const [removed, submitted] = await Promise.all([
        ctx.api.del(`/courses/${c.id}/members/${student.id}`, { token: owner.token }),
        ctx.api.post(`/courses/${c.id}/learning/tasks/${task.data.id}/submissions`, { token: student.token, json: { content: `<p>try ${i}</p>` } }),
      ])
      expect(removed.status).toBe(200)
      expect([201, 403]).toContain(submitted.status)
      outcomes.set(String(submitted.status), (outcomes.get(String(submitted.status)) ?? 0) + 1)
      if (submitted.status === 201) {
        const [row] = await sql`select 1 from learning_submissions where id = ${submitted.data.id}`
        expect(row).toBeDefined()
      }
      expect(await countersMatch(c.id)).toBe(0)
    }
    // Rejoining shows every accepted submission again.
    await join(ctx.api, student, c.inviteCode)
    const mine = await ctx.api.get(`/courses/${c.id}/learning/tasks/${task.data.id}/submissions`, { token: student.token })
    expect(mine.status).toBe(200)
    expect(outcomes.get('201') ?? 0).toBeGreaterThanOrEqual(0)
  }, 300_000)

  test('leave vs reminder dispatch: no pending event survives the leave; each sent event has one notification', async () => {
    const c = await createCourse(ctx.api, owner)
    const { pointId } = await insertPoint(sql, c.id)
    for (let i = 0; i < TRIALS; i++) {
      clock.advance(60_000)
      // A homework open now: the join schedules START at `now`, due at once.
      const hw = await insertHomework(sql, c.id, pointId, { startAt: new Date(clock.now().getTime() - 3_600_000), dueAt: new Date(clock.now().getTime() + 7 * 86_400_000) })
      await join(ctx.api, student, c.inviteCode)
      const [left] = await Promise.all([ctx.api.post(`/courses/${c.id}/leave`, { token: student.token }), dispatch(sql, clock.now())])
      expect(left.status).toBe(200)
      const [r] = await sql<{ pending: number; sent: number; notified: number }[]>`
        select count(*) filter (where e.sent_at is null and not e.canceled)::int as pending,
               count(*) filter (where e.sent_at is not null)::int as sent,
               (select count(*)::int from notifications n where n.event_id in
                  (select id from homework_reminder_events where task_id = ${hw.id} and target_user_id = ${student.id})) as notified
          from homework_reminder_events e
         where e.task_id = ${hw.id} and e.target_user_id = ${student.id}`
      expect(r!.pending).toBe(0)
      expect(r!.notified).toBe(r!.sent)
      // Nothing is delivered later either.
      await dispatch(sql, clock.now())
      const [after] = await sql<{ n: number }[]>`
        select count(*)::int as n from notifications n join homework_reminder_events e on e.id = n.event_id
         where e.task_id = ${hw.id} and e.target_user_id = ${student.id}`
      expect(after!.n).toBe(r!.sent)
      expect(await countersMatch(c.id)).toBe(0)
    }
  }, 300_000)

  test('joins of one course do not wait for each other: a join commits while another holds its transaction open; counts exact', async () => {
    // Issue 26: the course's one counter row was held by each join until its commit, so 100 joins
    // at once committed one after another (sql/046 spreads it over up to 16 rows).
    const c = await createCourse(ctx.api, owner)
    const ids = await bulkStudents(sql, 2)
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let inserted!: () => void
    const first = new Promise<void>((r) => (inserted = r))
    const open = sql.begin(async (tx) => {
      await tx`insert into course_members (course_id, user_id, joined_at) values (${c.id}, ${ids[0]!}, ${clock.now()})`
      inserted()
      await held
    })
    await first
    try {
      // Without waiting for the open transaction (the old single row: 55P03 after the timeout).
      await sql.begin(async (tx) => {
        await tx`set local lock_timeout = '2s'`
        await tx`insert into course_members (course_id, user_id, joined_at) values (${c.id}, ${ids[1]!}, ${clock.now()})`
      })
    } finally {
      release()
      await open
    }
    expect(await countersMatch(c.id)).toBe(2)
    const students = await bulkStudents(sql, 40)
    // 40 joins and then 40 leaves at once: every count exact, never more than 16 rows.
    await Promise.all(students.map((id) => sql`insert into course_members (course_id, user_id, joined_at) values (${c.id}, ${id}, ${clock.now()})`))
    expect(await countersMatch(c.id)).toBe(42)
    await Promise.all(students.map((id) => sql`delete from course_members where course_id = ${c.id} and user_id = ${id}`))
    expect(await countersMatch(c.id)).toBe(2)
    const [rows] = await sql<{ n: number }[]>`select count(*)::int as n from course_student_counts where course_id = ${c.id}`
    expect(rows!.n).toBeGreaterThanOrEqual(1)
    expect(rows!.n).toBeLessThanOrEqual(16)
  }, 60_000)

  test('two imports of one list at once: each student enrolled once, reminders once, invitations once, counters exact', async () => {
    for (let i = 0; i < TRIALS; i++) {
      const c = await createCourse(ctx.api, owner)
      const { pointId } = await insertPoint(sql, c.id)
      const hw = await insertHomework(sql, c.id, pointId, { startAt: new Date(clock.now().getTime() + 86_400_000), dueAt: new Date(clock.now().getTime() + 7 * 86_400_000) })
      const ids = await bulkStudents(sql, 8)
      const known = await sql<{ email: string }[]>`select email from users where id = any(${ids}::uuid[])`
      const emails = [...known.map((k) => k.email), ...Array.from({ length: 6 }, () => `${uniq('inv')}@example.test`)]
      const [a, b] = await Promise.all([
        ctx.api.post(`/courses/${c.id}/roster`, { token: owner.token, json: { emails } }),
        ctx.api.post(`/courses/${c.id}/roster`, { token: owner.token, json: { emails: [...emails].reverse() } }),
      ])
      expect([a.status, b.status]).toEqual([200, 200])
      expect(a.data.enrolled + b.data.enrolled).toBe(8)
      expect(a.data.alreadyMembers + b.data.alreadyMembers).toBe(8)
      expect([a.data.invited, b.data.invited]).toEqual([6, 6])
      expect(await countersMatch(c.id)).toBe(8)
      const [ev] = await sql<{ n: number }[]>`select count(*)::int as n from homework_reminder_events where task_id = ${hw.id} and not canceled`
      expect(ev!.n).toBe(8 * 3)
    }
  }, 300_000)
})
