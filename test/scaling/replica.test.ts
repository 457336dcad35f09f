import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connectReplica, type Sql } from '../../src/db/connect.ts'
import { createReadRouter, lsnReached, parseLsn, type ReadRouter } from '../../src/db/replica.ts'
import { createLogger } from '../../src/lib/log.ts'
import { countReplicaRead, registry, setReplicaState } from '../../src/metrics.ts'
import { ManualClock, signUp, teacherWithCourse, testApp, testDatabase, usingExternalDb, type TestContext } from '../support/harness.ts'
import { freePort, startService } from '../support/processes.ts'
import { startReplica, type Replica } from '../support/replica.ts'
import { eventually } from '../support/wait.ts'

/*
 * Issue 55, the read replica: a real streaming replica of the local server (pg_basebackup,
 * test/support/replica.ts) behind DATABASE_REPLICA_URL's router (src/db/replica.ts). Data is
 * never written on the replica, so what it serves is shown by pausing its replay
 * (pg_wal_replay_pause): a row written after the pause is not there for a reader it serves.
 */

describe('LSN arithmetic', () => {
  test('parses X/Y and compares, a page header at the insert position not counting', () => {
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n)
    expect(parseLsn('1/0')).toBe(1n << 32n)
    expect(lsnReached(parseLsn('0/F0003E0'), parseLsn('0/F0003E0'))).toBe(true)
    expect(lsnReached(parseLsn('0/F0003DF'), parseLsn('0/F0003E0'))).toBe(false)
    // The insert position right after a page header (24 bytes; 40 at a segment's start) is the
    // page boundary the last replayed record ended at.
    expect(lsnReached(parseLsn('0/F002000'), parseLsn('0/F002018'))).toBe(true)
    expect(lsnReached(parseLsn('0/F000000'), parseLsn('0/F000028'))).toBe(true)
    expect(lsnReached(parseLsn('0/F001FF8'), parseLsn('0/F002018'))).toBe(false)
  })
})

describe.skipIf(!usingExternalDb())('a streaming read replica (PostgreSQL pass)', () => {
  let replica: Replica
  let replicaSql: Sql
  const routers: ReadRouter[] = []
  const log = createLogger('silent')
  /** An app whose read-heavy routes go through a router on the replica, with every read's target noted. */
  async function appWith(opts: { maxLagMs: number; retryMs?: number; clock?: ManualClock }) {
    const reads: string[] = []
    const db = await testDatabase()
    const read = createReadRouter({
      primary: db.sql,
      replica: replicaSql,
      log,
      maxLagMs: opts.maxLagMs,
      retryMs: opts.retryMs ?? 60_000,
      checkMs: 0,
      observe: {
        read: (target, reason) => {
          reads.push(`${target}/${reason}`)
          countReplicaRead(target, reason)
        },
        state: setReplicaState,
      },
    })
    routers.push(read)
    const ctx = await testApp({ deps: { read }, clock: opts.clock })
    return { ...ctx, read, reads, last: () => reads.at(-1) }
  }

  beforeAll(async () => {
    await testDatabase()
    replica = await startReplica()
    replicaSql = connectReplica(replica.through(process.env.DATABASE_URL!), 4, { connectTimeoutSeconds: 2 })
    await replica.caughtUp()
  }, 120_000)
  afterAll(async () => {
    if (replica) await replica.admin`select pg_wal_replay_resume()`.catch(() => {})
    await replicaSql?.end({ timeout: 1 })
    await replica?.destroy()
  })

  /** A course with a teacher and two students, all on the replica. */
  async function world(ctx: TestContext) {
    const { teacher, courseId, inviteCode } = await teacherWithCourse(ctx.api, 'Replica course')
    const writer = await signUp(ctx.api, 'STUDENT')
    const reader = await signUp(ctx.api, 'STUDENT')
    for (const s of [writer, reader]) expect((await ctx.api.post('/courses/join', { token: s.token, json: { inviteCode } })).status).toBe(200)
    const unit = await ctx.api.post(`/courses/${courseId}/learning/units`, { token: teacher.token, json: { title: 'Unit 1', description: 'd' } })
    expect(unit.status).toBe(201)
    const point = await ctx.api.post(`/courses/${courseId}/learning/units/${unit.data.id}/points`, { token: teacher.token, json: { title: 'Point 1' } })
    expect(point.status).toBe(201)
    const task = await ctx.api.post(`/courses/${courseId}/learning/points/${point.data.id}/tasks`, {
      token: teacher.token,
      json: {
        title: 'Homework 1',
        taskKind: 'HOMEWORK',
        taskType: 'MEDIA',
        materialType: 'TEXT',
        content: '<p>Do it</p>',
        startAt: new Date(Date.now() - 3600_000).toISOString(),
        dueAt: new Date(Date.now() + 7 * 86400_000).toISOString(),
      },
    })
    expect(task.status).toBe(201)
    await replica.caughtUp()
    return { teacher, writer, reader, courseId, inviteCode, taskId: task.data.id as string }
  }
  /** Until the router has seen the replica current (its first check may find WAL not flushed yet). */
  async function warm(app: Awaited<ReturnType<typeof appWith>>, token: string) {
    await eventually(async () => {
      expect((await app.api.get('/courses', { token })).status).toBe(200)
      expect(app.last()).toBe('replica/current')
    })
  }
  const unitTitles = (res: { data: { units: { title: string }[] } }) => res.data.units.map((u) => u.title)

  test('every routed read runs on a current replica, with the same answers as the primary', async () => {
    // One stopped clock for both apps: answers with a time in them (remainingSeconds) compare exactly.
    const clock = new ManualClock(new Date())
    const app = await appWith({ maxLagMs: 60_000, clock })
    const { teacher, reader, courseId, taskId } = await world(app)
    // The teacher wrote just now: once the replica has it, their reads go there too.
    await warm(app, teacher.token)
    const reads: [string, string][] = [
      ['/courses', reader.token],
      ['/homeworks/mine', reader.token],
      [`/courses/${courseId}/homeworks`, reader.token],
      [`/courses/${courseId}/learning`, reader.token],
      [`/courses/${courseId}/learning/overview`, teacher.token],
      [`/courses/${courseId}/grades/overview`, teacher.token],
      [`/courses/${courseId}/grades/overview.csv`, teacher.token],
      [`/courses/${courseId}/analytics/totals`, teacher.token],
      [`/courses/${courseId}/learning/tasks/${taskId}`, reader.token],
      [`/courses/${courseId}/analytics/tasks/${taskId}/scores`, teacher.token],
      [`/courses/${courseId}/analytics/tasks/${taskId}/timeline`, teacher.token],
      [`/courses/${courseId}/analytics/tasks/${taskId}/questions`, teacher.token],
    ]
    const plain = await testApp({ clock })
    for (const [path, token] of reads) {
      const before = app.reads.length
      const viaReplica = await app.api.get(path, { token })
      expect(viaReplica.status, path).toBe(200)
      expect(app.reads.slice(before), path).toEqual(['replica/current'])
      const viaPrimary = await plain.api.get(path, { token })
      expect(viaReplica.body, path).toEqual(viaPrimary.body)
    }
  })

  test('a reader is served the replica\'s older state, the writer their own write (read-your-writes)', async () => {
    const app = await appWith({ maxLagMs: 60_000 })
    const { teacher, writer, reader, courseId } = await world(app)
    await warm(app, reader.token)
    await replica.admin`select pg_wal_replay_pause()`
    try {
      // Written after the pause: on the primary only.
      const unit = await app.api.post(`/courses/${courseId}/learning/units`, { token: teacher.token, json: { title: 'After the pause', description: 'd' } })
      expect(unit.status).toBe(201)
      const marker = await testDatabase().then((db) => db.sql<{ lsn: string }[]>`select lsn::text from replica_markers where user_id = ${teacher.id}`)
      expect(marker).toHaveLength(1)

      const third = await app.api.get(`/courses/${courseId}/learning`, { token: reader.token })
      expect(third.status).toBe(200)
      expect(unitTitles(third)).toEqual(['Unit 1'])
      expect(app.last()).toBe('replica/current')

      const own = await app.api.get(`/courses/${courseId}/learning`, { token: teacher.token })
      expect(own.status).toBe(200)
      expect(unitTitles(own)).toEqual(['Unit 1', 'After the pause'])
      expect(app.last()).toBe('primary/marker')

      // A student's own write: leaving the course, then their course list.
      expect((await app.api.get('/courses', { token: writer.token })).data.map((c: { id: string }) => c.id)).toContain(courseId)
      expect(app.last()).toBe('replica/current')
      expect((await app.api.post(`/courses/${courseId}/leave`, { token: writer.token })).status).toBe(200)
      const after = await app.api.get('/courses', { token: writer.token })
      expect(after.status).toBe(200)
      expect(after.data.map((c: { id: string }) => c.id)).not.toContain(courseId)
      expect(app.last()).toBe('primary/marker')
    } finally {
      await replica.admin`select pg_wal_replay_resume()`
    }
    await replica.caughtUp()
    // Replayed: the reader sees the unit, from the replica.
    const later = await app.api.get(`/courses/${courseId}/learning`, { token: reader.token })
    expect(unitTitles(later)).toEqual(['Unit 1', 'After the pause'])
    expect(app.last()).toBe('replica/current')
  })

  test('a replica behind by more than the bound serves nobody until it catches up', async () => {
    const app = await appWith({ maxLagMs: 300 })
    const { teacher, reader, courseId } = await world(app)
    await warm(app, reader.token)
    await replica.admin`select pg_wal_replay_pause()`
    try {
      expect((await app.api.post(`/courses/${courseId}/learning/units`, { token: teacher.token, json: { title: 'Lagged', description: 'd' } })).status).toBe(201)
      // The lag grows with time while replay is paused; polled, not slept.
      await eventually(
        async () => {
          const res = await app.api.get(`/courses/${courseId}/learning`, { token: reader.token })
          expect(res.status).toBe(200)
          expect(unitTitles(res)).toEqual(['Unit 1', 'Lagged'])
          expect(app.last()).toBe('primary/lagging')
        },
        { timeoutMs: 15_000 },
      )
      expect(app.read.status().state).toBe('lagging')
      expect(app.read.status().lagMs!).toBeGreaterThan(300)
      expect(await registry.getSingleMetricAsString('db_replica_state')).toContain('db_replica_state{state="lagging"} 1')
    } finally {
      await replica.admin`select pg_wal_replay_resume()`
    }
    await replica.caughtUp()
    await eventually(async () => {
      const res = await app.api.get(`/courses/${courseId}/learning`, { token: reader.token })
      expect(unitTitles(res)).toEqual(['Unit 1', 'Lagged'])
      expect(app.last()).toBe('replica/current')
    })
    expect(app.read.status().state).toBe('current')
  })

  test('a stopped replica: the routes answer from the primary, and use the replica again once it is back', async () => {
    const app = await appWith({ maxLagMs: 60_000, retryMs: 200 })
    const { reader, courseId } = await world(app)
    await warm(app, reader.token)
    await replica.stop()
    try {
      for (let i = 0; i < 3; i++) {
        const res = await app.api.get(`/courses/${courseId}/learning`, { token: reader.token })
        expect(res.status).toBe(200)
        expect(unitTitles(res)).toEqual(['Unit 1'])
        expect(app.last()).toMatch(/^primary\/(failed|down)$/)
      }
      expect(app.read.status().state).toBe('down')
      const list = await app.api.get('/courses', { token: reader.token })
      expect(list.status).toBe(200)
      expect(list.data.map((c: { id: string }) => c.id)).toContain(courseId)
    } finally {
      await replica.start()
    }
    await replica.caughtUp()
    await eventually(
      async () => {
        const res = await app.api.get(`/courses/${courseId}/learning`, { token: reader.token })
        expect(res.status).toBe(200)
        expect(app.last()).toBe('replica/current')
      },
      { timeoutMs: 15_000 },
    )
  })

  test('server.ts wires DATABASE_REPLICA_URL: reads on the replica in the metrics, a stopped replica logged once and answered from the primary', async () => {
    const url = process.env.DATABASE_URL!
    const metricsPort = await freePort()
    const svc = await startService({
      env: { DATABASE_URL: url, DATABASE_REPLICA_URL: replica.through(url), JWT_SECRET: 'replica-process-secret-0123456789abcdef', METRICS_PORT: String(metricsPort), LOG_LEVEL: 'info', REMINDER_SCAN_CRON: 'off' },
    })
    try {
      const student = await signUp(svc.api, 'STUDENT')
      await eventually(async () => {
        expect((await svc.api.get('/courses', { token: student.token })).status).toBe(200)
        const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
        expect(metrics).toMatch(/db_replica_reads_total\{target="replica",reason="current"\} [1-9]/)
        expect(metrics).toContain('db_replica_state{state="current"} 1')
      })
      await replica.stop()
      try {
        for (let i = 0; i < 3; i++) expect((await svc.api.get('/courses', { token: student.token })).status).toBe(200)
        const logged = svc.output().split('\n').filter((l) => l.includes('read replica unreachable'))
        expect(logged).toHaveLength(1)
      } finally {
        await replica.start()
      }
    } finally {
      await svc.stop()
    }
  }, 60_000)
})
