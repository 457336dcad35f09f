import { beforeAll, describe, expect, test } from 'bun:test'
import { newId } from '../../src/lib/ids.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { insertSubmission } from '../support/fixtures.ts'
import { ManualClock, signUp, type Account } from '../support/harness.ts'
import { createTask, textTask, type World, worldWithPoint } from '../learning/helpers.ts'
import { DAY, HOUR, plus } from '../support/reminders.ts'

/*
 * Issue 12.1 over HTTP: START at publish time for an open homework, START for a student who
 * joins an open homework, new reminders for a moved deadline after the old ones were sent, and
 * the database's uniqueness per (task, student, trigger, time) with START once per student.
 */

const T0 = new Date('2029-05-01T08:00:00.000Z')
const clock = new ManualClock(T0)
let w: World
let pointId: string

beforeAll(async () => void ({ w, pointId } = await worldWithPoint({ clock })), 30_000)

const events = async (taskId: string) => {
  const r = await w.api.get(`/courses/${w.course.id}/homeworks/${taskId}/reminders`, { token: w.teacher.token })
  expect(r.status).toBe(200)
  return r.data as { id: string; targetUserId: string; triggerType: string; scheduledAt: string; state: string }[]
}
const of = (evs: Awaited<ReturnType<typeof events>>, userId: string, trigger?: string) =>
  evs.filter((e) => e.targetUserId === userId && (!trigger || e.triggerType === trigger))
const inbox = async (a: Account) => {
  const r = await w.api.get('/notifications', { token: a.token })
  expect(r.status).toBe(200)
  return r.data.items as { id: string; type: string; title: string; content: string; actionPath: string }[]
}
const remindersFor = async (a: Account, taskId: string) =>
  (await inbox(a)).filter((n) => n.type === 'HOMEWORK_REMINDER' && n.actionPath.endsWith(`taskId=${taskId}`))

describe('START when an open homework is published', () => {
  test('created as HOMEWORK while open (startAt defaults to now): each student gets START at now, sent by the next scan', async () => {
    const now = plus(T0, 5 * 60_000)
    clock.set(now)
    const hw = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, title: 'Open now', taskKind: 'HOMEWORK', dueAt: plus(now, 3 * DAY).toISOString() })
    const evs = await events(hw.id)
    for (const s of [w.student, w.student2]) {
      expect(of(evs, s.id, 'START')).toMatchObject([{ scheduledAt: now.toISOString(), state: 'PENDING' }])
    }
    expect(await remindersFor(w.student, hw.id)).toHaveLength(0)
    expect((await dispatch(w.deps.sql, plus(now, 60_000))).sent).toBeGreaterThanOrEqual(2)
    expect(await remindersFor(w.student, hw.id)).toHaveLength(1)
    expect(await remindersFor(w.student2, hw.id)).toHaveLength(1)
    expect(of(await events(hw.id), w.student.id, 'START')).toMatchObject([{ state: 'SENT' }])
  })

  test('created with a startAt in the past and START switched off: no START', async () => {
    clock.set(T0)
    const hw = await createTask(w.api, w.base, w.teacher, pointId, {
      ...textTask,
      taskKind: 'HOMEWORK',
      startAt: plus(T0, -HOUR).toISOString(),
      dueAt: plus(T0, 3 * DAY).toISOString(),
      notifyOnStart: false,
    })
    expect(of(await events(hw.id), w.student.id).map((e) => e.triggerType).sort()).toEqual(['BEFORE_DUE_24H', 'DUE'])
  })

  test('changed to HOMEWORK while open: START at now; changed away and back after START was sent: no second START', async () => {
    clock.set(T0)
    const task = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, title: 'Reading' })
    const now = plus(T0, HOUR)
    clock.set(now)
    const r = await w.api.patch(`${w.base}/tasks/${task.id}`, {
      token: w.teacher.token,
      json: { taskKind: 'HOMEWORK', startAt: plus(T0, -HOUR).toISOString(), dueAt: plus(T0, 2 * DAY).toISOString() },
    })
    expect(r.status).toBe(200)
    expect(of(await events(task.id), w.student.id, 'START')).toMatchObject([{ scheduledAt: now.toISOString(), state: 'PENDING' }])
    await dispatch(w.deps.sql, now)
    expect(await remindersFor(w.student, task.id)).toHaveLength(1)

    clock.set(plus(now, HOUR))
    expect((await w.api.patch(`${w.base}/tasks/${task.id}`, { token: w.teacher.token, json: { taskKind: 'LEARNING' } })).status).toBe(200)
    expect((await w.api.patch(`${w.base}/tasks/${task.id}`, { token: w.teacher.token, json: { taskKind: 'HOMEWORK', startAt: plus(T0, -HOUR).toISOString(), dueAt: plus(T0, 2 * DAY).toISOString() } })).status).toBe(200)
    const starts = of(await events(task.id), w.student.id, 'START')
    expect(starts).toMatchObject([{ state: 'SENT' }])
    await dispatch(w.deps.sql, plus(now, 2 * HOUR))
    expect(await remindersFor(w.student, task.id)).toHaveLength(1)
  })

  test('an edit of an open homework (not a publish) creates no START; a pending publish-time START survives the edit', async () => {
    const now = plus(T0, 10 * HOUR)
    clock.set(now)
    const hw = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, taskKind: 'HOMEWORK', dueAt: plus(now, 3 * DAY).toISOString() })
    clock.set(plus(now, 1000))
    const r = await w.api.patch(`${w.base}/tasks/${hw.id}`, { token: w.teacher.token, json: { dueAt: plus(now, 4 * DAY).toISOString() } })
    expect(r.status).toBe(200)
    const starts = of(await events(hw.id), w.student.id, 'START')
    expect(starts).toMatchObject([{ scheduledAt: now.toISOString(), state: 'PENDING' }])
  })
})

describe('a student joining an open homework', () => {
  test('gets START at the join time; joining again (leave, rejoin) after START was sent gives no second START', async () => {
    clock.set(T0)
    const hw = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, taskKind: 'HOMEWORK', startAt: plus(T0, HOUR).toISOString(), dueAt: plus(T0, 3 * DAY).toISOString() })
    const late = await signUp(w.api)
    const joinAt = plus(T0, 5 * HOUR)
    clock.set(joinAt)
    const j = await w.api.post('/courses/join', { token: late.token, json: { inviteCode: w.course.inviteCode } })
    expect(j.status).toBe(200)
    expect(of(await events(hw.id), late.id).map((e) => [e.triggerType, e.scheduledAt]).sort()).toEqual(
      [
        ['BEFORE_DUE_24H', plus(T0, 2 * DAY).toISOString()],
        ['DUE', plus(T0, 3 * DAY).toISOString()],
        ['START', joinAt.toISOString()],
      ].sort(),
    )
    await dispatch(w.deps.sql, joinAt)
    expect(await remindersFor(late, hw.id)).toHaveLength(1)

    await w.deps.sql`delete from course_members where course_id = ${w.course.id} and user_id = ${late.id}`
    clock.set(plus(joinAt, HOUR))
    expect((await w.api.post('/courses/join', { token: late.token, json: { inviteCode: w.course.inviteCode } })).status).toBe(200)
    expect(of(await events(hw.id), late.id, 'START')).toMatchObject([{ state: 'SENT' }])
  })
})

describe('moving a deadline after its reminders were sent', () => {
  test('new BEFORE_DUE_24H and DUE for the new times; the sent ones stay as history; each delivered', async () => {
    clock.set(T0)
    const dueAt = plus(T0, 2 * DAY)
    const hw = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, title: 'Moved', taskKind: 'HOMEWORK', startAt: plus(T0, HOUR).toISOString(), dueAt: dueAt.toISOString() })
    // Everything of the first deadline goes out.
    await dispatch(w.deps.sql, dueAt)
    expect(await remindersFor(w.student, hw.id)).toHaveLength(3)

    const now = plus(dueAt, HOUR)
    clock.set(now)
    const newDue = plus(dueAt, 3 * DAY)
    const r = await w.api.patch(`${w.base}/tasks/${hw.id}`, { token: w.teacher.token, json: { dueAt: newDue.toISOString() } })
    expect(r.status).toBe(200)
    const mine = of(await events(hw.id), w.student.id)
    expect(mine.map((e) => [e.triggerType, e.scheduledAt, e.state]).sort()).toEqual(
      [
        ['START', plus(T0, HOUR).toISOString(), 'SENT'],
        ['BEFORE_DUE_24H', plus(dueAt, -DAY).toISOString(), 'SENT'],
        ['DUE', dueAt.toISOString(), 'SENT'],
        ['BEFORE_DUE_24H', plus(newDue, -DAY).toISOString(), 'PENDING'],
        ['DUE', newDue.toISOString(), 'PENDING'],
      ].sort(),
    )
    await dispatch(w.deps.sql, newDue)
    expect(await remindersFor(w.student, hw.id)).toHaveLength(5)

    // An edit that moves nothing creates nothing new.
    clock.set(plus(newDue, HOUR))
    await w.api.patch(`${w.base}/tasks/${hw.id}`, { token: w.teacher.token, json: { title: 'Moved (renamed)', dueAt: newDue.toISOString() } })
    expect(of(await events(hw.id), w.student.id)).toHaveLength(5)
  })

  test('a student who already submitted: BEFORE_DUE_24H and DUE are canceled when their time comes, not sent', async () => {
    clock.set(T0)
    const dueAt = plus(T0, 2 * DAY)
    const hw = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, title: 'Done early', taskKind: 'HOMEWORK', startAt: plus(T0, HOUR).toISOString(), dueAt: dueAt.toISOString() })
    await insertSubmission(w.deps.sql, hw.id, w.course.id, w.student.id, plus(T0, 2 * HOUR))
    await dispatch(w.deps.sql, dueAt)
    const mine = of(await events(hw.id), w.student.id)
    expect(mine.map((e) => [e.triggerType, e.state]).sort()).toEqual([['BEFORE_DUE_24H', 'CANCELED'], ['DUE', 'CANCELED'], ['START', 'SENT']].sort())
    expect((await remindersFor(w.student, hw.id)).length).toBe(1)
    // The other student, who did not submit, got all three.
    expect((await remindersFor(w.student2, hw.id)).length).toBe(3)
  })
})

describe('the database keys (sql/010)', () => {
  test('one live event per (task, student, trigger, scheduled_at); START at most once per task and student', async () => {
    clock.set(T0)
    const hw = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, taskKind: 'HOMEWORK', startAt: plus(T0, HOUR).toISOString(), dueAt: plus(T0, 3 * DAY).toISOString() })
    const insert = (trigger: string, at: Date) => w.deps.sql`
      insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at)
      values (${newId()}, ${hw.id}, ${w.student.id}, ${trigger}, ${at})`
    expect(await insert('DUE', plus(T0, 3 * DAY)).catch((e) => e.code)).toBe('23505')
    // Another time for the same trigger is allowed (a moved deadline).
    await insert('DUE', plus(T0, 4 * DAY))
    // A second START, at any time, is not.
    expect(await insert('START', plus(T0, 2 * HOUR)).catch((e) => e.code)).toBe('23505')
  })
})
