/**
 * Sustained load at the rate wrk drives: `bun run bench/sustain.ts` (not part of `bun test`).
 *
 * Starts the service (`bun run src/server.ts`, NODE_ENV=production as in the image, jobs off) on
 * a fresh PostgreSQL database (cls_sustain_<time>, dropped afterwards), gives one student 50
 * notifications, then runs `wrk -t2 -c64` against GET /notifications for SUSTAIN_SECONDS
 * (default 600) in windows of one minute. Then, at the same moment, a fresh process of the same
 * tree is started and the old and the fresh one are measured alternately (10 s each, 3 times),
 * for /notifications and /status/health. The machine is shared: the side-by-side ratio, taken
 * within seconds, is the row that noise cannot fake; the minute series shows the trend.
 *
 * Rows (bench/SUSTAIN.md): last minute ≥ 90 % of the first, in req/s and in the service's CPU time
 * per request (from /proc: what other load on the machine distorts least); old process ≥ 90 % of
 * a fresh one.
 * Environment: SUSTAIN_SECONDS (600), SUSTAIN_CONNECTIONS (64), SUSTAIN_ROOT (the tree to run,
 * default this one: point it at a checkout of an older commit to measure that), PG_ADMIN_URL.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { wrk } from './wrk.ts'

const SECONDS = Number(process.env.SUSTAIN_SECONDS ?? 600)
const CONNECTIONS = Number(process.env.SUSTAIN_CONNECTIONS ?? 64)
const ROOT = process.env.SUSTAIN_ROOT ?? join(import.meta.dir, '..')
const JWT_SECRET = 'sustain-secret-sustain-secret-sustain-0123456789'
const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** CPU time (user + system) of a process so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(f[11]) + Number(f[12])) * 10
}
const rssMiB = (pid: number) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Math.round(Number(m[1]) / 1024) : NaN
  } catch {
    return NaN
  }
}
async function freePort() {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

const name = `cls_sustain_${Date.now().toString(36)}`
const a = postgres(admin, { max: 1, onnotice: () => {} })
await a.unsafe(`create database ${name}`)
await a.end()
const u = new URL(admin)
u.pathname = `/${name}`
const databaseUrl = u.toString()
const dataDir = await mkdtemp(join(tmpdir(), 'cls-sustain-'))

async function start() {
  const port = await freePort()
  const proc = Bun.spawn(['bun', 'run', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      JWT_SECRET,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      REMINDER_SCAN_CRON: 'off',
      DB_MAINTENANCE_CRON: 'off',
      STORAGE_SWEEP_CRON: 'off',
    },
    stdout: 'inherit',
    stderr: 'inherit',
  })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while ((await fetch(`${url}/status/ready`).catch(() => undefined))?.status !== 200) {
    if (Date.now() > deadline) throw new Error('service did not start')
    await Bun.sleep(150)
  }
  return { url, pid: proc.pid, stop: async () => (proc.kill('SIGTERM'), await proc.exited) }
}

const old = await start()
const call = async (path: string, init: RequestInit = {}) => (await fetch(`${old.url}/api/v1${path}`, init)).json() as Promise<any>
const post = (path: string, body: unknown, token?: string) =>
  call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) })
async function user(role: 'TEACHER' | 'STUDENT') {
  const username = `sus${role[0]}${Math.random().toString(36).slice(2, 10)}`
  await post('/auth/register', { username, email: `${username}@example.test`, password: 'sustain-password-1', role })
  return (await post('/auth/login', { identifier: username, password: 'sustain-password-1' })).data.accessToken as string
}
const teacher = await user('TEACHER')
const student = await user('STUDENT')
const course = (await post('/courses', { title: 'Sustain', description: 'sustain' }, teacher)).data
await post('/courses/join', { inviteCode: course.inviteCode }, student)
for (let i = 0; i < 50; i++) await post(`/courses/${course.id}/announcements`, { title: `Note ${i}`, content: 'Body.' }, teacher)

const inbox = (base: string) => `${base}/api/v1/notifications`
const minutes: { rps: number; p50: number; p99: number; errors: number; rss: number; cpuPerRequest: number }[] = []
const windows = Math.max(1, Math.round(SECONDS / 60))
for (let m = 0; m < windows; m++) {
  const cpu0 = cpuMs(old.pid)
  const r = await wrk({ url: inbox(old.url), token: student, connections: CONNECTIONS, seconds: Math.min(60, SECONDS) })
  const cpuPerRequest = (cpuMs(old.pid) - cpu0) / Math.max(1, r.requests)
  minutes.push({ rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, rss: rssMiB(old.pid), cpuPerRequest })
  console.log(`minute ${m + 1}: ${Math.round(r.rps)} req/s, ${cpuPerRequest.toFixed(3)} CPU ms/request, p99 ${r.p99} ms, RSS ${rssMiB(old.pid)} MiB, load ${loadavg()[0]!.toFixed(1)}`)
}

const fresh = await start()
const side: { path: string; old: number[]; fresh: number[] }[] = [
  { path: 'GET /notifications', old: [], fresh: [] },
  { path: 'GET /status/health', old: [], fresh: [] },
]
for (let round = 0; round < 3; round++) {
  for (const row of side) {
    for (const [which, srv] of [['old', old], ['fresh', fresh]] as const) {
      const url = row.path === 'GET /notifications' ? inbox(srv.url) : `${srv.url}/status/health`
      const r = await wrk({ url, token: student, connections: CONNECTIONS, seconds: 10 })
      row[which].push(r.rps)
    }
  }
}
await old.stop()
await fresh.stop()
await rm(dataDir, { recursive: true, force: true })
const b = postgres(admin, { max: 1, onnotice: () => {} })
await b.unsafe(`drop database if exists ${name} with (force)`)
await b.end()

const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0)
const first = minutes[0]!.rps
const last = minutes.at(-1)!.rps
const trend = last / first
const cpuTrend = minutes.at(-1)!.cpuPerRequest / minutes[0]!.cpuPerRequest
const lines = [
  '# Sustained load (wrk)',
  '',
  `${new Date().toISOString()}; \`bun run bench/sustain.ts\`; tree ${ROOT}; ${SECONDS} s of \`wrk -t2 -c${CONNECTIONS}\` on GET /notifications ` +
    `(a student with 50 notifications), NODE_ENV=production, PostgreSQL, jobs off; machine: ${cpus().length} cores shared with other work, ` +
    `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end.`,
  '',
  'CPU ms per request is the service process\'s own CPU time (user + system, /proc) over the requests wrk completed in that minute: ' +
    'what the process spends per request, which other work on the machine changes far less than req/s.',
  '',
  '| minute | req/s | CPU ms / request | p50 ms | p99 ms | errors | RSS MiB |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...minutes.map((m, i) => `| ${i + 1} | ${Math.round(m.rps)} | ${m.cpuPerRequest.toFixed(3)} | ${m.p50} | ${m.p99} | ${m.errors} | ${m.rss} |`),
  '',
  'Side by side after the series: the old process and a fresh one of the same tree, alternately 10 s each, 3 rounds (req/s):',
  '',
  '| request | old | fresh | old / fresh |',
  '| --- | --- | --- | ---: |',
  ...side.map((r) => `| ${r.path} | ${r.old.map(Math.round).join(', ')} | ${r.fresh.map(Math.round).join(', ')} | ${Math.round((sum(r.old) / sum(r.fresh)) * 100)} % |`),
  '',
  '| check | target | result | |',
  '|---|---|---|---|',
  `| sustained wrk: last minute vs first (req/s) | ≥ 90 % | ${Math.round(trend * 100)} % (${Math.round(last)} / ${Math.round(first)} req/s) | ${trend >= 0.9 ? 'PASS' : 'FAIL'} |`,
  `| sustained wrk: CPU per request, last minute vs first | ≤ 111 % (≥ 90 % of the first minute's rate at the same CPU) | ${Math.round(cpuTrend * 100)} % (${minutes.at(-1)!.cpuPerRequest.toFixed(3)} / ${minutes[0]!.cpuPerRequest.toFixed(3)} ms) | ${cpuTrend <= 1 / 0.9 ? 'PASS' : 'FAIL'} |`,
  ...side.map((r) => {
    const ratio = sum(r.old) / sum(r.fresh)
    return `| ${r.path}: old process vs fresh, same moment | ≥ 90 % | ${Math.round(ratio * 100)} % | ${ratio >= 0.9 ? 'PASS' : 'FAIL'} |`
  }),
  '',
]
const text = lines.join('\n')
console.log(text)
await writeFile(join(import.meta.dir, process.env.SUSTAIN_OUT ?? 'SUSTAIN.md'), text)
process.exit(0)
