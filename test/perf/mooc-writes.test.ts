import { beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../../src/lib/clock.ts'
import { createPoint, createTask, createUnit, textTask, world, type World } from '../learning/helpers.ts'
import { join } from '../courses/world.ts'
import { signUp, uniq } from '../support/harness.ts'

/*
 * Issue 26: the writes whose cost grows with a course's students (homework creation, a moved
 * deadline, a join into a large course) do only the work they need; checked by what they touch,
 * which does not depend on the machine. The bench row is bench/mooc.ts (BENCH_SHAPE=mooc).
 */
const STUDENTS = 40
const DAY = 86_400_000
const clock = new ManualClock(new Date('2026-03-02T08:00:00.000Z'))
let w: World
let pointId: string

beforeAll(async () => {
  w = await world({ clock })
  const prefix = uniq('mw')
  await w.deps.sql`
    insert into users (id, username, email, password_hash, display_name, role)
    select gen_uuid_v7(), ${prefix} || '_' || g, ${prefix} || '_' || g || '@example.test', 'x', 'Student ' || g, 'STUDENT'
      from generate_series(1, ${STUDENTS}::int) g`
  await w.deps.sql`
    insert into course_members (course_id, user_id, joined_at)
    select ${w.course.id}, u.id, ${clock.now()} from users u where u.username like ${prefix + '\\_%'}`
  const unit = await createUnit(w.api, w.base, w.teacher)
  pointId = (await createPoint(w.api, w.base, w.teacher, unit.id)).id
}, 120_000)

const homework = (title: string) => ({
  ...textTask,
  title,
  taskKind: 'HOMEWORK',
  startAt: new Date(clock.now().getTime() + 2 * DAY).toISOString(),
  dueAt: new Date(clock.now().getTime() + 9 * DAY).toISOString(),
})

/** xmax of the course's students' rows: a row lock (FOR KEY SHARE) writes the locker's id there. */
const studentXmax = async () =>
  new Map(
    (
      await w.deps.sql<{ id: string; xmax: string }[]>`
        select u.id, u.xmax::text as xmax from users u join course_members m on m.user_id = u.id where m.course_id = ${w.course.id}`
    ).map((r) => [r.id, r.xmax]),
  )

describe('reminder event writes at any course size', () => {
  test('creating a homework writes its events without locking the row of every student', async () => {
    const before = await studentXmax()
    const task = await createTask(w.api, w.base, w.teacher, pointId, homework('No locks'))
    const [n] = await w.deps.sql<{ n: number }[]>`select count(*)::int as n from homework_reminder_events where task_id = ${task.id}`
    expect(n!.n).toBe(3 * (STUDENTS + 2))
    const after = await studentXmax()
    const relocked = [...after].filter(([id, xmax]) => before.get(id) !== xmax)
    expect(relocked).toEqual([])
  }, 60_000)

  test('moving only the deadline regenerates BEFORE_DUE_24H and DUE, and does not look at START', async () => {
    const task = await createTask(w.api, w.base, w.teacher, pointId, homework('Moved'))
    // One student's START gone (as if never generated): only a generation that looks at START
    // candidates would bring it back.
    await w.deps.sql`delete from homework_reminder_events where task_id = ${task.id} and target_user_id = ${w.student.id} and trigger_type = 'START'`
    const newDue = new Date(clock.now().getTime() + 10 * DAY)
    const r = await w.api.patch(`${w.base}/tasks/${task.id}`, { token: w.teacher.token, json: { dueAt: newDue.toISOString() } })
    expect(r.status).toBe(200)
    const live = await w.deps.sql<{ trigger_type: string; n: number; at: Date }[]>`
      select trigger_type, count(*)::int as n, max(scheduled_at) as at from homework_reminder_events
       where task_id = ${task.id} and not canceled group by trigger_type order by trigger_type`
    expect(live.map((l) => [l.trigger_type, l.n])).toEqual([
      ['BEFORE_DUE_24H', STUDENTS + 2],
      ['DUE', STUDENTS + 2],
      ['START', STUDENTS + 1],
    ])
    expect(live.find((l) => l.trigger_type === 'DUE')!.at.getTime()).toBe(newDue.getTime())
    const [studentStart] = await w.deps.sql<{ n: number }[]>`
      select count(*)::int as n from homework_reminder_events where task_id = ${task.id} and target_user_id = ${w.student.id} and trigger_type = 'START'`
    expect(studentStart!.n).toBe(0)
  }, 60_000)

  test('a join writes its events before the membership (the counter rows every join waits for are held only for the commit)', async () => {
    // A row trigger on this course's memberships only (the PostgreSQL test database is shared),
    // noting how many events the joiner has when the membership row is written.
    const probe = uniq('mooc_join_probe_')
    if (!/^[a-z0-9_]+$/.test(probe) || !/^[0-9a-f-]{36}$/.test(w.course.id)) throw new Error('unexpected identifier')
    await w.deps.sql.unsafe(`create table ${probe} (user_id uuid, events_before int)`)
    await w.deps.sql.unsafe(`
      create function ${probe}() returns trigger language plpgsql as $$
      begin
        insert into ${probe} select new.user_id, (select count(*) from homework_reminder_events e where e.target_user_id = new.user_id);
        return new;
      end $$`)
    await w.deps.sql.unsafe(
      `create trigger ${probe} before insert on course_members for each row when (new.course_id = '${w.course.id}') execute function ${probe}()`,
    )
    try {
      await createTask(w.api, w.base, w.teacher, pointId, homework('Ahead'))
      const [code] = await w.deps.sql<{ invite_code: string }[]>`
        update courses set joining_open = true where id = ${w.course.id} returning invite_code`
      const joiner = await signUp(w.api, 'STUDENT', 'Late joiner')
      await join(w.api, joiner, code!.invite_code)
      const [seen] = await w.deps.sql.unsafe<{ events_before: number }[]>(`select events_before from ${probe} where user_id = $1`, [joiner.id])
      // The homework is ahead: the joiner's events exist when the membership row is written.
      expect(seen!.events_before).toBeGreaterThan(0)
    } finally {
      await w.deps.sql.unsafe(`drop trigger ${probe} on course_members`)
      await w.deps.sql.unsafe(`drop table ${probe}`)
      await w.deps.sql.unsafe(`drop function ${probe}()`)
    }
  }, 60_000)
})
