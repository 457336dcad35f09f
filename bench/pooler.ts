/**
 * Issue 55's pooler row: two service processes (bench/serve.ts service, pools of 10) under
 * 100 concurrent clients each (two wrk processes at once, `GET /notifications` and `GET /courses`
 * of students in a 30-student course), with DATABASE_URL straight to PostgreSQL and then through
 * a transaction-mode PgBouncer (Debian's, test/support/pgbouncer.ts; PROBE_SERVER_POOL server
 * connections, default 10, for both processes). Printed: req/s of both together, the ratio
 * pooled / direct (and of a third mode, straight to PostgreSQL with prepared statements off as
 * when pooled: what the pooler itself costs), and the most server connections the database had open during the load
 * (pg_stat_activity, sampled every 200 ms).
 *
 *   bun bench/pooler.ts    (PROBE_DB, PROBE_RUNS default 2, PROBE_SECONDS default 6, PROBE_SERVER_POOL)
 */
import { join } from 'node:path'
import postgres from 'postgres'
import { migrate } from '../src/db/migrate.ts'
import type { Sql } from '../src/db/connect.ts'
import { startPgBouncer } from '../test/support/pgbouncer.ts'
import { wrk, type WrkResult } from './wrk.ts'

const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = process.env.PROBE_DB ?? 'cls_probe_pooler'
if (!/^[a-z0-9_]+$/.test(name)) throw new Error('PROBE_DB: lower-case letters, digits and _ only')
const runs = Number(process.env.PROBE_RUNS ?? 2)
const seconds = Number(process.env.PROBE_SECONDS ?? 6)
const serverPool = Number(process.env.PROBE_SERVER_POOL ?? 10)
const JWT = 'bench-secret-bench-secret-bench-secret-0123456789'

const a = postgres(admin, { max: 1, onnotice: () => {} })
await a.unsafe(`drop database if exists ${name} with (force)`)
await a.unsafe(`create database ${name}`)
await a.end()
const url = new URL(admin)
url.pathname = `/${name}`
const DATABASE_URL = url.toString()
const sql = postgres(DATABASE_URL, { max: 2, onnotice: () => {} }) as unknown as Sql
await migrate(sql)
const pg = await startPgBouncer({ serverPoolSize: serverPool })

async function start(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'serve.ts'), 'service', '0'], {
    env: { BUN_JSC_forceRAMSize: '536870912', ...process.env, BENCH_JWT_SECRET: JWT, ...env },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const reader = proc.stdout.getReader()
  let text = ''
  while (!/LISTENING (\d+)/.test(text)) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`service exited: ${text}`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return { base: `http://127.0.0.1:${/LISTENING (\d+)/.exec(text)![1]}/api/v1`, stop: async () => (proc.kill('SIGTERM'), await proc.exited) }
}

const post = async (base: string, path: string, body: unknown, token?: string) => {
  const r = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) })
  return (await r.json()) as { data: any }
}
async function account(base: string, username: string, role: 'STUDENT' | 'TEACHER') {
  await post(base, '/auth/register', { username, email: `${username}@example.test`, password: 'probe-password-1', role })
  return (await post(base, '/auth/login', { identifier: username, password: 'probe-password-1' })).data.accessToken as string
}

/** The most connections to the database seen while `f` runs (this script's own excluded). */
async function withConnections<T>(f: () => Promise<T>) {
  const watch = postgres(admin, { max: 1, onnotice: () => {} })
  let peak = 0
  let on = true
  const sampler = (async () => {
    while (on) {
      const [r] = await watch<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where datname = ${name} and application_name <> 'postgres.js'`
      peak = Math.max(peak, r!.n)
      await Bun.sleep(200)
    }
  })()
  try {
    return { result: await f(), peak }
  } finally {
    on = false
    await sampler
    await watch.end()
  }
}

const modes = {
  direct: { DATABASE_URL },
  // Straight to PostgreSQL but with prepared statements off, as pooled: what the pooler itself costs.
  unprepared: { DATABASE_URL, BENCH_POOLED: '1' },
  pooled: { DATABASE_URL: pg.through(DATABASE_URL), BENCH_POOLED: '1', BENCH_DIRECT_URL: DATABASE_URL },
}
type Mode = keyof typeof modes
const results = Object.fromEntries(Object.keys(modes).map((m) => [m, { rps: [] as number[], peak: 0, errors: 0 }])) as Record<Mode, { rps: number[]; peak: number; errors: number }>
let tokens: string[] = []
try {
  for (let i = 0; i < runs; i++) {
    for (const mode of (i % 2 ? ['pooled', 'unprepared', 'direct'] : ['direct', 'unprepared', 'pooled']) as Mode[]) {
      const [s1, s2] = [await start(modes[mode]), await start(modes[mode])]
      try {
        if (!tokens.length) {
          const teacher = await account(s1.base, 'pool_teacher', 'TEACHER')
          const course = (await post(s1.base, '/courses', { title: 'Pooled', description: '' }, teacher)).data
          for (let k = 0; k < 30; k++) {
            const t = await account(k % 2 ? s1.base : s2.base, `pool_s${k}`, 'STUDENT')
            await post(s1.base, '/courses/join', { inviteCode: course.inviteCode }, t)
            tokens.push(t)
          }
          await post(s1.base, `/courses/${course.id}/announcements`, { title: 'Welcome', content: '<p>Hello</p>' }, teacher)
        }
        const load = (base: string, path: string, token: string) => wrk({ url: base + path, token, connections: 100, seconds })
        await Promise.all([load(s1.base, '/notifications', tokens[0]!), load(s2.base, '/courses', tokens[1]!)].map((p) => p.catch(() => null)))
        const { result, peak } = await withConnections(() => Promise.all([load(s1.base, '/notifications', tokens[2]!), load(s2.base, '/courses', tokens[3]!)]))
        const rps = result.reduce((n, r: WrkResult) => n + r.rps, 0)
        results[mode].rps.push(rps)
        results[mode].peak = Math.max(results[mode].peak, peak)
        results[mode].errors += result.reduce((n, r) => n + r.errors, 0)
        console.log(`  ${mode} run ${i + 1}: ${rps.toFixed(0)} req/s (2 instances x 100 clients), at most ${peak} server connections`)
      } finally {
        await s1.stop()
        await s2.stop()
      }
    }
  }
  const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length
  const [d, p, u] = [mean(results.direct.rps), mean(results.pooled.rps), mean(results.unprepared.rps)]
  console.log(`prepared statements off, straight to PostgreSQL: ${u.toFixed(0)} req/s (${(u / d).toFixed(2)} of direct), up to ${results.unprepared.peak} server connections`)
  console.log(
    `2 instances x 100 clients: direct ${d.toFixed(0)} req/s with up to ${results.direct.peak} server connections; ` +
      `through PgBouncer (transaction mode, pool ${serverPool}) ${p.toFixed(0)} req/s with up to ${results.pooled.peak}; ratio ${(p / d).toFixed(2)}; ` +
      `errors ${results.direct.errors} / ${results.pooled.errors}`,
  )
} finally {
  await sql.end()
  await pg.stop()
  const d = postgres(admin, { max: 1, onnotice: () => {} })
  await d.unsafe(`drop database if exists ${name} with (force)`)
  await d.end()
}
