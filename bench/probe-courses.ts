/**
 * The mooc bench's read rows side by side (issue 26): GET /auth/me and GET /courses for the
 * seminar student (bench/mooc.ts `courses` row), GET /courses/{id} and its members page for the
 * MOOC's teacher (the `members` rows), measured in alternation for PROBE_RUNS rounds in one
 * process, the same way bench/mooc.ts does (bench/load.ts, 8 clients, in-process app, response
 * validation off). Per endpoint: req/s, and CPU per request of the app's thread (this process's
 * main thread, /proc/self/task/<pid>/stat) and of the database backends (/proc/<backend>/stat).
 *
 *   BENCH_SHAPE=mooc DATABASE_URL=postgres://…/cls_x_mooc PROBE_RUNS=5 PROBE_SECONDS=3 bun bench/probe-courses.ts
 *   PROBE_BODIES=1 … prints each endpoint's JSON body (compare before/after a change).
 */
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { connectExternal, type Sql } from '../src/db/connect.ts'
import type { Deps } from '../src/deps.ts'
import type { Clock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/log.ts'
import { LocalDiskStorage } from '../src/storage/local-disk.ts'
import { readRate, runLoad } from './load.ts'
import { benchLogin, ensureSeeded, moocFixtures } from './seed.ts'
import { withServices } from '../src/services/index.ts'

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cls_mooc_bench'
const RUNS = Number(process.env.PROBE_RUNS ?? 5)
const SECONDS = Number(process.env.PROBE_SECONDS ?? 3)
const ONLY = process.env.PROBE_ONLY ? new Set(process.env.PROBE_ONLY.split(',')) : null

// ensureSeeded reseeds a database of another shape: without BENCH_SHAPE=mooc it would replace the
// mooc dataset (90 s to seed again) with the quick one, which has no MOOC.
if (process.env.BENCH_SHAPE !== 'mooc') throw new Error('run with BENCH_SHAPE=mooc (this probe reads the mooc dataset)')
const admin = postgres(DATABASE_URL, { onnotice: () => {}, max: 2 }) as unknown as Sql
const { anchor } = await ensureSeeded(admin, { log: () => {} })
const offset = anchor.getTime() - Date.now()
const clock: Clock = { now: () => new Date(Date.now() + offset) }
const db = await connectExternal(DATABASE_URL, 10)
const config = {
  ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: join(tmpdir(), 'cls-bench-data') }),
  jwtSecret: 'bench-secret-bench-secret-bench-secret-0123456789',
  tokenTtlSeconds: 90 * 24 * 3600,
  dbPoolMax: 10,
  validateResponses: false,
} as Deps['config']
const deps: Deps = withServices({ emailEnabled: Boolean(config.smtpUrl), sql: db.sql, db: db.capability, config, clock, log: createLogger('silent'), storage: new LocalDiskStorage(join(tmpdir(), 'cls-bench-files')) })
const app = buildApp(deps).listen({ hostname: '127.0.0.1', port: 0 })
const base = `http://127.0.0.1:${app.server!.port}/api/v1`

// The fixtures of bench/mooc.ts: a student of the smallest seminar only.
const { mooc, seminar } = await moocFixtures(admin, anchor)

const login = (identifier: string) => benchLogin(base, identifier)
const single = await login('bench_single')
const learner = await login('bench_m000001')
const teacher = await login('bench_tmooc')

const endpoints: [string, string, string][] = [
  ['me', '/auth/me', single],
  ['courses', '/courses', single],
  ['courses-learner', '/courses', learner],
  ['course', `/courses/${mooc.id}`, teacher],
  ['members', `/courses/${mooc.id}/members?pageSize=50`, teacher],
]
const chosen = endpoints.filter(([k]) => !ONLY || ONLY.has(k))

if (process.env.PROBE_BODIES) {
  for (const [k, path, token] of chosen) {
    const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } })
    console.log(`${k} ${res.status} ${res.headers.get('content-type')}\n${await res.text()}`)
  }
}

const ticksOf = (path: string) => {
  try {
    const f = readFileSync(path, 'utf8').split(') ')[1]!.split(' ')
    return (Number(f[11]) + Number(f[12])) * 10
  } catch {
    return 0
  }
}
const backends = async () => (await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and application_name = 'course-learning-service'`).map((r) => r.pid)

// Warm-up: the pool opens its connections (their backends are counted from the first run on).
for (const [, path, token] of chosen) await runLoad({ requests: [{ method: 'GET', url: base + path, headers: { authorization: `Bearer ${token}` } }], concurrency: 8, durationMs: 300 })

const results = new Map<string, { rps: number[]; app: number[]; db: number[] }>()
for (let run = 0; run < RUNS; run++) {
  const line: string[] = []
  for (const [k, path, token] of run % 2 ? [...chosen].reverse() : chosen) {
    const pids = await backends()
    const a0 = ticksOf(`/proc/self/task/${process.pid}/stat`)
    const d0 = pids.reduce((n, p) => n + ticksOf(`/proc/${p}/stat`), 0)
    const s = await readRate(base + path, token, SECONDS)
    const appMs = ticksOf(`/proc/self/task/${process.pid}/stat`) - a0
    const dbMs = pids.reduce((n, p) => n + ticksOf(`/proc/${p}/stat`), 0) - d0
    // The load window excludes the warm-up; CPU covers both: per request over all of them.
    const total = Math.round(s.rps * (SECONDS + 0.5))
    const r = results.get(k) ?? { rps: [], app: [], db: [] }
    r.rps.push(s.rps)
    r.app.push((appMs * 1000) / total)
    r.db.push((dbMs * 1000) / total)
    results.set(k, r)
    line.push(`${k} ${s.rps.toFixed(0)}`)
  }
  const me = results.get('me')?.rps.at(-1)
  const list = results.get('courses')?.rps.at(-1)
  console.log(`run ${run + 1}: ${line.join(', ')}${me && list ? ` | courses/me ${(list / me).toFixed(2)}` : ''}`)
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!
console.log('\nmedian over runs:')
for (const [k, r] of results) {
  console.log(`  ${k.padEnd(16)} ${median(r.rps).toFixed(0).padStart(6)} req/s   app thread ${median(r.app).toFixed(0).padStart(4)} µs/req   db backends ${median(r.db).toFixed(0).padStart(4)} µs/req`)
}
const me = results.get('me')
const list = results.get('courses')
if (me && list) {
  const ratios = me.rps.map((m, i) => list.rps[i]! / m)
  console.log(`  courses/me per run: ${ratios.map((x) => x.toFixed(2)).join(' ')} (median ${median(ratios).toFixed(2)})`)
}
app.stop(true)
await db.close()
await admin.end({ timeout: 5 })
process.exit(0)
