/**
 * One HTTP server for the side-by-side load test (bench/wrk.ts), in its own process:
 *
 *   bun bench/serve.ts service [port]   the service: buildApp with the deps of src/server.ts
 *   bun bench/serve.ts bare [port]      the bare baseline: Bun.serve + postgres.js, no framework
 *
 * The bare baseline answers the hot reads only. It runs the same statements as the service by
 * calling the service's own query and service functions (authentication included: the same
 * JWT verification and session lookup, the same course-access check), and writes the same
 * JSON envelope, so the two cannot drift apart; what it leaves out is the framework (routing,
 * hooks, validation of the query and the response, plumbing headers).
 *
 * Environment: DATABASE_URL, BENCH_CLOCK_OFFSET_MS (the app's clock = now + offset: the
 * dataset's anchor), BENCH_POOL (default 10), BENCH_JWT_SECRET, BENCH_POOLED and
 * BENCH_DIRECT_URL (through a pooler: bench/pooler.ts).
 */
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { connectExternal } from '../src/db/connect.ts'
import type { Deps } from '../src/deps.ts'
import { sessionUser, tokenSigner } from '../src/http/auth.ts'
import { ok } from '../src/http/envelope.ts'
import { AppError, unauthenticated } from '../src/http/errors.ts'
import { courseAccess } from '../src/http/guards.ts'
import type { Clock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/log.ts'
import * as courses from '../src/modules/courses/service.ts'
import { OverviewCache } from '../src/lib/overview-cache.ts'
import * as grades from '../src/modules/grades/service.ts'
import { homeworkCentre } from '../src/modules/homework/service.ts'
import * as learning from '../src/modules/learning/structure-service.ts'
import * as submissions from '../src/modules/learning/submission-service.ts'
import { InboxQuery } from '../src/modules/notifications/model.ts'
import * as notifications from '../src/modules/notifications/service.ts'
import { LocalDiskStorage } from '../src/storage/local-disk.ts'
import { withServices } from '../src/services/index.ts'

export const BENCH_JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789'

const [mode, portArg] = process.argv.slice(2)
if (mode !== 'service' && mode !== 'bare') throw new Error('usage: bun bench/serve.ts service|bare <port>')
const port = Number(portArg ?? 0)
const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cls_bench'
const offset = Number(process.env.BENCH_CLOCK_OFFSET_MS ?? 0)
const poolMax = Number(process.env.BENCH_POOL ?? 10)
const clock: Clock = { now: () => new Date(Date.now() + offset) }
// BENCH_POOLED=1: DATABASE_URL is a transaction-mode pooler (bench/pooler.ts), BENCH_DIRECT_URL PostgreSQL itself.
const db = await connectExternal(url, poolMax, { pooled: process.env.BENCH_POOLED === '1', directUrl: process.env.BENCH_DIRECT_URL || undefined })
const sql = db.sql
const secret = process.env.BENCH_JWT_SECRET ?? BENCH_JWT_SECRET

if (mode === 'service') {
  const config = {
    ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: join(tmpdir(), 'cls-bench-data') }),
    jwtSecret: secret,
    tokenTtlSeconds: 90 * 24 * 3600,
    dbPoolMax: poolMax,
    // As in production (NODE_ENV=production); BENCH_VALIDATE_RESPONSES=1 measures with the check.
    validateResponses: process.env.BENCH_VALIDATE_RESPONSES === '1',
  } as Deps['config']
  const deps: Deps = withServices({ emailEnabled: Boolean(config.smtpUrl), sql, db: db.capability, config, clock, log: createLogger('silent'), storage: new LocalDiskStorage(join(tmpdir(), 'cls-bench-files')) })
  const app = buildApp(deps).listen({ hostname: '127.0.0.1', port })
  console.log(`LISTENING ${app.server?.port}`)
} else {
  const tokens = tokenSigner(secret)
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
  const inboxDefaults = InboxQuery.parse({})
  const gradebookCache = new OverviewCache(loadConfig({}).gradebookCacheBytes)

  async function authenticate(req: Request) {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.get('authorization') ?? '')
    const payload = m ? await tokens.verify(m[1]!, { currentDate: clock.now() }) : false
    const sid = payload && typeof payload.sid === 'string' && UUID.test(payload.sid) ? payload.sid : null
    const who = sid ? await sessionUser(sql, sid, clock.now()) : null
    if (!who) throw unauthenticated()
    return who.user
  }
  const json = (data: unknown) => new Response(JSON.stringify(ok(data)), { headers: { 'content-type': 'application/json' } })
  const paging = (u: URL) => ({
    page: u.searchParams.has('page') ? Number(u.searchParams.get('page')) : undefined,
    pageSize: u.searchParams.has('pageSize') ? Number(u.searchParams.get('pageSize')) : undefined,
  })

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port,
    async fetch(req) {
      try {
        const u = new URL(req.url)
        const path = u.pathname.replace(/^\/api\/v1/, '')
        const user = await authenticate(req)
        if (path === '/courses') return json(await courses.listMyCourses(sql, user))
        if (path === '/homeworks/mine') return json(await homeworkCentre(sql, user.id, clock.now(), { courseId: null }))
        if (path === '/notifications') return json(await notifications.inbox(sql, user.id, inboxDefaults, undefined, clock.now()))
        const c = /^\/courses\/([^/]+)\/(learning|learning\/overview|grades\/overview)$/.exec(path)
        if (c) {
          const [, courseId, what] = c
          if (what === 'learning') return json(await learning.learningTree(sql, await courseAccess(sql, courseId!, user, 'member')))
          if (what === 'learning/overview') {
            const course = await courseAccess(sql, courseId!, user, 'member')
            return json(await submissions.overview(sql, course, user, paging(u)))
          }
          const course = await courseAccess(sql, courseId!, user, 'teacher')
          // The service's own body and cache (sql/030), as the route uses them.
          const { body } = await grades.overviewBody(sql, course.id, paging(u), new Date(), gradebookCache)
          return new Response(body, { headers: { 'content-type': 'application/json;charset=utf-8' } })
        }
        return new Response('not found', { status: 404 })
      } catch (e) {
        const status = e instanceof AppError ? e.status : 500
        return new Response(JSON.stringify({ code: 1, message: String(e), data: null }), { status })
      }
    },
  })
  console.log(`LISTENING ${server.port}`)
}
// A clean exit on SIGINT/SIGTERM, so `bun --cpu-prof-md bench/serve.ts …` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
