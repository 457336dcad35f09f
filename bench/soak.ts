/**
 * Soak: `bun run bench/soak.ts` (not part of `bun test`). Starts the service as a separate
 * process (`bun run src/server.ts` with NODE_ENV=production as in the image, on PostgreSQL: SOAK_DATABASE_URL, default a fresh
 * database cls_soak_<time> on the local server, dropped afterwards) and drives it from this
 * process with a mix of reads, writes and uploads for SOAK_SECONDS (default 600).
 *
 * Reports requests per minute (last full minute against the first: at least 90 %), errors
 * (any status other than 2xx), latency, and the service's RSS sampled every 10 s.
 * Writes bench/SOAK.md. Exit code 0 regardless; PASS/FAIL lines say how it went.
 *
 * Environment: SOAK_SECONDS (600), SOAK_CONCURRENCY (8), SOAK_STUDENTS (20),
 * SOAK_UPLOAD_BYTES (65536), SOAK_KEEP_DB (1: keep the fresh database for a look afterwards), SOAK_URL (drive an already running service instead; no RSS then
 * unless SOAK_PID names its process).
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600)
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 8)
const STUDENTS = Number(process.env.SOAK_STUDENTS ?? 20)
const UPLOAD_BYTES = Number(process.env.SOAK_UPLOAD_BYTES ?? 64 * 1024)
const RSS_EVERY_MS = 10_000
const ROOT = join(import.meta.dir, '..')
const JWT_SECRET = 'soak-secret-soak-secret-soak-secret-0123456789'

function rssMiB(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Math.round(Number(m[1]) / 1024) : undefined
  } catch {
    return undefined
  }
}

async function freePort() {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

// ---- the service under test -------------------------------------------------------------
let url = process.env.SOAK_URL
let pid = process.env.SOAK_PID ? Number(process.env.SOAK_PID) : undefined
let stopService = async () => {}
if (!url) {
  const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  let databaseUrl = process.env.SOAK_DATABASE_URL
  let dropDb = async () => {}
  if (!databaseUrl) {
    const name = `cls_soak_${Date.now().toString(36)}`
    const a = postgres(admin, { max: 1, onnotice: () => {} })
    await a.unsafe(`create database ${name}`)
    await a.end()
    const u = new URL(admin)
    u.pathname = `/${name}`
    databaseUrl = u.toString()
    dropDb = async () => {
      const b = postgres(admin, { max: 1, onnotice: () => {} })
      await b.unsafe(`drop database if exists ${name} with (force)`)
      await b.end()
    }
  }
  const port = await freePort()
  const dataDir = await mkdtemp(join(tmpdir(), 'cls-soak-'))
  const proc = Bun.spawn(['bun', 'run', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: databaseUrl, JWT_SECRET, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', REMINDER_SCAN_CRON: '*/10 * * * * *' },
    stdout: 'inherit',
    stderr: 'inherit',
  })
  pid = proc.pid
  url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 200; i++) {
    if ((await fetch(`${url}/status/ready`).catch(() => undefined))?.status === 200) break
    await Bun.sleep(150)
  }
  stopService = async () => {
    proc.kill('SIGTERM')
    await proc.exited
    await rm(dataDir, { recursive: true, force: true })
    if (process.env.SOAK_KEEP_DB === '1') console.log(`kept ${databaseUrl}`)
    else await dropDb()
  }
}
const base = `${url}/api/v1`

// ---- the world: one teacher, a course, students, an experiment --------------------------
async function call(method: string, path: string, token?: string, body?: unknown): Promise<{ status: number; data: any }> {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  let payload: BodyInit | undefined
  if (body instanceof FormData) payload = body
  else if (body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(body)
  }
  const r = await fetch(`${base}${path}`, { method, headers, body: payload })
  const text = await r.text()
  let data: any = null
  try {
    data = JSON.parse(text).data
  } catch {}
  return { status: r.status, data }
}

async function user(role: 'TEACHER' | 'STUDENT') {
  const username = `soak${role[0]}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
  const password = 'soak-password-123'
  const reg = await call('POST', '/auth/register', undefined, { username, email: `${username}@example.test`, password, role })
  if (reg.status !== 201) throw new Error(`register ${reg.status}`)
  const login = await call('POST', '/auth/login', undefined, { identifier: username, password })
  return login.data.accessToken as string
}

const teacher = await user('TEACHER')
const course = (await call('POST', '/courses', teacher, { title: 'Soak course', description: 'soak' })).data
const students: string[] = []
for (let i = 0; i < STUDENTS; i++) {
  const s = await user('STUDENT')
  await call('POST', '/courses/join', s, { inviteCode: course.inviteCode })
  students.push(s)
}
const experiment = (await call('POST', `/courses/${course.id}/experiments`, teacher, { title: 'Soak lab', description: 'upload', dueAt: new Date(Date.now() + 30 * 86400_000).toISOString() })).data
if (!experiment?.id) throw new Error('setup failed: no experiment')
const uploadBytes = new Uint8Array(UPLOAD_BYTES).map((_, i) => (i * 31) & 0xff)

// ---- the mix ----------------------------------------------------------------------------
type Op = { name: string; weight: number; run: (i: number) => Promise<number> }
const st = (i: number) => students[i % students.length]!
const ops: Op[] = [
  { name: 'GET /courses', weight: 25, run: async (i) => (await call('GET', '/courses', st(i))).status },
  { name: 'GET /courses/:id', weight: 15, run: async (i) => (await call('GET', `/courses/${course.id}`, st(i))).status },
  { name: 'GET /notifications', weight: 20, run: async (i) => (await call('GET', '/notifications', st(i))).status },
  { name: 'GET announcements', weight: 15, run: async (i) => (await call('GET', `/courses/${course.id}/announcements`, st(i))).status },
  { name: 'GET /auth/me', weight: 10, run: async (i) => (await call('GET', '/auth/me', st(i))).status },
  { name: 'PATCH read-all', weight: 5, run: async (i) => (await call('PATCH', '/notifications/read-all', st(i))).status },
  {
    name: 'POST announcement',
    weight: 3,
    run: async (i) => (await call('POST', `/courses/${course.id}/announcements`, teacher, { title: `Soak ${i}`, content: 'Soak announcement body.' })).status,
  },
  {
    name: 'POST submission (upload)',
    weight: 7,
    run: async (i) => {
      const form = new FormData()
      form.set('file', new File([uploadBytes], `lab-${i}.bin`, { type: 'application/octet-stream' }))
      form.set('note', 'soak')
      return (await call('POST', `/experiments/${experiment.id}/submissions`, st(i), form)).status
    },
  },
]
const totalWeight = ops.reduce((a, o) => a + o.weight, 0)
const pick = (r: number) => {
  let x = r * totalWeight
  for (const o of ops) if ((x -= o.weight) < 0) return o
  return ops[0]!
}

interface Minute {
  requests: number
  errors: number
  latencies: number[]
  /** Latencies per operation, to tell which one slows down. */
  byOp: Map<string, number[]>
}
const minutes: Minute[] = []
const errorsByKind = new Map<string, number>()
const rss: { t: number; mib: number | undefined }[] = []
const started = performance.now()
const minuteOf = () => Math.floor((performance.now() - started) / 60_000)
const endAt = started + SECONDS * 1000
rss.push({ t: 0, mib: pid ? rssMiB(pid) : undefined })
const sampler = setInterval(() => rss.push({ t: Math.round((performance.now() - started) / 1000), mib: pid ? rssMiB(pid) : undefined }), RSS_EVERY_MS)

let n = 0
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < endAt) {
      const i = n++
      const op = pick(Math.random())
      const t0 = performance.now()
      let status = 0
      try {
        status = await op.run(i)
      } catch {
        status = 0
      }
      const m = (minutes[minuteOf()] ??= { requests: 0, errors: 0, latencies: [], byOp: new Map() })
      const took = performance.now() - t0
      m.requests++
      m.latencies.push(took)
      let opLat = m.byOp.get(op.name)
      if (!opLat) m.byOp.set(op.name, (opLat = []))
      opLat.push(took)
      if (status < 200 || status >= 300) {
        m.errors++
        const k = `${op.name} → ${status}`
        errorsByKind.set(k, (errorsByKind.get(k) ?? 0) + 1)
      }
    }
  }),
)
clearInterval(sampler)
rss.push({ t: Math.round((performance.now() - started) / 1000), mib: pid ? rssMiB(pid) : undefined })
await stopService()

// ---- report -----------------------------------------------------------------------------
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10 : 0
}
const fullMinutes = minutes.slice(0, Math.floor(SECONDS / 60))
const perMin = fullMinutes.map((m) => m.requests)
const first = perMin[0] ?? 0
const last = perMin.at(-1) ?? 0
const ratio = first ? last / first : 0
const errors = minutes.reduce((a, m) => a + m.errors, 0)
const total = minutes.reduce((a, m) => a + m.requests, 0)
const rssValues = rss.map((r) => r.mib).filter((x): x is number => x !== undefined)
const rssAfterWarmup = rss.filter((r) => r.t >= 60 && r.mib !== undefined).map((r) => r.mib!)
const lines = [
  `# Soak results`,
  ``,
  `${new Date().toISOString()}; ${SECONDS} s, ${CONCURRENCY} clients, ${STUDENTS} students, uploads of ${UPLOAD_BYTES} bytes; ` +
    `machine: ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end.`,
  `Mix (weights): ${ops.map((o) => `${o.name} ${o.weight}`).join(', ')}.`,
  ``,
  `| minute | requests | req/s | errors | p50 ms | p95 ms | p99 ms |`,
  `| ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  ...minutes.map((m, i) => `| ${i + 1}${i >= fullMinutes.length ? ' (partial)' : ''} | ${m.requests} | ${Math.round(m.requests / 60)} | ${m.errors} | ${pct(m.latencies, 50)} | ${pct(m.latencies, 95)} | ${pct(m.latencies, 99)} |`),
  ``,
  `Per operation, first and last full minute (p50 / p95 ms):`,
  ``,
  `| operation | first p50 | first p95 | last p50 | last p95 |`,
  `| --- | ---: | ---: | ---: | ---: |`,
  ...ops.map((o) => {
    const f = fullMinutes[0]?.byOp.get(o.name) ?? []
    const l = fullMinutes.at(-1)?.byOp.get(o.name) ?? []
    return `| ${o.name} | ${pct(f, 50)} | ${pct(f, 95)} | ${pct(l, 50)} | ${pct(l, 95)} |`
  }),
  ``,
  `Total ${total} requests, ${errors} errors${errorsByKind.size ? ': ' + [...errorsByKind].map(([k, v]) => `${k} ×${v}`).join(', ') : ''}.`,
  ``,
  `RSS of the service (MiB) every ${RSS_EVERY_MS / 1000} s: ${rss.map((r) => `${r.t}s=${r.mib ?? '?'}`).join(', ')}.`,
  rssAfterWarmup.length ? `After the first minute: min ${Math.min(...rssAfterWarmup)}, max ${Math.max(...rssAfterWarmup)} MiB.` : '',
  ``,
  `${fullMinutes.length >= 2 && ratio >= 0.9 ? 'PASS' : 'FAIL'} throughput: last full minute ${last} requests = ${Math.round(ratio * 100)} % of the first (${first}); target ≥ 90 %.`,
  `${errors === 0 ? 'PASS' : 'FAIL'} errors: ${errors}.`,
  rssValues.length
    ? `${rssAfterWarmup.length && Math.max(...rssAfterWarmup) - Math.min(...rssAfterWarmup) <= 64 ? 'PASS' : 'FAIL'} RSS flat after the first minute (spread ≤ 64 MiB).`
    : 'RSS not sampled.',
]
const text = lines.join('\n') + '\n'
console.log(text)
await writeFile(join(import.meta.dir, 'SOAK.md'), text)
process.exit(0)
