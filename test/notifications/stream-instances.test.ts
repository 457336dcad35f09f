import { beforeAll, describe, expect, test } from 'bun:test'
import { closedAfter, twoInstances, type ServiceProcess } from '../support/processes.ts'
import { signUp } from '../support/harness.ts'
import { SseReader } from './sse.ts'

/*
 * Two real service processes on one PostgreSQL database: a notification written through B
 * reaches a stream held on A within 2 s (LISTEN/NOTIFY), marking read on B sends counts to A,
 * and logging out on B ends A's stream. A listens through DATABASE_LISTEN_URL (the direct
 * connection a deployment behind a transaction-mode pooler would give), B through its own pool.
 */
describe.skipIf(!process.env.DATABASE_URL)('live stream across two instances', () => {
  const two = twoInstances('cls_sse', { JWT_SECRET: 'two-instances-secret-0123456789abcdef', REMINDER_SCAN_CRON: 'off', STREAM_HEARTBEAT_SECONDS: '1' }, (url) => ({ DATABASE_LISTEN_URL: url }))
  const readers: SseReader[] = closedAfter(two)
  let a: ServiceProcess, b: ServiceProcess
  beforeAll(() => void ({ a, b } = two))

  const call = (svc: ServiceProcess, method: string, path: string, token?: string, json?: unknown) => svc.api.call(method, path, { token, json })
  const account = async (svc: ServiceProcess, role: 'TEACHER' | 'STUDENT') => (await signUp(svc.api, role)).token
  const stream = async (svc: ServiceProcess, token: string) => {
    const res = await fetch(`${svc.url}/api/v1/notifications/stream`, { headers: { authorization: `Bearer ${token}` } })
    expect(res.status).toBe(200)
    const r = new SseReader(res.body!)
    readers.push(r)
    return r
  }

  test('written through B, delivered on A within 2 s; read on B → counts on A; logout on B ends A\'s stream', async () => {
    const teacher = await account(b, 'TEACHER')
    const student = await account(a, 'STUDENT')
    const course = await call(b, 'POST', '/courses', teacher, { title: 'Distributed Systems', description: 'x' })
    expect(course.status).toBe(201)
    expect((await call(b, 'POST', '/courses/join', student, { inviteCode: course.data.inviteCode })).status).toBe(200)

    const onA = await stream(a, student)
    expect(await onA.until((r) => r.of('counts').length > 0)).toBe(true)
    expect(onA.lastCounts()).toEqual({ unreadCount: 0, unreadReminderCount: 0 })

    const started = performance.now()
    const ann = await call(b, 'POST', `/courses/${course.data.id}/announcements`, teacher, { title: 'Lab moved', content: '<p>Room 4</p>' })
    expect(ann.status).toBe(201)
    expect(await onA.until((r) => r.of('notification').length > 0, 2000)).toBe(true)
    const latencyMs = performance.now() - started
    expect(latencyMs).toBeLessThan(2000)
    const n = onA.of('notification')[0]!
    expect(n.data).toMatchObject({ type: 'ANNOUNCEMENT', title: 'Lab moved', content: 'Room 4' })
    expect(await onA.until((r) => r.lastCounts()?.unreadCount === 1, 2000)).toBe(true)

    expect((await call(b, 'PATCH', `/notifications/${n.id}/read`, student)).status).toBe(200)
    expect(await onA.until((r) => r.lastCounts()?.unreadCount === 0, 2000)).toBe(true)

    expect((await call(b, 'POST', '/auth/logout', student)).status).toBe(200)
    expect(await onA.until((r) => r.closed, 5000)).toBe(true)
  }, 30_000)
})
