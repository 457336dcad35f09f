// A/B in one process (bench/probe-courses.ts's reads): buildApp from two source trees (A_ROOT, B_ROOT:
// e.g. `git archive main | tar -x -C /tmp/old`, node_modules linked), the same requests through
// app.handle, alternating; main-thread CPU and each app's backend CPU per request. DATABASE_URL = a mooc
// bench database. ONLY=me,courses,course,members; N per round, ROUNDS.
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
const url = process.env.DATABASE_URL!
const N = Number(process.env.N ?? 2000)
const admin = postgres(url, { onnotice: () => {}, max: 1 })
const { anchor } = (await admin<{ anchor: Date }[]>`select anchor from bench_seed order by seeded_at desc limit 1`)[0]!
const offset = anchor.getTime() - Date.now()
const [mooc] = await admin<{ id: string }[]>`select id from courses where title = 'MOOC'`
const ticks = (p: string) => { const f = readFileSync(p, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10 }
async function make(root: string) {
  const { buildApp } = await import(`${root}/src/app.ts`)
  const { loadConfig } = await import(`${root}/src/config.ts`)
  const { connectExternal } = await import(`${root}/src/db/connect.ts`)
  const { createLogger } = await import(`${root}/src/lib/log.ts`)
  const { LocalDiskStorage } = await import(`${root}/src/storage/local-disk.ts`)
  const db = await connectExternal(url, 1)
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: join(tmpdir(), 'cls-bench-data') }), jwtSecret: 'bench-secret-bench-secret-bench-secret-0123456789', tokenTtlSeconds: 90 * 24 * 3600, validateResponses: false }
  const app = buildApp({ sql: db.sql, db: db.capability, config, clock: { now: () => new Date(Date.now() + offset) }, log: createLogger('silent'), storage: new LocalDiskStorage(join(tmpdir(), 'cls-bench-files')) })
  const login = async (identifier: string) => { const b = (await (await app.handle(new Request('http://localhost/api/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identifier, password: 'bench-password-1' }) }))).json()) as any; return b.data.accessToken as string }
  const pid = (await db.sql`select pg_backend_pid() as pid`)[0].pid as number
  return { app, pid, single: await login('bench_single'), teacher: await login('bench_tmooc') }
}
const apps = { A: await make(process.env.A_ROOT!), B: await make(process.env.B_ROOT!) }
const cases = (x: typeof apps.A): [string, string, string][] => [
  ['me', '/auth/me', x.single], ['courses', '/courses', x.single], ['course', `/courses/${mooc!.id}`, x.teacher], ['members', `/courses/${mooc!.id}/members?pageSize=50`, x.teacher],
].filter(([k]) => !process.env.ONLY || process.env.ONLY.split(',').includes(k!)) as [string, string, string][]
const go = async (x: typeof apps.A, path: string, token: string) => (await x.app.handle(new Request(`http://localhost/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } }))).text()
for (const x of Object.values(apps)) for (const [, p, t] of cases(x)) for (let i = 0; i < 100; i++) await go(x, p, t)
const out = new Map<string, { app: number[]; db: number[] }>()
for (let r = 0; r < Number(process.env.ROUNDS ?? 4); r++) for (const name of (r % 2 ? ['B', 'A'] : ['A', 'B']) as ('A' | 'B')[]) for (const [k, p, t] of cases(apps[name])) {
  const x = apps[name]
  const a0 = ticks(`/proc/self/task/${process.pid}/stat`), d0 = ticks(`/proc/${x.pid}/stat`)
  for (let i = 0; i < N; i++) await go(x, p, t)
  const o = out.get(`${k} ${name}`) ?? { app: [], db: [] }
  o.app.push(((ticks(`/proc/self/task/${process.pid}/stat`) - a0) * 1000) / N)
  o.db.push(((ticks(`/proc/${x.pid}/stat`) - d0) * 1000) / N)
  out.set(`${k} ${name}`, o)
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!
for (const [k, o] of [...out].sort()) console.log(`${k.padEnd(10)} app ${o.app.map((x) => x.toFixed(0)).join('/').padEnd(24)} med ${med(o.app).toFixed(0).padStart(4)}   db ${o.db.map((x) => x.toFixed(0)).join('/').padEnd(24)} med ${med(o.db).toFixed(0).padStart(4)}`)
process.exit(0)
