import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Sql, TxSql } from '../../src/db/connect.ts'
import { insertNotifications } from '../support/notifications.ts'
import { notify as notifyUsers } from '../../src/modules/notifications/notify.ts'
import { newId } from '../../src/lib/ids.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse, insertPoint } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, type Account, type TestContext } from '../support/harness.ts'
import { DAY, HOUR, createHomework, plus } from '../support/reminders.ts'
import { SseReader } from './sse.ts'
import { waitFor } from '../support/wait.ts'

/*
 * GET /notifications/stream over HTTP, in-process (embedded database: in-process signals;
 * PostgreSQL: LISTEN/NOTIFY on the same database). The cross-process case is in
 * stream-instances.test.ts.
 */

const T0 = new Date('2030-09-01T08:00:00.000Z')
const clock = new ManualClock(T0)
let ctx: TestContext
let sql: Sql
let teacher: Account, student: Account
let courseId: string, pointId: string
const open: SseReader[] = []

beforeAll(async () => {
  ctx = await testApp({ clock, config: { streamHeartbeatSeconds: 1 } })
  sql = ctx.deps.sql
  ;[teacher, student] = await Promise.all([signUp(ctx.api, 'TEACHER'), signUp(ctx.api)])
  courseId = (await insertCourse(sql, teacher.id, 'Networks')).id
  await addStudent(sql, courseId, student.id)
  pointId = (await insertPoint(sql, courseId)).pointId
}, 30_000)

afterAll(async () => {
  for (const r of open) await r.close()
})

async function connect(token: string | null, opts: { lastEventId?: string; query?: string; prefix?: string } = {}) {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  if (opts.lastEventId) headers['last-event-id'] = opts.lastEventId
  const res = await ctx.app.handle(new Request(`http://localhost${opts.prefix ?? '/api/v1'}/notifications/stream${opts.query ?? ''}`, { headers }))
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    const r = new SseReader(res.body!)
    open.push(r)
    return { res, stream: r }
  }
  return { res, stream: null, body: await res.json() }
}

/** One announcement-like notification through the pipeline (no channels). */
const announce = (tx: TxSql, userId: string, title: string) =>
  notifyUsers(
    tx,
    [userId],
    { actionPath: null, params: { kind: 'ANNOUNCEMENT', courseId: newId(), courseTitle: 'Streams', announcementTitle: title, excerpt: '' } },
    { now: clock.now(), channels: [] },
  )

const notify = async (userId: string, title: string) => {
  await sql.begin(async (tx) => {
    await announce(tx, userId, title)
  })
}

describe('GET /notifications/stream', () => {
  test('without a login: the ordinary 401 envelope, no stream', async () => {
    const { res, stream, body } = await connect(null)
    expect(res.status).toBe(401)
    expect(stream).toBeNull()
    expect(body).toMatchObject({ code: 40100, data: null })
  })

  test('an event stream, not cached, with counts on connect', async () => {
    const fresh = await signUp(ctx.api)
    const { res, stream } = await connect(fresh.token)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(await stream!.until((r) => r.of('counts').length > 0)).toBe(true)
    expect(stream!.of('counts')[0]!.data).toEqual({ unreadCount: 0, unreadReminderCount: 0 })
    await stream!.close()
  })

  test('a reminder delivered by the scan arrives as a notification event with its id, then new counts; marking read sends counts', async () => {
    const { stream } = await connect(student.token, { prefix: '/core/api/v1' })
    await stream!.until((r) => r.of('counts').length > 0)
    const before = stream!.lastCounts()
    const hw = await createHomework(sql, courseId, pointId, { title: 'Sockets', startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    clock.set(plus(T0, HOUR))
    await dispatch(sql, clock.now())
    expect(await stream!.until((r) => r.of('notification').length > 0 && r.lastCounts()?.unreadReminderCount === before.unreadReminderCount + 1)).toBe(true)
    const n = stream!.of('notification')[0]!
    expect(n.id).toBe(n.data.id)
    expect(n.data).toMatchObject({ type: 'HOMEWORK_REMINDER', title: 'New homework: Sockets', actionPath: `/courses/${courseId}?taskId=${hw.id}`, readAt: null })
    // Exactly as GET /notifications shows it.
    const inbox = await ctx.api.get('/notifications', { token: student.token })
    expect(inbox.data.items.find((x: any) => x.id === n.id)).toEqual(n.data)
    expect(stream!.lastCounts()).toEqual({ unreadCount: inbox.data.unreadCount, unreadReminderCount: before.unreadReminderCount + 1 })

    const countsSeen = stream!.of('counts').length
    expect((await ctx.api.patch(`/notifications/${n.id}/read`, { token: student.token })).status).toBe(200)
    expect(await stream!.until((r) => r.of('counts').length > countsSeen)).toBe(true)
    expect(stream!.lastCounts().unreadReminderCount).toBe(before.unreadReminderCount)
    await notify(student.id, 'one more')
    expect(await stream!.until((r) => r.of('notification').length === 2)).toBe(true)
    const seen2 = stream!.of('counts').length
    expect((await ctx.api.patch('/notifications/read-all', { token: student.token })).status).toBe(200)
    expect(await stream!.until((r) => r.of('counts').length > seen2)).toBe(true)
    expect(stream!.lastCounts()).toEqual({ unreadCount: 0, unreadReminderCount: 0 })
    await stream!.close()
  })

  test('another user\'s notifications do not reach the stream; a rolled-back write sends nothing', async () => {
    const a = await signUp(ctx.api)
    const b = await signUp(ctx.api)
    const { stream } = await connect(a.token)
    await stream!.until((r) => r.of('counts').length > 0)
    await notify(b.id, 'for b')
    await sql
      .begin(async (tx) => {
        await announce(tx, a.id, 'rolled back')
        throw new Error('rollback')
      })
      .catch(() => {})
    await notify(a.id, 'for a')
    // One millisecond later: two notifications of one instant are ordered by id, and ids made
    // within the same millisecond are not ordered (uuid v7), so the stream's order would be chance.
    clock.set(new Date(clock.now().getTime() + 1))
    // A later notification of a's marks the end: anything announced before it has arrived too.
    await notify(a.id, 'last')
    expect(await stream!.until((r) => r.of('notification').some((e) => e.data.title === 'last'))).toBe(true)
    expect(stream!.of('notification').map((e) => e.data.title)).toEqual(['for a', 'last'])
    await stream!.close()
  })

  test('Last-Event-ID (header or query) replays newer notifications oldest first, at most 100', async () => {
    const u = await signUp(ctx.api)
    for (let i = 1; i <= 105; i++) {
      await insertNotifications(sql, [{ userId: u.id, type: 'ANNOUNCEMENT', title: `r${i}`, content: '', actionPath: null }], plus(T0, i * 1000))
    }
    const list = await ctx.api.get('/notifications?pageSize=200', { token: u.token })
    const oldestFirst = [...list.data.items].reverse()
    const { stream } = await connect(u.token, { lastEventId: oldestFirst[2].id })
    expect(await stream!.until((r) => r.of('counts').length > 0)).toBe(true)
    const replay = stream!.of('notification').map((e) => e.data.title)
    expect(replay).toHaveLength(100)
    expect(replay[0]).toBe('r4')
    expect(replay[99]).toBe('r103')
    await stream!.close()

    const q = await connect(u.token, { query: `?lastEventId=${oldestFirst[101].id}` })
    await q.stream!.until((r) => r.of('counts').length > 0)
    expect(q.stream!.of('notification').map((e) => e.data.title)).toEqual(['r103', 'r104', 'r105'])
    // Replay comes before the counts.
    expect(q.stream!.events.at(-1)!.event).toBe('counts')
    await q.stream!.close()
  })

  test('pings at least every heartbeat; logout ends the stream', async () => {
    const u = await signUp(ctx.api)
    const { stream } = await connect(u.token)
    expect(await stream!.until((r) => r.comments.includes('ping'), 3000)).toBe(true)
    expect((await ctx.api.post('/auth/logout', { token: u.token })).status).toBe(200)
    expect(await stream!.until((r) => r.closed, 3000)).toBe(true)
  })

  test('at most 10 open streams per user: the 11th → 429 (42900); closing one frees a place', async () => {
    const u = await signUp(ctx.api)
    const streams = []
    for (let i = 0; i < 10; i++) {
      const { res, stream } = await connect(u.token)
      expect(res.status).toBe(200)
      streams.push(stream!)
    }
    const eleventh = await connect(u.token)
    expect(eleventh.res.status).toBe(429)
    expect(eleventh.body).toMatchObject({ code: 42900, data: null })
    await streams[0]!.close()
    // The place is given back once the close is recorded in the database (sql/031): poll.
    const next = await waitFor(
      async () => {
        const c = await connect(u.token)
        return c.res.status === 429 ? null : c
      },
      { timeoutMs: 10_000, intervalMs: 20, what: 'the closed stream to give its place back' },
    )
    expect(next.res.status).toBe(200)
  })
})
