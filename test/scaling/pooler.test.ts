import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { LOCK_KEY, maintainDatabase } from '../../src/db/maintenance.ts'
import { connectExternal } from '../../src/db/connect.ts'
import { signUp } from '../support/harness.ts'
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.ts'
import { closedAfter, twoInstances, type ServiceProcess } from '../support/processes.ts'
import { SseReader } from '../notifications/sse.ts'

/*
 * Issue 55, past one database server: two service processes whose DATABASE_URL goes through a
 * transaction-pooling PgBouncer (Debian's package), with DATABASE_DIRECT_URL to PostgreSQL for
 * LISTEN, migrations and session locks. The pooler has 3 server connections for both processes
 * (pools of 10 each), so consecutive statements of one process land on different server
 * connections: a named prepared statement would be missing on the next one ("prepared
 * statement … does not exist"). PostgreSQL pass only (the embedded database has no pooler).
 */
describe.skipIf(!process.env.DATABASE_URL)('through a transaction-mode PgBouncer', () => {
  let pg: PgBouncer
  beforeAll(async () => {
    pg = await startPgBouncer({ serverPoolSize: 3 })
  })
  const two = twoInstances(
    'cls_pool',
    { JWT_SECRET: 'pooled-instances-secret-0123456789abcdef', REMINDER_SCAN_CRON: 'off', STREAM_HEARTBEAT_SECONDS: '1' },
    () => ({}),
    (url) => ({ DATABASE_URL: pg.through(url), DATABASE_DIRECT_URL: url }),
  )
  afterAll(async () => {
    await pg?.stop()
  })
  const readers: SseReader[] = closedAfter(two)
  let a: ServiceProcess, b: ServiceProcess
  beforeAll(() => void ({ a, b } = two))
  const call = (svc: ServiceProcess, method: string, path: string, token?: string, json?: unknown) => svc.api.call(method, path, { token, json })

  test('the pooler is in the way: the service’s statements reach PostgreSQL through PgBouncer’s server connections', async () => {
    const admin = postgres(two.url, { max: 1, onnotice: () => {} })
    try {
      const teacher = (await signUp(a.api, 'TEACHER')).token
      expect((await call(b, 'GET', '/courses', teacher)).status).toBe(200)
      // PgBouncer's server connections to the scratch database: at most its pool of 3.
      const [row] = await admin<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
         where datname = current_database() and application_name <> 'course-learning-service direct'
           and application_name not like 'course-learning-service listen%' and pid <> pg_backend_pid()`
      expect(row!.n).toBeGreaterThan(0)
      expect(row!.n).toBeLessThanOrEqual(3)
    } finally {
      await admin.end()
    }
  })

  test('reads and writes from both instances at once: no prepared-statement errors, every answer right', async () => {
    const teacher = (await signUp(a.api, 'TEACHER')).token
    const students = await Promise.all(Array.from({ length: 6 }, (_, i) => signUp((i % 2 ? a : b).api, 'STUDENT')))
    const course = await call(a, 'POST', '/courses', teacher, { title: 'Pooled Systems', description: 'x' })
    expect(course.status).toBe(201)
    const joins = await Promise.all(students.map((s, i) => call(i % 2 ? b : a, 'POST', '/courses/join', s.token, { inviteCode: course.data.inviteCode })))
    expect(joins.map((r) => r.status)).toEqual(students.map(() => 200))
    // 120 reads of four kinds, spread over both processes and 3 server connections.
    const reads = await Promise.all(
      Array.from({ length: 120 }, (_, i) => {
        const s = students[i % students.length]!
        const svc = i % 2 ? a : b
        const path = ['/courses', '/notifications', '/homeworks/mine', `/courses/${course.data.id}`][i % 4]!
        return call(svc, 'GET', path, s.token)
      }),
    )
    expect(reads.filter((r) => r.status !== 200).map((r) => [r.status, r.body])).toEqual([])
    expect(reads.every((r) => r.body.code === 0)).toBe(true)
    const members = await call(b, 'GET', `/courses/${course.data.id}`, teacher)
    expect(members.status).toBe(200)
    expect(members.data.memberCount).toBe(7)
  }, 30_000)

  test('live stream across instances: LISTEN on the direct connection, NOTIFY committed through the pooler', async () => {
    const teacher = (await signUp(b.api, 'TEACHER')).token
    const student = (await signUp(a.api, 'STUDENT')).token
    const course = await call(b, 'POST', '/courses', teacher, { title: 'Distributed Systems', description: 'x' })
    expect(course.status).toBe(201)
    expect((await call(b, 'POST', '/courses/join', student, { inviteCode: course.data.inviteCode })).status).toBe(200)

    const res = await fetch(`${a.url}/api/v1/notifications/stream`, { headers: { authorization: `Bearer ${student}` } })
    expect(res.status).toBe(200)
    const onA = new SseReader(res.body!)
    readers.push(onA)
    expect(await onA.until((r) => r.of('counts').length > 0)).toBe(true)

    const ann = await call(b, 'POST', `/courses/${course.data.id}/announcements`, teacher, { title: 'Lab moved', content: '<p>Room 4</p>' })
    expect(ann.status).toBe(201)
    expect(await onA.until((r) => r.of('notification').length > 0, 5000)).toBe(true)
    const n = onA.of('notification')[0]!
    expect(n.data).toMatchObject({ type: 'ANNOUNCEMENT', title: 'Lab moved', content: 'Room 4' })
    expect(await onA.until((r) => r.lastCounts()?.unreadCount === 1, 5000)).toBe(true)

    expect((await call(b, 'PATCH', `/notifications/${n.id}/read`, student)).status).toBe(200)
    expect(await onA.until((r) => r.lastCounts()?.unreadCount === 0, 5000)).toBe(true)
    expect((await call(b, 'POST', '/auth/logout', student)).status).toBe(200)
    expect(await onA.until((r) => r.closed, 5000)).toBe(true)
  }, 30_000)

  test('the session advisory lock of maintenance is taken on the direct connection: one holder at a time', async () => {
    const db = await connectExternal(pg.through(two.url), 2, { pooled: true, directUrl: two.url })
    const other = postgres(two.url, { max: 1, onnotice: () => {} })
    try {
      expect(db.direct).not.toBe(db.sql)
      // Held by another session, the maintenance run on the direct connection steps aside (the
      // embedded kind: a server with autovacuum on would not try at all).
      const held = await other.reserve()
      await held`select pg_advisory_lock(${LOCK_KEY})`
      const result = await maintainDatabase(db.direct, { kind: 'embedded', maxConnections: 1 })
      expect(result).toEqual({ skipped: 'another instance', vacuumed: [] })
      await held`select pg_advisory_unlock(${LOCK_KEY})`
      held.release()
    } finally {
      await other.end()
      await db.close()
    }
  })
})
