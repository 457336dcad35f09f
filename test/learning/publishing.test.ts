import { beforeAll, describe, expect, test } from 'bun:test'
import { publishScheduledTasks } from '../../src/modules/learning/publishing.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { studentJoined } from '../../src/modules/reminders/hooks.ts'
import { addStudent } from '../support/fixtures.ts'
import { ManualClock, signUp } from '../support/harness.ts'
import { HOUR, DAY, eventsOf, live, plus } from '../support/reminders.ts'
import { createTask, textTask, type World, worldWithPoint } from './helpers.ts'

/**
 * Issue 29.9: drafts, scheduled publishing and unpublishing. A task students cannot see has no
 * reminder events and sends nothing; publishing (by PATCH or by the task-publisher job) starts
 * them; unpublishing hides the task, keeps submissions and cancels pending reminders.
 */
// A stretch of time of its own: dispatch and the publisher see the whole test database.
const T0 = new Date('2031-05-04T08:00:00.000Z')
const clock = new ManualClock(T0)
let w: World
let pointId: string

beforeAll(async () => void ({ w, pointId } = await worldWithPoint({ clock })), 60_000)

const homework = (extra: Record<string, unknown> = {}) => ({
  title: 'Essay',
  ...textTask,
  taskKind: 'HOMEWORK',
  startAt: clock.now().toISOString(),
  dueAt: plus(clock.now(), 3 * DAY).toISOString(),
  ...extra,
})
const patch = (taskId: string, json: unknown, token = w.teacher.token) => w.api.patch(`${w.base}/tasks/${taskId}`, { token, json })
const treeTaskIds = async (token: string) => {
  const r = await w.api.get(w.base, { token })
  expect(r.status).toBe(200)
  return r.data.units.flatMap((u: any) => u.points.flatMap((p: any) => p.tasks.map((t: any) => t.id))) as string[]
}
const homeworkIds = async (token: string) => {
  const r = await w.api.get(`/courses/${w.course.id}/homeworks`, { token })
  expect(r.status).toBe(200)
  return r.data.items.map((i: any) => i.taskId) as string[]
}
const startNotifications = (taskId: string) =>
  w.deps.sql<{ user_id: string }[]>`
    select n.user_id from notifications n join homework_reminder_events e on e.id = n.event_id
     where e.task_id = ${taskId} and e.trigger_type = 'START'`

describe('task publishing states', () => {
  test('without a state a task is published at once, as before (existing clients unchanged)', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, homework({ title: 'Plain' }))
    expect(t.state).toBe('PUBLISHED')
    expect(t.publishAt).toBeNull()
    expect(t.publishedAt).toBe(clock.now().toISOString())
    expect(live(await eventsOf(w.deps.sql, t.id)).length).toBe(6) // 2 students × 3 triggers
    expect(await treeTaskIds(w.student.token)).toContain(t.id)
  })

  test('a draft homework: invisible to students, no events, no notification; the teacher sees it marked', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, homework({ title: 'Draft essay', state: 'DRAFT' }))
    expect([t.state, t.publishAt, t.publishedAt]).toEqual(['DRAFT', null, null])
    expect((await eventsOf(w.deps.sql, t.id)).length).toBe(0)
    await dispatch(w.deps.sql, plus(clock.now(), 1))
    expect((await startNotifications(t.id)).length).toBe(0)

    expect(await treeTaskIds(w.teacher.token)).toContain(t.id)
    expect(await treeTaskIds(w.student.token)).not.toContain(t.id)
    expect(await homeworkIds(w.student.token)).not.toContain(t.id)
    const get = await w.api.get(`${w.base}/tasks/${t.id}`, { token: w.student.token })
    expect([get.status, get.code]).toEqual([404, 40404])
    const sub = await w.api.post(`${w.base}/tasks/${t.id}/submissions`, { token: w.student.token, json: { content: '<p>x</p>' } })
    expect([sub.status, sub.code]).toEqual([404, 40404])
    const subs = await w.api.get(`${w.base}/tasks/${t.id}/submissions`, { token: w.student.token })
    expect([subs.status, subs.code]).toEqual([404, 40404])
    const overview = await w.api.get(`${w.base}/overview`, { token: w.student.token })
    const teacherView = await w.api.get(`${w.base}/tasks/${t.id}`, { token: w.teacher.token })
    expect([teacherView.status, teacherView.data.state]).toEqual([200, 'DRAFT'])

    // A student joining meanwhile gets no event of the draft (every generator filters on the state).
    const late = await signUp(w.api, 'STUDENT', 'Late')
    await addStudent(w.deps.sql, w.course.id, late.id, clock.now())
    await w.deps.sql.begin((tx) => studentJoined(tx, w.course.id, late.id, clock.now()))
    expect((await eventsOf(w.deps.sql, t.id)).length).toBe(0)

    // Publishing: students see it, the open homework gets START at now, the next scan notifies.
    clock.advance(HOUR)
    const pub = await patch(t.id, { state: 'PUBLISHED' })
    expect([pub.status, pub.code, pub.data.state, pub.data.publishedAt]).toEqual([200, 0, 'PUBLISHED', clock.now().toISOString()])
    const events = live(await eventsOf(w.deps.sql, t.id))
    expect(events.filter((e) => e.trigger_type === 'START').length).toBe(3)
    expect(events.filter((e) => e.trigger_type === 'START').every((e) => e.scheduled_at.getTime() === clock.now().getTime())).toBe(true)
    await dispatch(w.deps.sql, clock.now())
    expect((await startNotifications(t.id)).length).toBe(3)
    expect(await treeTaskIds(w.student.token)).toContain(t.id)
    expect(await homeworkIds(w.student.token)).toContain(t.id)
    expect(overview.status).toBe(200)
  })

  test('a draft is never a column of the gradebook nor counted in a student\'s total', async () => {
    const before = (await w.api.get(`${w.base}/overview`, { token: w.student.token })).data.students[0].totalTasks
    const t = await createTask(w.api, w.base, w.teacher, pointId, homework({ title: 'Hidden total', state: 'DRAFT' }))
    expect((await w.api.get(`${w.base}/overview`, { token: w.student.token })).data.students[0].totalTasks).toBe(before)
    const grades = await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })
    expect(grades.status).toBe(200)
    expect(JSON.stringify(grades.data)).not.toContain(t.id)
    expect((await patch(t.id, { state: 'PUBLISHED' })).status).toBe(200)
    expect((await w.api.get(`${w.base}/overview`, { token: w.student.token })).data.students[0].totalTasks).toBe(before + 1)
  })

  test('scheduled: published by the job when its time comes, once, with its reminders', async () => {
    const at = plus(clock.now(), 2 * HOUR)
    const t = await createTask(w.api, w.base, w.teacher, pointId, homework({ title: 'Scheduled', state: 'SCHEDULED', publishAt: at.toISOString() }))
    expect([t.state, t.publishAt, t.publishedAt]).toEqual(['SCHEDULED', at.toISOString(), null])
    expect((await eventsOf(w.deps.sql, t.id)).length).toBe(0)
    expect(await treeTaskIds(w.student.token)).not.toContain(t.id)

    // A minute early: nothing.
    await publishScheduledTasks(w.deps.sql, plus(at, -60_000))
    expect((await w.api.get(`${w.base}/tasks/${t.id}`, { token: w.student.token })).status).toBe(404)

    // Two instances at once: published once, START once per student.
    clock.set(plus(at, 30_000))
    const runs = await Promise.all([publishScheduledTasks(w.deps.sql, clock.now()), publishScheduledTasks(w.deps.sql, clock.now())])
    expect(runs.reduce((n, r) => n + r.published, 0)).toBeGreaterThanOrEqual(1)
    const got = await w.api.get(`${w.base}/tasks/${t.id}`, { token: w.student.token })
    expect([got.status, got.data.state, got.data.publishAt, got.data.publishedAt]).toEqual([200, 'PUBLISHED', null, clock.now().toISOString()])
    const starts = live(await eventsOf(w.deps.sql, t.id)).filter((e) => e.trigger_type === 'START')
    expect(starts.length).toBe(3)
    expect(await publishScheduledTasks(w.deps.sql, clock.now())).toEqual({ published: 0 })
  })

  test('an edit of a scheduled task keeps its time; publishAt alone schedules; bad times are 400', async () => {
    const at = plus(clock.now(), DAY)
    const t = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, title: 'Reading', publishAt: at.toISOString() })
    expect([t.state, t.publishAt]).toEqual(['SCHEDULED', at.toISOString()])
    const renamed = await patch(t.id, { title: 'Reading 2' })
    expect([renamed.status, renamed.data.state, renamed.data.publishAt]).toEqual([200, 'SCHEDULED', at.toISOString()])
    const back = await patch(t.id, { state: 'DRAFT' })
    expect([back.status, back.data.state, back.data.publishAt]).toEqual([200, 'DRAFT', null])

    const cases: [unknown, string][] = [
      [{ state: 'SCHEDULED' }, 'publishAt'],
      [{ state: 'SCHEDULED', publishAt: plus(clock.now(), -1000).toISOString() }, 'publishAt'],
      [{ state: 'PUBLISHED', publishAt: at.toISOString() }, 'publishAt'],
      [{ state: 'LIVE' }, 'state'],
      [{ publishAt: 'tomorrow' }, 'publishAt'],
    ]
    for (const [json, field] of cases) {
      const r = await patch(t.id, json)
      expect([JSON.stringify(json), r.status, r.code, r.data.fields.map((f: any) => f.field)]).toEqual([JSON.stringify(json), 400, 40001, [field]])
    }
    const created = await w.api.post(`${w.base}/points/${pointId}/tasks`, { token: w.teacher.token, json: { ...textTask, title: 'x', state: 'UNPUBLISHED' } })
    expect([created.status, created.code, created.data.fields[0].field]).toEqual([400, 40001, 'state'])
    // A draft was never published: it cannot be unpublished.
    const never = await patch(t.id, { state: 'UNPUBLISHED' })
    expect([never.status, never.code]).toEqual([409, 40900])
  })

  test('unpublishing hides the task, keeps submissions, cancels pending reminders; publishing again does not repeat START', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, homework({ title: 'Retire me' }))
    await dispatch(w.deps.sql, clock.now())
    expect((await startNotifications(t.id)).length).toBeGreaterThanOrEqual(2)
    const sub = await w.api.post(`${w.base}/tasks/${t.id}/submissions`, { token: w.student.token, json: { content: '<p>mine</p>' } })
    expect(sub.status).toBe(201)

    clock.advance(HOUR)
    const un = await patch(t.id, { state: 'UNPUBLISHED' })
    expect([un.status, un.data.state]).toEqual([200, 'UNPUBLISHED'])
    const events = await eventsOf(w.deps.sql, t.id)
    expect(events.filter((e) => !e.sent_at && !e.canceled)).toEqual([])
    expect(events.some((e) => e.sent_at)).toBe(true) // history stays
    expect(await treeTaskIds(w.student.token)).not.toContain(t.id)
    expect(await homeworkIds(w.student.token)).not.toContain(t.id)
    expect((await w.api.get(`${w.base}/tasks/${t.id}/submissions`, { token: w.student.token })).status).toBe(404)
    const kept = await w.api.get(`${w.base}/tasks/${t.id}/submissions`, { token: w.teacher.token })
    expect([kept.status, kept.data.items.map((s: any) => s.id)]).toEqual([200, [sub.data.id]])
    // Published once: never a draft again.
    const draft = await patch(t.id, { state: 'DRAFT' })
    expect([draft.status, draft.code]).toEqual([409, 40900])

    const again = await patch(t.id, { state: 'PUBLISHED' })
    expect(again.status).toBe(200)
    await dispatch(w.deps.sql, clock.now())
    const starts = await startNotifications(t.id)
    expect(new Set(starts.map((s) => s.user_id)).size).toBe(starts.length) // START at most once per student
    expect(live(await eventsOf(w.deps.sql, t.id)).filter((e) => !e.sent_at).length).toBeGreaterThan(0)
  })

  test('401 anonymous, 403 for a student or another teacher, 404 unknown task', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, title: 'Guarded', state: 'DRAFT' })
    const anon = await w.api.patch(`${w.base}/tasks/${t.id}`, { json: { state: 'PUBLISHED' } })
    expect([anon.status, anon.code]).toEqual([401, 40100])
    for (const who of [w.student, w.otherTeacher]) {
      const r = await patch(t.id, { state: 'PUBLISHED' }, who.token)
      expect([r.status, r.code]).toEqual([403, 40300])
    }
    const unknown = await patch('0190f3c4-0000-7000-8000-000000000000', { state: 'PUBLISHED' })
    expect([unknown.status, unknown.code]).toEqual([404, 40404])
    expect((await w.api.get(`${w.base}/tasks/${t.id}`, { token: w.teacher.token })).data.state).toBe('DRAFT')
  })
})
