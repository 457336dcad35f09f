import { afterEach, expect, test } from 'bun:test'
import { reminderJob, scheduler, stopJobs } from '../../src/jobs.ts'
import { addStudent, insertCourse, insertPoint } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp } from '../support/harness.ts'
import { DAY, HOUR, createHomework, plus } from '../support/reminders.ts'
import { waitFor } from '../support/wait.ts'

let cleanup: (() => void) | undefined
afterEach(() => {
  cleanup?.()
  cleanup = undefined
})

/** Polls until `ok`; a timeout fails the test, naming the last value. */
async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 6_000): Promise<T> {
  let last: T | undefined
  const met = await waitFor(async () => ok((last = await probe())), { timeoutMs: ms, intervalMs: 100 }).catch(() => false)
  if (!met) throw new Error(`until: condition not met within ${ms} ms; last value: ${JSON.stringify(last)?.slice(0, 300)}`)
  return last as T
}

test('with REMINDER_SCAN_CRON at one second, a due reminder reaches the inbox and the red dot', async () => {
  const clock = new ManualClock('2028-05-02T08:00:00.000Z')
  const { app, deps, api } = await testApp({ clock, config: { reminderScanCron: '* * * * * *' } })
  const teacher = await signUp(api, 'TEACHER')
  const student = await signUp(api, 'STUDENT')
  const course = await insertCourse(deps.sql, teacher.id, 'Operating Systems')
  await addStudent(deps.sql, course.id, student.id)
  const { pointId } = await insertPoint(deps.sql, course.id)
  const now = clock.now()
  const hw = await createHomework(deps.sql, course.id, pointId, { title: 'Page tables', startAt: plus(now, HOUR), dueAt: plus(now, 3 * DAY) }, now)

  // The scheduler as server.ts starts it, with the job's pattern taken from the configuration.
  const job = reminderJob(deps)
  expect(job.pattern).toBe('* * * * * *')
  // Completed scans are counted, so "not delivered again" can wait for scans that really ran.
  let scans = 0
  const counted = { ...job, run: async (at: Date) => (await job.run(at), scans++) }
  const running = app.use(scheduler(deps, [counted]))
  cleanup = () => stopJobs(running.store)

  const before = await api.get('/homeworks/mine', { token: student.token })
  expect(before.data.unreadReminderCount).toBe(0)

  // The homework opens; the next scan (within a second) delivers the START reminder.
  clock.advance(HOUR)
  const inbox = await until(
    () => api.get('/notifications', { token: student.token }),
    (r) => r.data?.items?.length > 0,
  )
  expect(inbox.status).toBe(200)
  expect(inbox.data.items).toHaveLength(1)
  expect(inbox.data.items[0]).toMatchObject({
    type: 'HOMEWORK_REMINDER',
    title: 'New homework: Page tables',
    actionPath: `/courses/${course.id}?taskId=${hw.id}`,
    readAt: null,
    deliveredAt: clock.now().toISOString(),
  })
  expect(inbox.data.unreadCount).toBe(1)
  expect(inbox.data.items[0].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)

  const centre = await api.get('/homeworks/mine', { token: student.token })
  expect(centre.data.unreadReminderCount).toBe(1)
  expect(centre.data.items).toHaveLength(1)
  expect(centre.data.items[0]).toMatchObject({ taskId: hw.id, status: 'IN_PROGRESS' })

  // The teacher sees the event as SENT.
  const events = await api.get(`/courses/${course.id}/homeworks/${hw.id}/reminders`, { token: teacher.token })
  expect(events.data.map((e: any) => [e.triggerType, e.state])).toEqual([
    ['START', 'SENT'],
    ['BEFORE_DUE_24H', 'PENDING'],
    ['DUE', 'PENDING'],
  ])

  // Reading it clears the red dot; later scans do not deliver it again.
  await api.patch(`/notifications/${inbox.data.items[0].id}/read`, { token: student.token })
  const scansAtRead = scans
  await until(async () => scans, (n) => n >= scansAtRead + 2)
  const after = await api.get('/homeworks/mine', { token: student.token })
  expect(after.data.unreadReminderCount).toBe(0)
  expect((await api.get('/notifications', { token: student.token })).data.total).toBe(1)
}, 20_000)

test("'off' disables the reminder job", async () => {
  const { deps } = await testApp({ config: { reminderScanCron: 'off' } })
  const jobs = scheduler(deps, [reminderJob(deps)])
  expect(Object.keys((jobs.store as any).cron ?? {})).toEqual([])
})

test('the default jobs include the reminder scan, every minute by default', async () => {
  const { deps } = await testApp()
  const { defaultJobs } = await import('../../src/jobs.ts')
  const job = defaultJobs(deps).find((j) => j.name === 'homework-reminders')
  expect(job?.pattern).toBe('* * * * *')
})
