/**
 * The MOOC benchmark (issue 26): `BENCH_SHAPE=mooc bun run bench` (bench/run.ts hands over to
 * this file). The quick dataset plus one open course of 100,001 students (bench/seed.ts,
 * `moocLearners`), seeded once and reused. Every row runs against that course; what a row adds
 * is removed again (restore() plus the rows below). Writes bench/RESULTS-mooc.md (the campus
 * and quick shapes keep bench/RESULTS.md) with PASS/FAIL per row and the figures of issue 26
 * beside this run's. See bench/README.md.
 */
import { channelsOn } from '../src/services/channels.ts'
import { readFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
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
import { mean, mirrored, readRate, runLoad, summarise, type PreparedRequest } from './load.ts'
import { benchLogin, datasetSizes, ensureSeeded, moocFixtures, restore } from './seed.ts'
import { countingPool } from './sqlstats.ts'
import { startServer, withRss } from './wrk.ts'
import { withServices } from '../src/services/index.ts'

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cls_mooc_bench'
const POOL_MAX = 10
const MAILS = Number(process.env.BENCH_MAILS ?? 100_000)
/** BENCH_ONLY=a,b: run only these rows (keys below), for a quick look at one fix. */
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null
const want = (key: string) => !ONLY || ONLY.has(key)
const READ_SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
// Mirrored rounds per read comparison (A B B A each): on a box whose speed swings by ±10 % from
// one run of 3 s to the next, one round put two identical reads 0.85-1.04 apart (28 Nov).
const READ_ROUNDS = Number(process.env.BENCH_READ_ROUNDS ?? 2)

const t0 = performance.now()
const log = (m: string) => console.log(`[mooc ${((performance.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${m}`)
const loadAtStart = loadavg()

const admin = postgres(DATABASE_URL, { onnotice: () => {}, max: 4, connection: { application_name: 'cls-bench-admin' } }) as unknown as Sql
const seedInfo = await ensureSeeded(admin, { force: process.env.BENCH_RESEED === '1', log })
const anchor = seedInfo.anchor
/** restore() plus what the MOOC rows add that restore() does not know. */
async function cleanup() {
  await admin`delete from course_members where user_id in (select id from users where username like 'bench\\_j%')`
  await admin`delete from announcements where created_at > ${anchor}`
  await restore(admin, anchor, { keepSessions: true })
  // Each row starts from a vacuumed database, as the service keeps it (autovacuum, or its own
  // maintenance job where autovacuum is off: src/db/maintenance.ts, every 5 minutes). Without
  // this, a row ran over the dead rows of the rows before it (the create and move rows delete
  // over a million reminder events; this machine's PostgreSQL runs without autovacuum): the
  // dispatch row gave 21,600-26,800 events/s after them against 35,000-40,000 on a vacuumed database.
  await admin.unsafe('vacuum (analyze)')
}
await cleanup()
const sizes = await datasetSizes(admin)

const offset = anchor.getTime() - Date.now()
const clock: Clock = { now: () => new Date(Date.now() + offset) }
const db = await connectExternal(DATABASE_URL, POOL_MAX)
const config = {
  ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: join(tmpdir(), 'cls-bench-data'), FANOUT_WORKERS: process.env.FANOUT_WORKERS }),
  jwtSecret: 'bench-secret-bench-secret-bench-secret-0123456789',
  tokenTtlSeconds: 90 * 24 * 3600,
  dbPoolMax: POOL_MAX,
  validateResponses: false,
} as Deps['config']
const deps: Deps = withServices({ emailEnabled: Boolean(config.smtpUrl), sql: db.sql, db: db.capability, config, clock, log: createLogger('silent'), storage: new LocalDiskStorage(join(tmpdir(), 'cls-bench-files')) })
const app = buildApp(deps).listen({ hostname: '127.0.0.1', port: 0 })
const base = `http://127.0.0.1:${app.server!.port}/api/v1`
const counting = countingPool(DATABASE_URL)
await counting.warm()
const countingApp = buildApp({ ...deps, sql: counting.sql })
log(`app on ${base}, clock at ${clock.now().toISOString()}`)

// ----- fixtures --------------------------------------------------------------------------------

// A student of one seminar only (the reads' comparison) and 100 students who join the MOOC.
const { mooc, seminar } = await moocFixtures(admin, anchor, 100)
const points = (await admin<{ id: string }[]>`select id from knowledge_points where course_id = ${mooc.id} order by id`).map((r) => r.id)

const login = (identifier: string) => benchLogin(base, identifier)
const teacher = await login('bench_tmooc')
const learner = await login('bench_m000001')
const single = await login('bench_single')

async function call(method: string, path: string, token: string, body?: unknown) {
  const started = performance.now()
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  const ms = performance.now() - started
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
  return { ms, data: JSON.parse(text).data }
}
const day = 86_400_000
const homework = (n: number, open = false) => ({
  title: `MOOC homework ${n}`,
  taskKind: 'HOMEWORK',
  taskType: 'MEDIA',
  materialType: 'TEXT',
  content: '<p>Read chapter 3.</p>',
  startAt: new Date(open ? clock.now().getTime() - 3_600_000 : anchor.getTime() + 2 * day).toISOString(),
  dueAt: new Date(anchor.getTime() + 9 * day).toISOString(),
})
/**
 * CPU milliseconds of every PostgreSQL backend of this database plus this process (the app runs
 * in it) while `f` runs: on a machine shared with other work (load 10-20 on 2 cores) wall time
 * swings 2-3x from run to run, CPU time far less.
 */
async function cpuOf<T>(f: () => Promise<T>): Promise<{ result: T; dbMs: number; appMs: number }> {
  const pids = async () => (await admin<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database()`).map((r) => r.pid)
  const ticks = (ps: number[]) => ps.reduce((n, pid) => {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return n + (Number(f[11]) + Number(f[12])) * 10
    } catch {
      return n
    }
  }, 0)
  const before = await pids()
  const t0 = ticks(before)
  const c0 = process.cpuUsage()
  const result = await f()
  const c1 = process.cpuUsage(c0)
  // Backends that ended meanwhile are lost; the app's pool keeps its connections.
  const dbMs = ticks(before) - t0
  return { result, dbMs, appMs: (c1.user + c1.system) / 1000 }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!
const prepared = (calls: { method: string; path: string; token: string; body?: unknown }[]): PreparedRequest[] =>
  calls.map((c) => ({
    method: c.method,
    url: base + c.path,
    headers: { authorization: `Bearer ${c.token}`, ...(c.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: c.body === undefined ? undefined : JSON.stringify(c.body),
  }))
/**
 * Several reads measured forwards and then backwards (load.ts `mirrored`), READ_ROUNDS times;
 * each one's req/s and p50 the mean of its runs (measured once each in a fixed order, the same
 * code gave 0.70-1.04 for the member-count ratio).
 */
type ReadRate = { rps: number; p50: number }
async function mirroredReads<const T extends readonly (readonly [path: string, token: string])[]>(reads: T): Promise<{ [K in keyof T]: ReadRate }> {
  const runs = await mirrored(reads.map(([path, token]) => () => readRate(base + path, token, READ_SECONDS)), READ_ROUNDS)
  return runs.map((r) => ({ rps: mean(r.map((x) => x.rps)), p50: mean(r.map((x) => x.p50)) })) as { [K in keyof T]: ReadRate }
}

interface Row {
  key: string
  name: string
  target: string
  before: string
  value: string
  pass: boolean
}
const rows: Row[] = []
function row(r: Row) {
  rows.push(r)
  log(`${r.pass ? 'PASS' : 'FAIL'} ${r.name}: ${r.value} (target ${r.target}; issue 26: ${r.before})`)
}
const s2 = (ms: number) => `${(ms / 1000).toFixed(2)} s`

// ----- homework creation -----------------------------------------------------------------------

/*
 * Above FANOUT_INLINE_STUDENTS (default 5,000) a homework's events and an announcement's
 * notifications are written by the background fan-out right after the request's commit
 * (src/fanout.ts). These rows time the answer (the target) and, beside it, how long until
 * the fan-out had written everything (`drain` waits for the runner the request started); the
 * CPU covers both. The next request starts only when the previous fan-out is done.
 */
const fanout = deps.fanout
async function withFanout(f: () => Promise<{ ms: number; data: any }>) {
  const started = performance.now()
  const { result, dbMs, appMs } = await cpuOf(async () => {
    const r = await f()
    await fanout.drain()
    return r
  })
  return { ms: result.ms, doneMs: performance.now() - started, cpuMs: dbMs + appMs, data: result.data }
}
const list = (xs: number[]) => xs.map((t) => (t / 1000).toFixed(2)).join(' / ')

if (want('create')) {
  const times: number[] = []
  const done: number[] = []
  const cpu: number[] = []
  for (let i = 0; i < 3; i++) {
    const r = await withFanout(() => call('POST', `/courses/${mooc.id}/learning/points/${points[i % points.length]}/tasks`, teacher, homework(i)))
    times.push(r.ms)
    done.push(r.doneMs)
    cpu.push(r.cpuMs)
  }
  const [ev] = await admin<{ n: number }[]>`select count(*)::int as n from homework_reminder_events where created_at > ${anchor}`
  row({ key: 'create', name: `create a homework (${(ev!.n / 3).toLocaleString('en-US')} reminder events)`, target: '≤ 1.5 s (median of 3)', before: '3.0–3.1 s',
    value: `answered in ${s2(median(times))} (${list(times)}); every event written ${s2(median(done))} after the request (${list(done)}); CPU ${s2(median(cpu))}`,
    pass: median(times) <= 1500 && ev!.n === 3 * 3 * mooc.size })
  await cleanup()
}

// ----- deadline move -----------------------------------------------------------------------------

if (want('move')) {
  const { data: task } = await withFanout(() => call('POST', `/courses/${mooc.id}/learning/points/${points[0]}/tasks`, teacher, homework(100)))
  const times: number[] = []
  const done: number[] = []
  const cpu: number[] = []
  for (let i = 1; i <= 3; i++) {
    const r = await withFanout(() => call('PATCH', `/courses/${mooc.id}/learning/tasks/${task.id}`, teacher, { dueAt: new Date(anchor.getTime() + (9 + i) * day).toISOString() }))
    times.push(r.ms)
    done.push(r.doneMs)
    cpu.push(r.cpuMs)
  }
  const [ev] = await admin<{ live: number }[]>`select count(*) filter (where not canceled)::int as live from homework_reminder_events where task_id = ${task.id}`
  row({ key: 'move', name: 'move the deadline of that homework', target: '≤ 2 s (median of 3 moves)', before: '4.75 s',
    value: `answered in ${s2(median(times))} (${list(times)}); every event rewritten ${s2(median(done))} after the request (${list(done)}); CPU ${s2(median(cpu))}`,
    pass: median(times) <= 2000 && ev!.live === 3 * mooc.size })
  await cleanup()
}

// ----- dispatch with e-mail for 10 % -----------------------------------------------------------

deps.emailEnabled = true
deps.channels = channelsOn(deps) // read per request, so the running app mails from here on
if (want('dispatch')) {
  // Three dispatches, each of a fresh homework on a vacuumed database (cleanup), the median
  // judged as the other write rows are: one run on this 2-core box swings by ±15 %
  // (bench/RESULTS-mooc.md, 2 Dec 2026), so a single run passed or failed by noise.
  const rates: number[] = []
  let exact = true
  let last = ''
  for (let i = 1; i <= 3; i++) {
    await withFanout(() => call('POST', `/courses/${mooc.id}/learning/points/${points[0]}/tasks`, teacher, homework(200 + i, true)))
    await admin`analyze homework_reminder_events`
    const now = clock.now()
    const started = performance.now()
    const r = await dispatch(db.sql, now, { channels: deps.channels })
    const seconds = (performance.now() - started) / 1000
    const [o] = await admin<{ outbox: number; notes: number }[]>`
      select (select count(*) from email_outbox where created_at > ${anchor})::int as outbox,
             (select count(*) from notifications where delivered_at > ${anchor})::int as notes`
    rates.push((r.sent + r.canceled) / seconds)
    exact &&= o!.notes === r.sent && o!.outbox > 0 && r.sent + r.canceled === mooc.size
    last = `${seconds.toFixed(2)} s, ${o!.notes} notifications, ${o!.outbox} outbox rows`
    await cleanup()
  }
  row({ key: 'dispatch', name: `dispatch ${mooc.size.toLocaleString('en-US')} START events (e-mail on for 10 %)`, target: '≥ 40,000 events/s, outbox rows included (median of 3)', before: '22,200 events/s',
    value: `${Math.round(median(rates)).toLocaleString('en-US')} events/s (${rates.map((x) => Math.round(x).toLocaleString('en-US')).join(' / ')}; last: ${last})`,
    pass: median(rates) >= 40_000 && exact })
}

// ----- announcement ------------------------------------------------------------------------------

if (want('announce')) {
  const times: number[] = []
  const done: number[] = []
  const cpu: number[] = []
  let complete = true
  for (let i = 0; i < 2; i++) {
    const r = await withFanout(() => call('POST', `/courses/${mooc.id}/announcements`, teacher, { title: `Exam room ${i}`, content: '<p>The exam moves to hall B.</p>' }))
    times.push(r.ms)
    done.push(r.doneMs)
    cpu.push(r.cpuMs)
    const [n] = await admin<{ n: number }[]>`select count(*)::int as n from notifications where params->>'announcementId' = ${r.data.id}`
    if (n!.n !== mooc.size) complete = false
    await cleanup()
  }
  row({ key: 'announce', name: `post an announcement (${(mooc.size).toLocaleString('en-US')} notifications, e-mail for 10 %)`, target: '≤ 1 s (median of 2)', before: '2.55 s',
    value: `answered in ${s2(median(times))} (${list(times)}); every notification written ${s2(median(done))} after the request (${list(done)}); CPU ${s2(median(cpu))}`,
    pass: median(times) <= 1000 && complete })
}
deps.emailEnabled = false

// ----- 100 concurrent joins ----------------------------------------------------------------------

if (want('joins')) {
  const joiners = (await admin<{ username: string }[]>`select username from users where username like 'bench\\_j%' order by username`).map((r) => r.username)
  const tokens: string[] = []
  for (let i = 0; i < joiners.length; i += 10) tokens.push(...(await Promise.all(joiners.slice(i, i + 10).map(login))))
  // A homework open now and one ahead: each joiner gets START now plus future events. Its own
  // 300,000 events are written by the background fan-out, awaited here: the first run used to
  // race it (two writers on two cores) and measured that instead of the joins.
  await withFanout(() => call('POST', `/courses/${mooc.id}/learning/points/${points[0]}/tasks`, teacher, homework(300)))
  const walls: number[] = []
  const cpu: number[] = []
  const appCpu: number[] = []
  // Three runs, the first one cold (the pool's connections have not run a join yet), the median
  // reported: with two, the lower of the two was the warm one.
  for (let run = 0; run < 3; run++) {
    await admin`delete from course_members where course_id = ${mooc.id} and user_id in (select id from users where username like 'bench\\_j%')`
    const { result: r, dbMs, appMs } = await cpuOf(() => runLoad({ requests: prepared(tokens.map((token) => ({ method: 'POST', path: '/courses/join', token, body: { inviteCode: mooc.invite_code } }))), concurrency: tokens.length, maxRequests: tokens.length }))
    cpu.push(dbMs)
    appCpu.push(appMs)
    const s = summarise(r)
    if (s.errors) throw new Error(`joins: ${s.errors} errors (${r.firstError})`)
    walls.push(s.max)
  }
  const [n] = await admin<{ n: number }[]>`select course_student_count(${mooc.id}) as n`
  row({ key: 'joins', name: '100 students joining at once', target: '≤ 300 ms until the last answer (median of 3, the first cold)', before: '862 ms',
    value: `${median(walls).toFixed(0)} ms (${walls.map((w) => w.toFixed(0)).join(' / ')}); PostgreSQL CPU ${median(cpu).toFixed(0)} ms, app CPU ${median(appCpu).toFixed(0)} ms; counter ${n!.n}`, pass: median(walls) <= 300 && n!.n === mooc.size + 100 })
  await cleanup()
}

// ----- member counts and the members list -------------------------------------------------------

if (want('members')) {
  const stmts = async (path: string, token: string) => {
    const { statements } = await counting.record(async () => {
      const res = await countingApp.handle(new Request(`http://127.0.0.1/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } }))
      await res.text()
    })
    return statements.length
  }
  const seminarTeacher = await login((await admin<{ u: string }[]>`select u.username as u from courses c join users u on u.id = c.teacher_id where c.id = ${seminar.id}`)[0]!.u)
  for (const [what, path] of [['members, page 1 of 50', 'members?pageSize=50'], ['course (memberCount)', '']] as const) {
    const [bigPath, smallPath] = [mooc.id, seminar.id].map((id) => `/courses/${id}${path ? `/${path}` : ''}`) as [string, string]
    const [big, small] = await mirroredReads([[bigPath, teacher], [smallPath, seminarTeacher]])
    const [a, b] = [await stmts(bigPath, teacher), await stmts(smallPath, seminarTeacher)]
    row({ key: 'members', name: `${what}: ${mooc.size.toLocaleString('en-US')} vs ${seminar.size} students`, target: 'same statements, ≥ 0.8 × the seminar\'s req/s',
      before: what.startsWith('members') ? '66 ms (OFFSET)' : 'counted per request',
      value: `${big.rps.toFixed(0)} vs ${small.rps.toFixed(0)} req/s (${(big.rps / small.rps).toFixed(2)}), p50 ${big.p50.toFixed(1)} vs ${small.p50.toFixed(1)} ms, statements ${a} vs ${b}`,
      pass: a === b && big.rps >= 0.8 * small.rps })
  }
}

// ----- GET /courses for anyone, and the student reads --------------------------------------------

if (want('courses')) {
  const [me, list, listLearner] = await mirroredReads([['/auth/me', single], ['/courses', single], ['/courses', learner]])
  row({ key: 'courses', name: 'GET /courses, seminar student, in the database with the MOOC', target: '≥ 0.5 × GET /auth/me (the course list costs one more keyed read; ~0.5 without the big course)',
    before: '203–275 req/s = 0.03 of /auth/me (~4,000 without the big course)',
    value: `${list.rps.toFixed(0)} req/s vs /auth/me ${me.rps.toFixed(0)} (${(list.rps / me.rps).toFixed(2)}); MOOC learner ${listLearner.rps.toFixed(0)} req/s`,
    pass: list.rps >= 0.5 * me.rps && listLearner.rps >= 0.5 * me.rps })
}

if (want('reads')) {
  const reads = [
    ['GET /homeworks/mine', '/homeworks/mine', '/homeworks/mine'],
    ['GET /courses/{id}/learning', `/courses/${mooc.id}/learning`, `/courses/${seminar.id}/learning`],
    ['GET /notifications', '/notifications', '/notifications'],
  ] as const
  for (const [title, big, small] of reads) {
    const [{ rps: a }, { rps: b }] = await mirroredReads([[big, learner], [small, single]])
    row({ key: 'reads', name: `${title}: MOOC learner vs a student of one ${seminar.size}-student seminar`, target: '≥ 0.9 of the seminar student\'s req/s', before: '0.83–0.98',
      value: `${a.toFixed(0)} vs ${b.toFixed(0)} req/s (${(a / b).toFixed(2)})`, pass: a >= 0.9 * b })
  }
}

// ----- memory: grades CSV and the whole-course overview (service in a process of its own) --------

if (want('memory')) {
  const server = await startServer('service', { DATABASE_URL, BENCH_CLOCK_OFFSET_MS: String(offset), BENCH_POOL: String(POOL_MAX), BENCH_JWT_SECRET: config.jwtSecret })
  try {
    const t = await benchLogin(server.base, 'bench_tmooc')
    for (const [what, path, before] of [
      ['grades CSV', `/courses/${mooc.id}/grades/overview.csv`, '7.5 MB, RSS +134…+164 MB (built in memory)'],
      ['grade overview, whole course', `/courses/${mooc.id}/grades/overview`, '19.3 MB JSON, RSS 290 → 330 MB'],
    ] as const) {
      // RSS before the first call of this export; the peak over 3 calls.
      const get = async () => {
        const started = performance.now()
        const res = await fetch(server.base + path, { headers: { authorization: `Bearer ${t}` } })
        let bytes = 0
        const reader = res.body!.getReader()
        for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`)
        return { bytes, ms: performance.now() - started }
      }
      const idle = server.rss()
      const { result, peakRss } = await withRss(server, async () => [await get(), await get(), await get()])
      row({ key: 'memory', name: `${what}, ${mooc.size.toLocaleString('en-US')} students`, target: 'RSS grows ≤ 64 MB (peak over 3 calls)', before,
        value: `${(result[0]!.bytes / 2 ** 20).toFixed(1)} MB in ${median(result.map((r) => r.ms)).toFixed(0)} ms; RSS ${idle.toFixed(0)} → ${peakRss.toFixed(0)} MB (+${(peakRss - idle).toFixed(0)})`,
        pass: peakRss - idle <= 64 })
    }
  } finally {
    await server.stop()
  }
}

// ----- e-mail outbox (bench/probe-email.ts: its own database, SMTP sink, two sender processes) ----

if (want('email')) {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'probe-email.ts')], {
    env: { ...process.env, PROBE_MAILS: String(MAILS), PROBE_INSTANCES: '2' },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const out = await new Response(proc.stdout).text()
  await proc.exited
  const m = /\| e-mail outbox .*?\| .*? \| (.*?) \| (PASS|FAIL) \|/.exec(out)
  row({ key: 'email', name: `e-mail outbox of ${MAILS.toLocaleString('en-US')} mails into a local SMTP server, 2 instances`, target: '≥ 200 mails/s, each exactly once (issue 50: a relay takes 14+; was 2,000 with a client of our own)',
    before: '7.7 mails/s (issue 30.2); nodemailer pool: 223–720, 1,121–1,267 at load 4 (sender CPU 815 µs per mail)', value: m ? m[1]! : `no result: ${out.slice(-300)}`, pass: m?.[2] === 'PASS' })
}

// ----- the inbox at 10 million notifications, and retention (bench/probe-history.ts: databases of its own) ----

if (want('history')) {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'probe-history.ts')], { env: process.env, stdout: 'pipe', stderr: 'inherit' })
  const out = await new Response(proc.stdout).text()
  const code = await proc.exited
  const found = [...out.matchAll(/^\| history: (.*?) \| (.*?) \| (.*?) \| (PASS|FAIL) \|$/gm)]
  for (const m of found) {
    row({ key: 'history', name: m[1]!, target: m[2]!, before: 'not measured (no retention; one index per user, 10,000 notifications of one user in the campus bench)', value: m[3]!, pass: m[4] === 'PASS' })
  }
  if (found.length !== 3 || code !== 0) {
    row({ key: 'history', name: 'inbox and retention at 10 million notifications', target: 'the probe completes', before: '—', value: `exit ${code}: ${out.slice(-300)}`, pass: false })
  }
}

await cleanup()

// ----- RESULTS-mooc.md ---------------------------------------------------------------------------

const KEEP_MARKER = '<!-- Everything below this line is hand-written and kept by bench/mooc.ts. -->'
const resultsPath = join(import.meta.dir, 'RESULTS-mooc.md')
const previous = (await Bun.file(resultsPath).exists()) ? await Bun.file(resultsPath).text() : ''
const kept = previous.includes(KEEP_MARKER) ? previous.slice(previous.indexOf(KEEP_MARKER)) : `${KEEP_MARKER}\n`
const out: string[] = []
const line = (s = '') => out.push(s)
const cpu = cpus()
line('# Benchmark results: one course of 100,001 students')
line()
line('Dataset shape: **mooc** (`BENCH_SHAPE=mooc`): the quick dataset (2,000 students in 40 seminars of 100-300) plus the course "MOOC" of 100,000 learners and')
line('one seminar student (100,001; same structure as a seminar: 5 units × 4 points × 5 tasks; 20 % answered the first unit; 10 % want every notification by e-mail).')
line()
line(`Generated by \`BENCH_SHAPE=mooc bun run bench\` (bench/mooc.ts) on ${new Date().toISOString()}${ONLY ? ` (rows: ${[...ONLY].join(', ')})` : ''}. Not part of \`bun test\`.`)
line()
line(`- ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, shared with other work: load average ${loadAtStart.map((x) => x.toFixed(2)).join(' / ')} at the start, ${loadavg()[0]!.toFixed(2)} at the end.`)
line(`- Bun ${Bun.version}; the app in-process on 127.0.0.1 (pool of ${POOL_MAX}); the memory rows run it as a process of its own (bench/serve.ts); reads: ${READ_SECONDS} s per run, 8 clients, ${READ_ROUNDS} mirrored rounds (A B B A) per comparison.`)
line(`- Dataset ${seedInfo.reused ? `reused (seeded ${seedInfo.seededAt.toISOString()} in ${seedInfo.seconds.toFixed(0)} s)` : `seeded in this run in ${seedInfo.seconds.toFixed(0)} s`}: ` +
  `${sizes.students!.toLocaleString('en-US')} students, ${sizes.memberships!.toLocaleString('en-US')} memberships, ${sizes.learning_submissions!.toLocaleString('en-US')} answer sheets, ${sizes.reminder_events!.toLocaleString('en-US')} reminder events, ${sizes.notifications!.toLocaleString('en-US')} notifications.`)
line()
line('| check | target | issue 26 (before) | this run | |')
line('|---|---|---|---|---|')
for (const r of rows) line(`| ${r.name} | ${r.target} | ${r.before} | ${r.value} | ${r.pass ? 'PASS' : '**FAIL**'} |`)
line()
await Bun.write(resultsPath, out.join('\n') + '\n' + kept)

console.log('')
for (const r of rows) console.log(`${r.pass ? 'PASS' : 'FAIL'}  ${r.name}: ${r.value} (target ${r.target})`)
console.log(`\n${rows.filter((r) => r.pass).length} passed, ${rows.filter((r) => !r.pass).length} failed. Results: bench/RESULTS-mooc.md (${((performance.now() - t0) / 1000).toFixed(0)} s)`)
await app.stop(true)
await db.close()
await counting.sql.end({ timeout: 5 })
await admin.end({ timeout: 5 })
process.exit(0)
