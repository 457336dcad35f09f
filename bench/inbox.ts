/**
 * Issue 55's inbox row: GET /notifications of the service against a bare Bun.serve + postgres.js
 * server (bench/inbox-bare.ts) on the same data in the same run (target ≥ 0.85 of bare), and
 * a heavy inbox (10,000 notifications) against a light one (60) on the service.
 *
 *   bun bench/inbox.ts
 *
 * Creates PROBE_DB (default cls_probe_inbox; dropped first) on the server of PG_ADMIN_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres), migrates it, starts the service
 * (bench/serve.ts service) and the bare server, each a process of its own with a pool of 10,
 * and drives them with wrk (-t2 -c PROBE_CONNECTIONS, default 64) in a third, alternating
 * (service, bare, bare, service …) PROBE_RUNS times (default 2) for PROBE_SECONDS (default 6);
 * the ratio is of the means. Both answers are checked to be the same JSON first.
 * PROBE_PROFILE=1 starts both under `bun --cpu-prof-md` (profiles in PROBE_PROFILE_DIR, default
 * /tmp/cls-inbox-prof). PROBE_BARE_AUTH=0 measures a bare server without the session check.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { migrate } from '../src/db/migrate.ts'
import type { Sql } from '../src/db/connect.ts'
const BENCH_JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789'
import { wrk, type WrkResult } from './wrk.ts'

const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = process.env.PROBE_DB ?? 'cls_probe_inbox'
if (!/^[a-z0-9_]+$/.test(name)) throw new Error('PROBE_DB: lower-case letters, digits and _ only')
const runs = Number(process.env.PROBE_RUNS ?? 2)
const seconds = Number(process.env.PROBE_SECONDS ?? 6)
const connections = Number(process.env.PROBE_CONNECTIONS ?? 64)
const profile = process.env.PROBE_PROFILE === '1'
const profileDir = process.env.PROBE_PROFILE_DIR ?? '/tmp/cls-inbox-prof'

const a = postgres(admin, { max: 1, onnotice: () => {} })
await a.unsafe(`drop database if exists ${name} with (force)`)
await a.unsafe(`create database ${name}`)
await a.end()
const url = new URL(admin)
url.pathname = `/${name}`
const DATABASE_URL = url.toString()
const sql = postgres(DATABASE_URL, { max: 2, onnotice: () => {} }) as unknown as Sql
await migrate(sql)

interface Proc {
  base: string
  /** CPU time (user + system) the process has used so far, in ms. */
  cpu(): number
  stop(): Promise<void>
}
const TICK_MS = 10 // USER_HZ = 100 on Linux
async function start(label: string, script: string[], env: Record<string, string> = {}): Promise<Proc> {
  const prof = profile ? ['--cpu-prof-md', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${label}.md`] : []
  const proc = Bun.spawn([process.execPath, ...prof, ...script], {
    env: { BUN_JSC_forceRAMSize: '536870912', ...process.env, DATABASE_URL, BENCH_JWT_SECRET, ...env },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const reader = proc.stdout.getReader()
  let text = ''
  while (!/LISTENING (\d+)/.test(text)) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${label} exited: ${text}`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return {
    base: `http://127.0.0.1:${/LISTENING (\d+)/.exec(text)![1]}/api/v1`,
    cpu: () => {
      const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return (Number(fields[11]) + Number(fields[12])) * TICK_MS
    },
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

const service = await start('service', [join(import.meta.dir, 'serve.ts'), 'service', '0'], process.env.PROBE_SERVICE_ENV ? JSON.parse(process.env.PROBE_SERVICE_ENV) : {})
const bare = await start('bare', [join(import.meta.dir, 'inbox-bare.ts'), '0'], { BENCH_BARE_AUTH: process.env.PROBE_BARE_AUTH ?? '1', ...(process.env.PROBE_BARE_ENV ? JSON.parse(process.env.PROBE_BARE_ENV) : {}) })
const post = async (path: string, body: unknown) => {
  const r = await fetch(service.base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return (await r.json()) as { data: any }
}
async function account(username: string) {
  await post('/auth/register', { username, email: `${username}@example.test`, password: 'probe-password-1', role: 'STUDENT' })
  return (await post('/auth/login', { identifier: username, password: 'probe-password-1' })).data.accessToken as string
}

/** `n` notifications of the three kinds, as the dispatch writes them (params rendered at read time). */
async function fill(username: string, n: number) {
  await sql`
    insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at, read_at, params)
    select gen_uuid_v7(), u.id, k.kind, '', '', '/messages', now() - g * interval '1 hour',
           case when g % 5 = 0 then null else now() end,
           case k.kind
             when 'HOMEWORK_REMINDER' then jsonb_build_object('kind', k.kind, 'courseId', gen_uuid_v7(), 'courseTitle', 'Course ' || (g % 7),
                 'taskId', gen_uuid_v7(), 'taskTitle', 'Homework ' || g, 'startAt', '2026-01-01T00:00:00.000Z', 'dueAt', '2026-01-08T00:00:00.000Z',
                 'trigger', (array['START', 'BEFORE_DUE_24H', 'DUE'])[1 + g % 3])
             when 'ANNOUNCEMENT' then jsonb_build_object('kind', k.kind, 'courseId', gen_uuid_v7(), 'courseTitle', 'Course ' || (g % 7),
                 'announcementId', gen_uuid_v7(), 'announcementTitle', 'Week ' || g || ' starts', 'excerpt', 'Read chapter ' || g || ' before the live session.')
             else jsonb_build_object('kind', k.kind, 'subject', 'TASK', 'courseId', gen_uuid_v7(), 'courseTitle', 'Course ' || (g % 7), 'title', 'Homework ' || g, 'score', 80 + g % 20)
           end
      from users u, generate_series(1, ${n}::int) g
      cross join lateral (select case when g % 10 < 6 then 'HOMEWORK_REMINDER' when g % 10 < 9 then 'ANNOUNCEMENT' else 'SUBMISSION_GRADED' end as kind) k
     where u.username = ${username}`
}

const mean = (xs: WrkResult[]) => ({ rps: xs.reduce((s, r) => s + r.rps, 0) / xs.length, p95: xs.reduce((s, r) => s + r.p95, 0) / xs.length, errors: xs.reduce((s, r) => s + r.errors, 0) })
const fmt = (x: { rps: number; p95: number }) => `${x.rps.toFixed(0)} req/s (p95 ${x.p95.toFixed(1)} ms)`

try {
  const light = await account('inbox_light')
  const heavy = await account('inbox_heavy')
  await fill('inbox_light', 60)
  await fill('inbox_heavy', 10_000)
  await sql`vacuum analyze`
  const lightId = (await sql<{ id: string }[]>`select id from users where username = 'inbox_light'`)[0]!.id
  const bareUrl = `${bare.base}/notifications${process.env.PROBE_BARE_AUTH === '0' ? `?u=${lightId}` : ''}`

  const body = async (u: string, token: string) => (await fetch(u, { headers: { authorization: `Bearer ${token}` } })).text()
  const [s, b] = [await body(`${service.base}/notifications`, light), await body(bareUrl, light)]
  const same = s === b
  if (!same) console.log(`JSON differs:\nservice ${s.slice(0, 300)}\nbare    ${b.slice(0, 300)}`)

  const cpuPerRequest = new Map<Proc, number[]>([[service, []], [bare, []]])
  const go = async (u: string, token: string) => {
    const p = u.startsWith(service.base) ? service : bare
    const before = p.cpu()
    const r = await wrk({ url: u, token, connections, seconds })
    cpuPerRequest.get(p)!.push((p.cpu() - before) / r.requests)
    return r
  }
  await go(`${service.base}/notifications`, light)
  await go(bareUrl, light)
  const sv: WrkResult[] = []
  const bv: WrkResult[] = []
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? ['s', 'b'] : ['b', 's']
    for (const o of order) {
      const r = o === 's' ? await go(`${service.base}/notifications`, light) : await go(bareUrl, light)
      ;(o === 's' ? sv : bv).push(r)
      console.log(`  ${o === 's' ? 'service' : 'bare   '} run ${i + 1}: ${fmt(r)}${r.errors ? `, ${r.errors} errors` : ''}`)
    }
  }
  const [ms, mb] = [mean(sv), mean(bv)]
  const cpuOf = (p: Proc) => { const xs = cpuPerRequest.get(p)!.slice(1); return xs.reduce((a, b) => a + b, 0) / xs.length }
  console.log(`CPU per request (the server process, user + system): service ${cpuOf(service).toFixed(3)} ms, bare ${cpuOf(bare).toFixed(3)} ms`)
  const ratio = ms.rps / mb.rps
  console.log(`GET /notifications (60 notifications, wrk -c${connections}): service ${fmt(ms)}, bare ${fmt(mb)}: ratio ${ratio.toFixed(2)} (target ≥ 0.85): ${ratio >= 0.85 && same && !ms.errors && !mb.errors ? 'PASS' : 'FAIL'}${same ? ', same JSON' : ', JSON differs'}`)

  const requests = (xs: WrkResult[]) => xs.reduce((n, r) => n + r.requests, 0)
  console.log(`requests (warm-up runs excluded): service ${requests(sv)}, bare ${requests(bv)}`)
  const hv: WrkResult[] = []
  const lv: WrkResult[] = []
  for (let i = 0; i < (process.env.PROBE_HISTORY === '0' ? 0 : runs); i++) {
    hv.push(await go(`${service.base}/notifications`, heavy))
    lv.push(await go(`${service.base}/notifications`, light))
  }
  const [mh, ml] = [mean(hv), mean(lv)]
  const h = mh.rps / ml.rps
  if (hv.length) console.log(`history: 10,000 notifications ${fmt(mh)} against 60: ${fmt(ml)}: ${h.toFixed(2)} (target ≥ 0.80): ${h >= 0.8 ? 'PASS' : 'FAIL'}`)
} finally {
  await service.stop()
  await bare.stop()
  await sql.end()
  const d = postgres(admin, { max: 1, onnotice: () => {} })
  await d.unsafe(`drop database if exists ${name} with (force)`)
  await d.end()
}
