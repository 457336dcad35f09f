import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import type { Sql } from '../../src/db/connect.ts'
import { insertCourse, insertPoint } from '../support/fixtures.ts'
import { scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { DAY, bulkJoin, bulkStudents, createHomework, eventsOf, plus } from '../support/reminders.ts'
import { signUp } from '../support/harness.ts'
import { waitFor } from '../support/wait.ts'
import { databaseProxy, load, timed, type Sample, type TcpProxy } from './support.ts'

const JWT_SECRET = 'resilience-test-secret-resilience-test-secret'

/**
 * Issue 11 items 1 and 2 on a real PostgreSQL server and a real service process:
 * the pool's backends terminated under load (postgres.js used to crash the process with an
 * uncaught TypeError in nextWrite), and an outage simulated by a TCP proxy that is cut and
 * restored (requests used to hang 10-20 s, and to fail for seconds after the database was back).
 */
describe.skipIf(!process.env.DATABASE_URL)('database faults (real PostgreSQL, real process)', () => {
  test('a query on a connection whose backend was terminated rejects with a catchable CONNECTION_CLOSED (postgres.js patch)', async () => {
    // porsager/postgres#1208: a reserved connection stays pinned after its backend dies; the
    // next write used to throw an uncaught TypeError from a timer (or, guarded naively, hang).
    const sql = postgres(process.env.DATABASE_URL!, { max: 2, onnotice: () => {} })
    const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} })
    try {
      for (let round = 0; round < 3; round++) {
        const reserved = await sql.reserve()
        const [row] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`
        const pid = row!.pid
        await admin`select pg_terminate_backend(${pid})`
        // The scenario: the next write goes out shortly after the termination, as in the field
        // (waiting until the backend is gone from pg_stat_activity turns it into ECONNRESET).
        await Bun.sleep(100)
        const outcome = await Promise.race([
          reserved`select 1`.then(
            () => 'resolved',
            (e: any) => e.code,
          ),
          Bun.sleep(3000).then(() => 'hung'), // a deadline, not a wait
        ])
        expect(['CONNECTION_CLOSED', '57P01']).toContain(outcome)
        reserved.release()
      }
      // The pool itself carries on.
      expect([...(await sql`select 1 as one`)]).toEqual([{ one: 1 }])
    } finally {
      await sql.end({ timeout: 1 })
      await admin.end({ timeout: 1 })
    }
  }, 20_000)

  test('16 clients while every backend is terminated five times: the process stays up, only 2xx and 503, recovery within 1 s', async () => {
    const db = await scratchDatabase('cls_faults')
    const admin = postgres(process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', { max: 1, onnotice: () => {} })
    const dbName = new URL(db.url).pathname.slice(1)
    let svc: ServiceProcess | undefined
    try {
      svc = await startService({ env: { DATABASE_URL: db.url, JWT_SECRET, DB_POOL_MAX: '10', REMINDER_SCAN_CRON: 'off' } })
      const { token } = await signUp(svc.api)
      const auth = { headers: { authorization: `Bearer ${token}` } }
      const base = svc.url
      // Reads and writes: the notification inbox, marking all read, and the caller's profile.
      const run = load(16, (i) =>
        i % 4 === 0
          ? timed(`${base}/api/v1/notifications/read-all`, { method: 'PATCH', ...auth })
          : timed(`${base}/api/v1/${i % 2 ? 'notifications' : 'auth/me'}`, auth),
      )
      let terminated: number[] = []
      for (let cut = 0; cut < 5; cut++) {
        await Bun.sleep(600) // the scenario: load runs between two cuts
        const rows = await admin<{ pid: number }[]>`
          select pid, pg_terminate_backend(pid) as signalled from pg_stat_activity
          where datname = ${dbName} and pid <> pg_backend_pid()`
        terminated = rows.map((r) => r.pid)
      }
      // pg_terminate_backend only signals: on a loaded box a backend can take a moment to exit.
      // Recovery is counted from the moment the last terminated backend is gone.
      await waitFor(async () => {
        const left = await admin`select 1 from pg_stat_activity where pid = any(${terminated})`
        return left.length === 0
      })
      const lastCut = performance.now()
      await Bun.sleep(2000) // the scenario: load goes on for 2 s after the database is whole again (the recovery window)
      const samples = await run.stop()

      const after = samples.filter((s) => s.at > lastCut + 1000)
      const odd = samples.filter((s) => !((s.status >= 200 && s.status < 300) || (s.status === 503 && s.code === 50300)))
      const lateFailures = after.filter((s) => s.status < 200 || s.status >= 300)
      if (odd.length || lateFailures.length || after.length <= 50)
        // What a failure needs to be understood (CI shows only the assertion): the odd answers and their timing.
        console.log('database faults:', JSON.stringify({ total: samples.length, after: after.length, odd: odd.slice(0, 20).map((s) => ({ ...s, at: Math.round(s.at - lastCut) })), lateFailures: lateFailures.slice(0, 20).map((s) => ({ ...s, at: Math.round(s.at - lastCut) })) }), svc.output().split('\n').filter((l) => l.includes('unhandled')).slice(0, 10).join('\n'), svc.output().slice(-3000))
      expect(svc.proc.exitCode).toBeNull()
      expect(svc.output()).not.toContain('TypeError')
      // The process's safety net keeps it up through a connection error nobody handled, but none
      // may occur: the driver's start-up rejection (porsager/postgres #1192) ended the process.
      expect(svc.output()).not.toContain('unhandled rejection')
      const statuses = [...new Set(samples.map((s) => s.status))].sort()
      expect(statuses.filter((s) => !((s >= 200 && s < 300) || s === 503))).toEqual([])
      expect(samples.filter((s) => s.status === 503).every((s) => s.code === 50300)).toBe(true)
      // Everything that started 1 s after the last cut succeeded, and there was plenty of it.
      expect(after.length).toBeGreaterThan(50)
      expect(after.filter((s) => s.status < 200 || s.status >= 300)).toEqual([])
    } finally {
      await svc?.kill()
      await admin.end()
      await db.drop()
    }
  }, 60_000)

  describe('an outage between the service and PostgreSQL (TCP proxy cut and restored)', () => {
    let db: Awaited<ReturnType<typeof scratchDatabase>>
    let proxy: TcpProxy
    let svc: ServiceProcess
    let sql: Sql
    beforeAll(async () => {
      db = await scratchDatabase('cls_outage')
      const via = await databaseProxy(db.url)
      proxy = via.proxy
      svc = await startService({
        env: { DATABASE_URL: via.url, JWT_SECRET, DB_POOL_MAX: '10', REMINDER_SCAN_CRON: '*/2 * * * * *' },
      })
      sql = postgres(db.url, { max: 2, onnotice: () => {} })
    }, 60_000)
    afterAll(async () => {
      await svc?.kill()
      proxy?.close()
      await sql?.end()
      await db?.drop()
    })

    test('503 (50300) within 3 s while cut, health within 2 s; success within 1 s of restoring; due reminders delivered by the second scan', async () => {
      const { token } = await signUp(svc.api)
      const auth = { headers: { authorization: `Bearer ${token}` } }
      expect((await timed(`${svc.url}/api/v1/notifications`, auth)).status).toBe(200)

      // A homework that starts (START reminder due) while the database is out of reach.
      const now = new Date()
      const [teacher, ...students] = await bulkStudents(sql, 3)
      const course = await insertCourse(sql, teacher!, 'Outage')
      await bulkJoin(sql, course.id, students)
      const { pointId } = await insertPoint(sql, course.id)
      const hw = await createHomework(sql, course.id, pointId, { title: 'During the outage', startAt: plus(now, 3000), dueAt: plus(now, 3 * DAY) }, now)
      const startEvents = () => eventsOf(sql, hw.id).then((es) => es.filter((e) => e.trigger_type === 'START'))
      expect((await startEvents()).filter((e) => !e.sent_at)).toHaveLength(2)

      proxy.cut()
      const cutAt = performance.now()
      const during: Sample[] = []
      const health: Sample[] = []
      const run = load(6, async (i) => {
        const s = i === 0 ? await timed(`${svc.url}/status/health`) : await timed(`${svc.url}/api/v1/notifications`, auth)
        ;(i === 0 ? health : during).push(s)
        await Bun.sleep(100) // the scenario: each client asks ten times a second
        return s
      })
      await Bun.sleep(6000) // the scenario: the outage lasts 6 s
      await run.stop()
      expect(during.length).toBeGreaterThan(10)
      // Requests that reached the service after the cut: each a 503 (50300), none slower than 3 s.
      const late = during.filter((s) => s.at > cutAt + 300)
      expect(late.map((s) => `${s.status}/${s.code}`).filter((x) => x !== '503/50300')).toEqual([])
      expect(Math.max(...during.map((s) => s.ms))).toBeLessThan(3000)
      expect(health.filter((s) => s.at > cutAt + 300).map((s) => s.status)).not.toContain(200)
      expect(Math.max(...health.map((s) => s.ms))).toBeLessThan(2000)
      // Nothing could be delivered meanwhile.
      expect((await startEvents()).filter((e) => e.sent_at)).toHaveLength(0)

      proxy.restore()
      const restoredAt = performance.now()
      const firstOk = await waitFor(async () => (await timed(`${svc.url}/api/v1/notifications`, auth)).status === 200 && performance.now() - restoredAt, {
        timeoutMs: 5000,
        intervalMs: 25,
      }).catch(() => undefined)
      expect(firstOk).toBeDefined()
      expect(firstOk!).toBeLessThan(1000)
      // And everything after that succeeds.
      const after = await Promise.all(Array.from({ length: 20 }, () => timed(`${svc.url}/api/v1/notifications`, auth)))
      expect(after.map((s) => s.status).filter((s) => s !== 200)).toEqual([])

      // Scans run every 2 s: the second one after the restore comes at most ~4 s later.
      let delivered = 0
      const left = Math.max(0, 4500 - (performance.now() - restoredAt))
      await waitFor(async () => (delivered = (await startEvents()).filter((e) => e.sent_at).length) >= 2, { timeoutMs: left, intervalMs: 100 }).catch(() => {})
      expect(delivered).toBe(2)
      expect(svc.proc.exitCode).toBeNull()
      // Up without the safety net's help: no rejection went unhandled through the outage.
      expect(svc.output()).not.toContain('unhandled rejection')
    }, 40_000)
  })
})
