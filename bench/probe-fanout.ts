// Homework creation in the biggest course over HTTP (in-process app, as bench/run.ts builds it):
// N sequential requests, then N at PROBE_CONCURRENCY; PROBE_OPEN=1 creates already-open homework
// and times the dispatch of its START events. Not part of bun test.
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
import { dispatch } from '../src/modules/reminders/dispatch.ts'
import { LocalDiskStorage } from '../src/storage/local-disk.ts'
import { BENCH_PASSWORD, restore } from './seed.ts'
import { withServices } from '../src/services/index.ts'

const url = process.env.DATABASE_URL!
const N = Number(process.env.PROBE_N ?? 12)
const CONC = Number(process.env.PROBE_CONCURRENCY ?? 4)
const OPEN = process.env.PROBE_OPEN === '1'
const admin = postgres(url, { onnotice: () => {}, max: 2 }) as unknown as Sql
const anchor = (await admin<{ anchor: Date }[]>`select anchor from bench_seed order by seeded_at desc limit 1`)[0]!.anchor
await restore(admin, anchor, { keepSessions: true })
const offset = anchor.getTime() - Date.now()
const clock: Clock = { now: () => new Date(Date.now() + offset) }
const db = await connectExternal(url, 10)
const config = {
  ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: join(tmpdir(), 'cls-bench-data') }),
  jwtSecret: 'bench-secret-bench-secret-bench-secret-0123456789',
  tokenTtlSeconds: 90 * 24 * 3600,
  dbPoolMax: 10,
  validateResponses: false,
} as Deps['config']
const deps: Deps = withServices({ sql: db.sql, db: db.capability, config, emailEnabled: Boolean(config.smtpUrl), clock, log: createLogger('silent'), storage: new LocalDiskStorage(join(tmpdir(), 'cls-bench-files')) })
const app = buildApp(deps).listen({ hostname: '127.0.0.1', port: 0 })
const base = `http://127.0.0.1:${app.server!.port}/api/v1`
const [big] = await admin<{ id: string; teacher: string }[]>`
  select c.id, u.username as teacher from courses c join users u on u.id = c.teacher_id join course_members m on m.course_id = c.id
   group by c.id, u.username order by count(*) desc, c.id limit 1`
const points = (await admin<{ id: string }[]>`select id from knowledge_points where course_id = ${big!.id} order by id`).map((r) => r.id)
const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identifier: big!.teacher, password: BENCH_PASSWORD }) })
const token = ((await login.json()) as any).data.accessToken as string

let i = 0
async function create() {
  const n = i++
  const now = clock.now()
  const body = {
    title: `Probe homework ${n}`, taskKind: 'HOMEWORK', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>Read.</p>',
    startAt: new Date(OPEN ? now.getTime() - 3_600_000 : anchor.getTime() + 2 * 86_400_000).toISOString(),
    dueAt: new Date(anchor.getTime() + 9 * 86_400_000).toISOString(),
  }
  const t = performance.now()
  const res = await fetch(`${base}/courses/${big!.id}/learning/points/${points[n % points.length]}/tasks`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  })
  const ms = performance.now() - t
  if (res.status !== 201 && res.status !== 200) throw new Error(`${res.status} ${await res.text()}`)
  await res.arrayBuffer()
  return ms
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!
const report = (label: string, xs: number[]) => console.log(`${label}: n ${xs.length}, p50 ${pct(xs, 50).toFixed(0)} ms, p95 ${pct(xs, 95).toFixed(0)} ms, min ${Math.min(...xs).toFixed(0)} ms`)

/** CPU ticks (10 ms) of every backend connected to this database, except the admin pool's. */
async function dbTicks() {
  const pids = await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`
  let t = 0
  for (const { pid } of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      t += Number(f[11]) + Number(f[12])
    } catch {}
  }
  return t
}
await create() // warm
for (let k = 0; k < 3; k++) await create()
const seq: number[] = []
const t0 = await dbTicks()
const c0 = process.cpuUsage()
for (let k = 0; k < N; k++) seq.push(await create())
const dbMs = ((await dbTicks()) - t0) * 10
const c1 = process.cpuUsage(c0)
report('sequential', seq)
console.log(`  CPU per homework: PostgreSQL ${(dbMs / N).toFixed(0)} ms, Bun ${((c1.user + c1.system) / 1000 / N).toFixed(0)} ms`)
const conc: number[] = []
const t1 = await dbTicks()
const c2 = process.cpuUsage()
await Promise.all(Array.from({ length: CONC }, async () => { while (conc.length < N * 2) conc.push(await create()) }))
const dbMs2 = ((await dbTicks()) - t1) * 10
const c3 = process.cpuUsage(c2)
report(`${CONC} concurrent`, conc)
console.log(`  CPU per homework: PostgreSQL ${(dbMs2 / conc.length).toFixed(0)} ms, Bun ${((c3.user + c3.system) / 1000 / conc.length).toFixed(0)} ms`)
const [ev] = await admin<{ events: number; start_due: number }[]>`
  select count(*)::int as events, (count(*) filter (where trigger_type = 'START' and scheduled_at <= ${clock.now()} and sent_at is null))::int as start_due
    from homework_reminder_events where created_at > ${anchor}`
console.log(`events written ${ev!.events}, START due now ${ev!.start_due}`)
if (OPEN) {
  const t = performance.now()
  const r = await dispatch(db.sql, clock.now())
  const s = (performance.now() - t) / 1000
  console.log(`dispatch of the START events: ${r.sent} sent, ${r.canceled} canceled in ${s.toFixed(2)} s (${((r.sent + r.canceled) / s).toFixed(0)} events/s, ${((s * 1000) / (i)).toFixed(0)} ms per homework)`)
}
await restore(admin, anchor, { keepSessions: true })
app.stop()
await db.close()
await admin.end()
