/**
 * The performance benchmark: `DATABASE_URL=postgres://… bun run bench` (default: the local
 * cls_bench database). Not part of `bun test`. See bench/README.md.
 *
 * 1. Migrates and seeds (or reuses) the dataset, removes what earlier runs added.
 * 2. Boots the app in-process on 127.0.0.1:<free port> with a clock that starts at the
 *    dataset's anchor time.
 * 3. Statements per request for every hot endpoint, on a large and a small case (the N+1
 *    check), and EXPLAIN (ANALYZE, BUFFERS) of each statement.
 * 4. Throughput and latency over real HTTP with N concurrent clients (worker thread).
 * 5. Reminder fan-out (homework creation in the 300-student course) and dispatch throughput
 *    with one and two concurrent dispatchers.
 * 6. Writes bench/RESULTS.md and bench/PLANS.md; prints PASS/FAIL. Exit code 0 regardless.
 */
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { connectExternal, type Sql } from '../src/db/connect.ts'
import type { Deps } from '../src/deps.ts'
import type { Clock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/log.ts'
import { DEFAULT_BATCH_SIZE, DEFAULT_WORKERS, dispatch } from '../src/modules/reminders/dispatch.ts'
import { LocalDiskStorage } from '../src/storage/local-disk.ts'
import { runLoad, summarise, type PreparedRequest, type Summary } from './load.ts'
import { BENCH_PASSWORD, datasetSizes, ensureSeeded, restore, seedDueEvents, SHAPE } from './seed.ts'
import { startServer, withRss, wrk, type WrkResult } from './wrk.ts'
import { countingPool, explainAll, isTxControl, largeSeqScans, oneLine, type Plan, type Statement } from './sqlstats.ts'
import { withServices } from '../src/services/index.ts'

// BENCH_SHAPE=mooc is its own benchmark (one course of 100,001 students): bench/mooc.ts.
if (SHAPE.name === 'mooc') await import('./mooc.ts')

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/cls_bench'
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
const SECONDS = Math.min(15, Number(process.env.BENCH_SECONDS ?? 8))
const WARMUP_MS = 1_500
const POOL_MAX = 10
const FANOUT_REQUESTS = 40
const FANOUT_CONCURRENCY = 4
const FANOUT_SEQUENTIAL_REQUESTS = 20
const DISPATCH_EVENTS = 20_000
const TARGET_P95_MS = 100
const CAMPUS = SHAPE.name === 'campus'
const TARGET_EVENTS_PER_S = CAMPUS ? 20_000 : 2_000
/** Issue 15's targets at campus scale: full overviews of the 2,000-student course, pages of 200, fan-out. */
const TARGET_OVERVIEW_P95_MS = CAMPUS ? 150 : TARGET_P95_MS
const TARGET_PAGED_P95_MS = 30
const TARGET_FANOUT_P95_MS = 150
const TARGET_RATIO = 0.7
const TARGET_HISTORY = 0.2
const TARGET_RSS_MB = 250
const WRK_CONNECTIONS = Number(process.env.BENCH_WRK_CONNECTIONS ?? 64)
const WRK_SECONDS = Math.min(15, Number(process.env.BENCH_WRK_SECONDS ?? 6))
const REPS = 3

const t0 = performance.now()
const log = (m: string) => console.log(`[bench ${((performance.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${m}`)
const loadAtStart = loadavg()

// ----- database, dataset, app ------------------------------------------------------------------

const admin = postgres(DATABASE_URL, { onnotice: () => {}, max: 4, connection: { application_name: 'cls-bench-admin' } }) as unknown as Sql
const seedInfo = await ensureSeeded(admin, { force: process.env.BENCH_RESEED === '1', log })
const anchor = seedInfo.anchor
await restore(admin, anchor)
const sizes = await datasetSizes(admin)
const [pg] = await admin<{ version: string; shared_buffers: string; work_mem: string }[]>`
  select version() as version, current_setting('shared_buffers') as shared_buffers, current_setting('work_mem') as work_mem`

// The app's time starts at the anchor: the dataset's due dates are relative to it.
const offset = anchor.getTime() - Date.now()
const clock: Clock = { now: () => new Date(Date.now() + offset) }

const db = await connectExternal(DATABASE_URL, POOL_MAX)
const config = {
  ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: join(tmpdir(), 'cls-bench-data') }),
  jwtSecret: 'bench-secret-bench-secret-bench-secret-0123456789',
  tokenTtlSeconds: 90 * 24 * 3600,
  dbPoolMax: POOL_MAX,
  // As in production (NODE_ENV=production); BENCH_VALIDATE_RESPONSES=1 measures with the check.
  validateResponses: process.env.BENCH_VALIDATE_RESPONSES === '1',
} as Deps['config']
const storage = new LocalDiskStorage(join(tmpdir(), 'cls-bench-files'))
const deps: Deps = withServices({ sql: db.sql, db: db.capability, config, emailEnabled: Boolean(config.smtpUrl), clock, log: createLogger('silent'), storage })
const app = buildApp(deps).listen({ hostname: '127.0.0.1', port: 0 })
const port = app.server?.port
if (!port) throw new Error('the app did not start listening')
const base = `http://127.0.0.1:${port}/api/v1`
log(`app listening on ${base} (pool ${POOL_MAX}), clock at ${clock.now().toISOString()}`)

// The same app on a statement-counting pool, called in-process one request at a time.
const counting = countingPool(DATABASE_URL)
await counting.warm()
const countingApp = buildApp({ ...deps, sql: counting.sql })

// ----- fixtures --------------------------------------------------------------------------------

const courseRows = await admin<{ id: string; teacher: string; size: number }[]>`
  select c.id, u.username as teacher, count(*)::int as size
    from courses c join users u on u.id = c.teacher_id join course_members m on m.course_id = c.id
   group by c.id, u.username
   order by size desc, c.id`
const big = courseRows[0]!
const small = courseRows[courseRows.length - 1]!
const bigStudents = await admin<{ username: string }[]>`
  select u.username from course_members m join users u on u.id = m.user_id
   where m.course_id = ${big.id} and (select count(*) from course_members x where x.user_id = m.user_id) = 5
   order by u.username limit ${CONCURRENCY}`
const [smallStudent] = await admin<{ username: string; courses: number }[]>`
  select u.username, (select count(*) from course_members x where x.user_id = u.id)::int as courses
    from course_members m join users u on u.id = m.user_id
   where m.course_id = ${small.id}
   order by 2, u.username limit 1`
type Quiz = { id: string; questions: { id: string }[] }
const bigQuizzes = await admin<Quiz[]>`
  select id, questions from learning_tasks
   where course_id = ${big.id} and task_kind = 'LEARNING' and task_type = 'QUIZ' order by id`
const [smallQuiz] = await admin<Quiz[]>`
  select id, questions from learning_tasks
   where course_id = ${small.id} and task_kind = 'LEARNING' and task_type = 'QUIZ' order by id limit 1`
const bigPoints = (await admin<{ id: string }[]>`select id from knowledge_points where course_id = ${big.id} order by id`).map((r) => r.id)
const [smallPoint] = await admin<{ id: string }[]>`select id from knowledge_points where course_id = ${small.id} order by id limit 1`

async function login(identifier: string): Promise<string> {
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier, password: BENCH_PASSWORD }),
  })
  const body = (await res.json()) as { data?: { accessToken?: string } }
  if (res.status !== 200 || !body.data?.accessToken) throw new Error(`login ${identifier}: ${res.status} ${JSON.stringify(body)}`)
  return body.data.accessToken
}
const tokens = {
  bigTeacher: await login(big.teacher),
  smallTeacher: await login(small.teacher),
  students: await Promise.all(bigStudents.map((s) => login(s.username))),
  smallStudent: await login(smallStudent!.username),
}
log(`logged in: teacher ${big.teacher} (course of ${big.size}), teacher ${small.teacher} (course of ${small.size}), ` +
  `${tokens.students.length} students in 5 courses, ${smallStudent!.username} (${smallStudent!.courses} courses)`)

// ----- endpoints -------------------------------------------------------------------------------

interface Call {
  method: 'GET' | 'POST'
  path: string
  token: string
  body?: unknown
}
interface Endpoint {
  key: string
  title: string
  who: string
  read: boolean
  /** The large case (also what is load-tested) and a small case: equal statement counts = no N+1. */
  large: (i: number) => Call
  small: (i: number) => Call
  /** Removes what a counted write created, so its statements can be replayed under EXPLAIN. */
  undo?: (data: any) => Promise<void>
  /** Requests for the load run (round robin). */
  load: () => Call[]
}

const answersFor = (q: Quiz, i: number) => ({
  answers: q.questions.map((qu, k) => ({ questionId: qu.id, selectedOptions: k === 0 ? [i % 4] : [0, 2] })),
})
const students = tokens.students
const homeworkBody = (i: number) => ({
  title: `Bench homework ${i}`,
  taskKind: 'HOMEWORK',
  taskType: 'MEDIA',
  materialType: 'TEXT',
  content: '<p>Read chapter 3 and summarise it.</p>',
  startAt: new Date(anchor.getTime() + 2 * 86_400_000).toISOString(),
  dueAt: new Date(anchor.getTime() + 9 * 86_400_000).toISOString(),
})

const endpoints: Endpoint[] = [
  {
    key: 'courses',
    title: 'GET /courses',
    who: 'student in 5 courses (small case: 3 courses)',
    read: true,
    large: (i) => ({ method: 'GET', path: '/courses', token: students[i % students.length]! }),
    small: () => ({ method: 'GET', path: '/courses', token: tokens.smallStudent }),
    load: () => students.map((token) => ({ method: 'GET', path: '/courses', token })),
  },
  {
    key: 'homeworks-mine',
    title: 'GET /homeworks/mine',
    who: 'student in 5 courses, ~100 homework (small case: 3 courses)',
    read: true,
    large: (i) => ({ method: 'GET', path: '/homeworks/mine', token: students[i % students.length]! }),
    small: () => ({ method: 'GET', path: '/homeworks/mine', token: tokens.smallStudent }),
    load: () => students.map((token) => ({ method: 'GET', path: '/homeworks/mine', token })),
  },
  {
    key: 'course-homeworks',
    title: 'GET /courses/{id}/homeworks',
    who: `teacher, ${big.size}-student course (small case: ${small.size} students)`,
    read: true,
    large: () => ({ method: 'GET', path: `/courses/${big.id}/homeworks`, token: tokens.bigTeacher }),
    small: () => ({ method: 'GET', path: `/courses/${small.id}/homeworks`, token: tokens.smallTeacher }),
    load: () => [{ method: 'GET', path: `/courses/${big.id}/homeworks`, token: tokens.bigTeacher }],
  },
  {
    key: 'learning-tree',
    title: 'GET /courses/{id}/learning',
    who: `student, ${big.size}-student course, 5 units × 4 points × 5 tasks (small case: ${small.size}-student course)`,
    read: true,
    large: (i) => ({ method: 'GET', path: `/courses/${big.id}/learning`, token: students[i % students.length]! }),
    small: () => ({ method: 'GET', path: `/courses/${small.id}/learning`, token: tokens.smallStudent }),
    load: () => students.map((token) => ({ method: 'GET', path: `/courses/${big.id}/learning`, token })),
  },
  {
    key: 'learning-overview',
    title: 'GET /courses/{id}/learning/overview',
    who: `teacher, ${big.size}-student course (small case: ${small.size} students)`,
    read: true,
    large: () => ({ method: 'GET', path: `/courses/${big.id}/learning/overview`, token: tokens.bigTeacher }),
    small: () => ({ method: 'GET', path: `/courses/${small.id}/learning/overview`, token: tokens.smallTeacher }),
    load: () => [{ method: 'GET', path: `/courses/${big.id}/learning/overview`, token: tokens.bigTeacher }],
  },
  {
    key: 'grades-overview',
    title: 'GET /courses/{id}/grades/overview',
    who: `teacher, ${big.size}-student course (small case: ${small.size} students)`,
    read: true,
    large: () => ({ method: 'GET', path: `/courses/${big.id}/grades/overview`, token: tokens.bigTeacher }),
    small: () => ({ method: 'GET', path: `/courses/${small.id}/grades/overview`, token: tokens.smallTeacher }),
    load: () => [{ method: 'GET', path: `/courses/${big.id}/grades/overview`, token: tokens.bigTeacher }],
  },
  ...(['learning', 'grades'] as const).map((what) => ({
    key: `${what}-overview-paged`,
    title: `GET /courses/{id}/${what}/overview?page=&pageSize=200`,
    who: `teacher, ${big.size}-student course, pages of 200 in turn (small case: ${small.size} students, page 1)`,
    read: true,
    large: (i: number) => ({ method: 'GET' as const, path: `/courses/${big.id}/${what}/overview?page=${1 + (i % Math.ceil(big.size / 200))}&pageSize=200`, token: tokens.bigTeacher }),
    small: () => ({ method: 'GET' as const, path: `/courses/${small.id}/${what}/overview?page=1&pageSize=200`, token: tokens.smallTeacher }),
    load: () =>
      Array.from({ length: Math.ceil(big.size / 200) }, (_, i) => ({ method: 'GET' as const, path: `/courses/${big.id}/${what}/overview?page=${i + 1}&pageSize=200`, token: tokens.bigTeacher })),
  })),
  {
    key: 'notifications',
    title: 'GET /notifications',
    who: 'student in 5 courses, first page of 50 (small case: 3 courses)',
    read: true,
    large: (i) => ({ method: 'GET', path: '/notifications', token: students[i % students.length]! }),
    small: () => ({ method: 'GET', path: '/notifications', token: tokens.smallStudent }),
    load: () => students.map((token) => ({ method: 'GET', path: '/notifications', token })),
  },
  {
    key: 'submit',
    title: 'POST /courses/{id}/learning/tasks/{taskId}/submissions',
    who: `students of the ${big.size}-student course, quiz of 2 choice questions (auto-graded)`,
    read: false,
    large: (i) => {
      const q = bigQuizzes[i % bigQuizzes.length]!
      return { method: 'POST', path: `/courses/${big.id}/learning/tasks/${q.id}/submissions`, token: students[i % students.length]!, body: answersFor(q, i) }
    },
    small: (i) => ({
      method: 'POST',
      path: `/courses/${small.id}/learning/tasks/${smallQuiz!.id}/submissions`,
      token: tokens.smallStudent,
      body: answersFor(smallQuiz!, i),
    }),
    undo: async (data) => void (await admin`delete from learning_submissions where id = ${data.id}`),
    load: () =>
      bigQuizzes.flatMap((q, k) =>
        students.map((token, i) => ({
          method: 'POST' as const,
          path: `/courses/${big.id}/learning/tasks/${q.id}/submissions`,
          token,
          body: answersFor(q, i + k),
        })),
      ),
  },
  {
    key: 'create-homework',
    title: 'POST /courses/{id}/learning/points/{pointId}/tasks (HOMEWORK)',
    who: `teacher, ${big.size}-student course: ${big.size} × 3 reminder events (small case: ${small.size} students)`,
    read: false,
    large: (i) => ({ method: 'POST', path: `/courses/${big.id}/learning/points/${bigPoints[i % bigPoints.length]}/tasks`, token: tokens.bigTeacher, body: homeworkBody(i) }),
    small: (i) => ({ method: 'POST', path: `/courses/${small.id}/learning/points/${smallPoint!.id}/tasks`, token: tokens.smallTeacher, body: homeworkBody(i) }),
    undo: async (data) => void (await admin`delete from learning_tasks where id = ${data.id}`),
    load: () => bigPoints.map((p, i) => ({ method: 'POST', path: `/courses/${big.id}/learning/points/${p}/tasks`, token: tokens.bigTeacher, body: homeworkBody(i) })),
  },
]

function toRequest(c: Call, prefix = base): { url: string; init: RequestInit } {
  const headers: Record<string, string> = { authorization: `Bearer ${c.token}` }
  if (c.body !== undefined) headers['content-type'] = 'application/json'
  return { url: prefix + c.path, init: { method: c.method, headers, body: c.body === undefined ? undefined : JSON.stringify(c.body) } }
}

// ----- 1. statements per request and plans ------------------------------------------------------

interface Counted {
  large: number[]
  small: number[]
  statements: Statement[]
  responseBytes: number
  items: string
  plans: Plan[]
}
const counted = new Map<string, Counted>()

async function countedCall(c: Call) {
  const { url, init } = toRequest(c, 'http://127.0.0.1/api/v1')
  const { result, statements } = await counting.record(async () => {
    const res = await countingApp.handle(new Request(url, init))
    return { status: res.status, text: await res.text() }
  })
  if (result.status >= 300) throw new Error(`${c.method} ${c.path}: ${result.status} ${result.text.slice(0, 500)}`)
  return { statements, text: result.text, data: JSON.parse(result.text).data }
}

function describeData(data: any): string {
  if (!data) return ''
  if (Array.isArray(data)) return `${data.length} items`
  if (Array.isArray(data.items)) return `${data.items.length} items`
  if (Array.isArray(data.students)) return `${data.students.length} students`
  if (Array.isArray(data.units)) {
    const tasks = data.units.reduce((n: number, u: any) => n + u.points.reduce((m: number, p: any) => m + p.tasks.length, 0), 0)
    return `${data.units.length} units, ${tasks} tasks`
  }
  return ''
}

log('counting statements per request and explaining them')
for (const ep of endpoints) {
  const c: Counted = { large: [], small: [], statements: [], responseBytes: 0, items: '', plans: [] }
  for (let i = 0; i < REPS; i++) {
    const r = await countedCall(ep.small(i))
    c.small.push(r.statements.length)
    if (ep.undo) await ep.undo(r.data)
  }
  for (let i = 0; i < REPS; i++) {
    const r = await countedCall(ep.large(i))
    c.large.push(r.statements.length)
    // The first call's statements are explained: with the grade overview cache (sql/030) the
    // later calls are hits that only read the version, the first one builds.
    if (i === 0) c.statements = r.statements
    c.responseBytes = r.text.length
    c.items = describeData(r.data)
    if (ep.undo) await ep.undo(r.data)
  }
  c.plans = await explainAll(admin, c.statements)
  counted.set(ep.key, c)
  const main = mainPlan(c.plans)
  log(`  ${ep.title}: ${c.large.join('/')} statements (small case ${c.small.join('/')}), main query ${main?.executionMs ?? '?'} ms`)
}

function mainPlan(plans: Plan[]) {
  return plans.reduce<Plan | undefined>((m, p) => ((p.executionMs ?? -1) > (m?.executionMs ?? -1) ? p : m), undefined)
}

// ----- 2. load over HTTP -----------------------------------------------------------------------

const prepared = (calls: Call[]): PreparedRequest[] =>
  calls.map((c) => {
    const { url, init } = toRequest(c)
    return { method: c.method, url, headers: init.headers as Record<string, string>, body: init.body as string | undefined }
  })

const results = new Map<string, Summary>()
for (const ep of endpoints.filter((e) => e.key !== 'create-homework')) {
  const r = await runLoad({ requests: prepared(ep.load()), concurrency: CONCURRENCY, durationMs: SECONDS * 1000, warmupMs: WARMUP_MS })
  const s = summarise(r)
  results.set(ep.key, s)
  log(`  ${ep.title}: ${s.rps.toFixed(0)} req/s, p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms` +
    (s.errors ? `, ${s.errors} errors (${s.firstError})` : ''))
}
await restore(admin, anchor, { keepSessions: true })

// ----- 2b. side by side with the bare baseline, load from wrk in its own process ---------------

interface SideRow {
  title: string
  path: string
  sameJson: boolean
  bytes: number
  service: WrkResult
  bare: WrkResult
  ratio: number
}
interface HistoryRow {
  title: string
  heavyWhat: string
  lightWhat: string
  heavy: WrkResult
  light: WrkResult
}
const side = await sideBySide()
await restore(admin, anchor, { keepSessions: true })

async function sideBySide() {
  const env = { DATABASE_URL, BENCH_CLOCK_OFFSET_MS: String(offset), BENCH_POOL: String(POOL_MAX), BENCH_JWT_SECRET: config.jwtSecret }
  const service = await startServer('service', env)
  const bare = await startServer('bare', env)
  log(`side by side: service pid ${service.pid} (${service.base}), bare baseline pid ${bare.pid} (${bare.base}); wrk -t2 -c${WRK_CONNECTIONS} -d${WRK_SECONDS}s`)
  let peakRss = service.rss()
  const measure = async (server: typeof service, path: string, token: string, connections: number) => {
    const { result, peakRss: p } = await withRss(server, () => wrk({ url: server.base + path, token, connections, seconds: WRK_SECONDS }))
    if (server === service) peakRss = Math.max(peakRss, p)
    return result
  }
  const body = async (server: typeof service, path: string, token: string) => {
    const res = await fetch(server.base + path, { headers: { authorization: `Bearer ${token}` } })
    return { status: res.status, text: await res.text() }
  }
  const mean = (a: WrkResult, b: WrkResult): WrkResult => ({
    rps: (a.rps + b.rps) / 2, p50: (a.p50 + b.p50) / 2, p95: (a.p95 + b.p95) / 2, p99: (a.p99 + b.p99) / 2,
    max: Math.max(a.max, b.max), requests: a.requests + b.requests, errors: a.errors + b.errors, bytesPerRequest: a.bytesPerRequest,
  })
  try {
    const hot: { title: string; path: string; token: string }[] = [
      { title: 'GET /courses', path: '/courses', token: students[0]! },
      { title: 'GET /homeworks/mine', path: '/homeworks/mine', token: students[0]! },
      { title: 'GET /courses/{id}/learning', path: `/courses/${big.id}/learning`, token: students[0]! },
      { title: 'GET /notifications', path: '/notifications', token: students[0]! },
      { title: `GET /courses/{id}/learning/overview (${big.size} students)`, path: `/courses/${big.id}/learning/overview`, token: tokens.bigTeacher },
      { title: `GET /courses/{id}/grades/overview (${big.size} students)`, path: `/courses/${big.id}/grades/overview`, token: tokens.bigTeacher },
      { title: 'GET /courses/{id}/learning/overview?page=2&pageSize=200', path: `/courses/${big.id}/learning/overview?page=2&pageSize=200`, token: tokens.bigTeacher },
      { title: 'GET /courses/{id}/grades/overview?page=2&pageSize=200', path: `/courses/${big.id}/grades/overview?page=2&pageSize=200`, token: tokens.bigTeacher },
    ]
    const rows: SideRow[] = []
    for (const h of hot) {
      const [a, b] = [await body(service, h.path, h.token), await body(bare, h.path, h.token)]
      if (a.status !== 200 || b.status !== 200) throw new Error(`${h.path}: service ${a.status}, bare ${b.status}: ${b.text.slice(0, 200)}`)
      // Alternate service and baseline twice, so drifting background load hits both alike.
      const s1 = await measure(service, h.path, h.token, WRK_CONNECTIONS)
      const b1 = await measure(bare, h.path, h.token, WRK_CONNECTIONS)
      const s2 = await measure(service, h.path, h.token, WRK_CONNECTIONS)
      const b2 = await measure(bare, h.path, h.token, WRK_CONNECTIONS)
      const row: SideRow = { ...h, sameJson: a.text === b.text, bytes: a.text.length, service: mean(s1, s2), bare: mean(b1, b2), ratio: 0 }
      row.ratio = row.service.rps / row.bare.rps
      rows.push(row)
      log(`  ${h.title}: service ${row.service.rps.toFixed(0)} req/s (p95 ${row.service.p95.toFixed(1)} ms), bare ${row.bare.rps.toFixed(0)} req/s (p95 ${row.bare.p95.toFixed(1)} ms): ${(row.ratio * 100).toFixed(0)} %${row.sameJson ? '' : ' — JSON differs'}`)
    }

    // History: a student of the big course with 10,000 notifications and 10,000 older answer
    // sheets (seeded) against one with about 50 notifications and an ordinary history.
    const history: HistoryRow[] = []
    if (SHAPE.heavyUsers > 0) {
      const [heavy] = await admin<{ id: string; username: string; notifications: number; sheets: number }[]>`
        select u.id, u.username,
               (select count(*) from notifications n where n.user_id = u.id)::int as notifications,
               (select count(*) from learning_submissions s where s.student_id = u.id)::int as sheets
          from users u where u.username = ${bigStudents[0]!.username}`
      const [light] = await admin<{ id: string; username: string; notifications: number; sheets: number }[]>`
        select u.id, u.username, x.n as notifications, (select count(*) from learning_submissions s where s.student_id = u.id)::int as sheets
          from course_members m join users u on u.id = m.user_id
         cross join lateral (select count(*)::int as n from notifications n where n.user_id = u.id) x
         where m.course_id = ${big.id} and (select count(*) from course_members c where c.user_id = u.id) = 5
           and x.n < 1000
         order by abs(x.n - 50), u.username limit 1`
      const lightToken = await login(light!.username)
      const [task] = await admin<{ id: string }[]>`
        select t.id from learning_tasks t
         where t.course_id = ${big.id} and t.task_kind = 'LEARNING'
           and exists (select 1 from learning_submissions s where s.task_id = t.id and s.student_id = ${heavy!.id})
           and exists (select 1 from learning_submissions s where s.task_id = t.id and s.student_id = ${light!.id})
         order by t.id limit 1`
      // The submission list is paged (50 by default). With 81 sheets against 1 the check
      // compared a full page with a page of one, which is page size, not history. Like the
      // inbox (10,000 notifications against ~50), compare a student with 10,000 sheets on the
      // task with one with 50: two full pages. The sheets added here are after the anchor, so
      // restore() removes them; they are removed right after the history cases too.
      await admin`
        insert into learning_submissions (id, task_id, course_id, student_id, content, status, submitted_at)
        select gen_uuid_v7(), ${task!.id}, ${big.id}, x.student, '<p>bench history</p>', 'SUBMITTED',
               ${anchor}::timestamptz + g * interval '1 millisecond'
          from (select s.student_id as student, (case when s.student_id = ${heavy!.id}::uuid then 10000 else 50 end) - count(*)::int as n
                  from learning_submissions s
                 where s.task_id = ${task!.id} and s.student_id in (${heavy!.id}, ${light!.id})
                 group by s.student_id) x
         cross join lateral generate_series(1, greatest(0, x.n)) g`
      const [sheetsOn] = await admin<{ heavy: number; light: number }[]>`
        select count(*) filter (where student_id = ${heavy!.id})::int as heavy, count(*) filter (where student_id = ${light!.id})::int as light
          from learning_submissions where task_id = ${task!.id}`
      const cases = [
        { title: 'GET /notifications', path: '/notifications', heavyWhat: `${heavy!.notifications.toLocaleString('en-US')} notifications`, lightWhat: `${light!.notifications} notifications` },
        { title: 'GET /homeworks/mine', path: '/homeworks/mine', heavyWhat: `${heavy!.sheets.toLocaleString('en-US')} answer sheets`, lightWhat: `${light!.sheets} answer sheets` },
        { title: 'GET /courses/{id}/learning', path: `/courses/${big.id}/learning`, heavyWhat: `${heavy!.sheets.toLocaleString('en-US')} answer sheets`, lightWhat: `${light!.sheets} answer sheets` },
        { title: 'GET /courses/{id}/learning/tasks/{taskId}/submissions', path: `/courses/${big.id}/learning/tasks/${task!.id}/submissions`, heavyWhat: `${sheetsOn!.heavy} sheets on the task`, lightWhat: `${sheetsOn!.light} sheet(s) on the task` },
      ]
      for (const c of cases) {
        const h1 = await measure(service, c.path, students[0]!, CONCURRENCY)
        const l1 = await measure(service, c.path, lightToken, CONCURRENCY)
        const h2 = await measure(service, c.path, students[0]!, CONCURRENCY)
        const l2 = await measure(service, c.path, lightToken, CONCURRENCY)
        const row = { title: c.title, heavyWhat: c.heavyWhat, lightWhat: c.lightWhat, heavy: mean(h1, h2), light: mean(l1, l2) }
        history.push(row)
        log(`  history ${c.title}: ${c.heavyWhat} ${row.heavy.rps.toFixed(0)} req/s (p50 ${row.heavy.p50.toFixed(1)} ms) vs ${c.lightWhat} ${row.light.rps.toFixed(0)} req/s (p50 ${row.light.p50.toFixed(1)} ms)`)
      }
      await admin`delete from learning_submissions where task_id = ${task!.id} and submitted_at > ${anchor}`
    }
    return { rows, history, peakRss, serviceRssIdle: service.rss() }
  } finally {
    await service.stop()
    await bare.stop()
  }
}

// ----- 3. reminder fan-out: homework creation --------------------------------------------------

const createEp = endpoints.find((e) => e.key === 'create-homework')!
/** `requests` homework created by `concurrency` clients; what they wrote is deleted again. */
async function fanOut(requests: number, concurrency: number) {
  log(`reminder fan-out: ${requests} homework in the ${big.size}-student course, ${concurrency} at a time`)
  const stats = summarise(await runLoad({ requests: prepared(createEp.load()), concurrency, maxRequests: requests }))
  const [written] = await admin<{ tasks: number; events: number }[]>`
    select count(distinct t.id)::int as tasks, count(e.id)::int as events
      from learning_tasks t left join homework_reminder_events e on e.task_id = t.id
     where t.created_at > ${anchor} and t.course_id = ${big.id}`
  const windowS = stats.requests / stats.rps
  log(`  ${written!.tasks} homework, ${written!.events} events: p50 ${stats.p50.toFixed(1)} ms, p95 ${stats.p95.toFixed(1)} ms, ` +
    `${(written!.events / windowS).toFixed(0)} events/s generated`)
  await restore(admin, anchor, { keepSessions: true })
  return { concurrency, stats, ...written!, eventsPerSecond: written!.events / windowS }
}
// The target is one homework's fan-out (one teacher creating it); 4 teachers of the same course
// at once are measured too, for the contention.
const fanouts = [await fanOut(FANOUT_SEQUENTIAL_REQUESTS, 1), await fanOut(FANOUT_REQUESTS, FANOUT_CONCURRENCY)]
const fanout = fanouts[0]!.stats
results.set('create-homework', fanouts[1]!.stats)

// ----- 4. dispatch -----------------------------------------------------------------------------

const setupDue = (count: number) => seedDueEvents(admin, () => clock.now(), count)

// Statements per batch, on a small due set through the counting pool.
log('dispatch: statements per batch')
// Two full batches and a short one; one worker, so the recorded statements come batch by batch.
await setupDue(2 * DEFAULT_BATCH_SIZE + 500)
const dispatchCount = await counting.record(() => dispatch(counting.sql, clock.now(), { workers: 1 }))
const batches: Statement[][] = []
for (const st of dispatchCount.statements) {
  if (/^\s*begin/i.test(st.text)) batches.push([])
  batches[batches.length - 1]?.push(st)
}
const perBatch = [...new Set(batches.slice(0, -1).map((b) => b.length))]
const firstBatch = batches[0] ?? []
await restore(admin, anchor, { keepSessions: true })

// Plans of one full batch against the real backlog (replayed and rolled back).
const dueCount1 = await setupDue(DISPATCH_EVENTS)
const claimIds = (await admin<{ id: string }[]>`
  select id from homework_reminder_events
   where scheduled_at <= ${clock.now()} and sent_at is null and not canceled
   order by scheduled_at, id limit ${DEFAULT_BATCH_SIZE}`).map((r) => r.id)
const dispatchPlans = await explainAll(admin, firstBatch, (ps) => ps.map((p) => (Array.isArray(p) ? claimIds : p)))

interface DispatchRun {
  dispatchers: number
  due: number
  sent: number
  canceled: number
  seconds: number
  eventsPerSecond: number
  notifications: number
}
async function timeDispatch(dispatchers: number, due: number): Promise<DispatchRun> {
  const pools = [db.sql, ...Array.from({ length: dispatchers - 1 }, () => postgres(DATABASE_URL, { onnotice: () => {}, max: 2 }) as unknown as Sql)]
  const now = clock.now()
  const started = performance.now()
  const runs = await Promise.all(pools.map((p) => dispatch(p, now)))
  const seconds = (performance.now() - started) / 1000
  for (const p of pools.slice(1)) await p.end({ timeout: 5 })
  const sent = runs.reduce((n, r) => n + r.sent, 0)
  const canceled = runs.reduce((n, r) => n + r.canceled, 0)
  const [n] = await admin<{ notifications: number; left: number }[]>`
    select (select count(*) from notifications where delivered_at > ${anchor} and notification_type = 'HOMEWORK_REMINDER')::int as notifications,
           (select count(*) from homework_reminder_events where scheduled_at <= ${now} and sent_at is null and not canceled)::int as left`
  if (n!.left !== 0 || n!.notifications !== sent || sent + canceled !== due) {
    throw new Error(`dispatch bookkeeping is off: due ${due}, sent ${sent}, canceled ${canceled}, notifications ${n!.notifications}, left ${n!.left}`)
  }
  return { dispatchers, due, sent, canceled, seconds, eventsPerSecond: (sent + canceled) / seconds, notifications: n!.notifications }
}

const dispatchRuns: DispatchRun[] = []
log(`dispatch: ${dueCount1} due events, 1 dispatcher`)
dispatchRuns.push(await timeDispatch(1, dueCount1))
await restore(admin, anchor, { keepSessions: true })
const dueCount2 = await setupDue(DISPATCH_EVENTS)
log(`dispatch: ${dueCount2} due events, 2 dispatchers`)
dispatchRuns.push(await timeDispatch(2, dueCount2))
await restore(admin, anchor)
for (const r of dispatchRuns) {
  log(`  ${r.dispatchers} dispatcher(s): ${r.sent} sent + ${r.canceled} canceled in ${r.seconds.toFixed(2)} s = ${r.eventsPerSecond.toFixed(0)} events/s`)
}

// ----- 5. checks and report --------------------------------------------------------------------

interface Check {
  name: string
  target: string
  value: string
  pass: boolean
}
const checks: Check[] = []
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '–')
for (const ep of endpoints) {
  const s = results.get(ep.key)!
  const c = counted.get(ep.key)!
  if (ep.read) {
    const target = ep.key.endsWith('-paged') ? TARGET_PAGED_P95_MS : ep.key.endsWith('-overview') ? TARGET_OVERVIEW_P95_MS : TARGET_P95_MS
    checks.push({ name: `${ep.title} p95`, target: `≤ ${target} ms at ${CONCURRENCY} clients, no errors`, value: `${ms(s.p95)} ms, ${s.errors} errors`, pass: s.p95 <= target && s.errors === 0 })
  } else if (s.errors) {
    checks.push({ name: `${ep.title} errors`, target: 'none', value: `${s.errors} (${s.firstError})`, pass: false })
  }
  const all = [...c.large, ...c.small]
  checks.push({
    name: `${ep.title} statements/request`,
    target: 'constant (same for the large and the small case)',
    value: all.every((n) => n === all[0]) ? `${c.large[0]} (small case ${c.small[0]})` : `${c.large.join('/')} (small case ${c.small.join('/')}; a cache miss, then hits)`,
    // A cached read (the grade overview) is a miss, then hits for the same page: the first calls
    // (misses in both cases) must agree, and every call is either that count or one hit count.
    pass: c.large[0] === c.small[0] && new Set(all.filter((n) => n !== c.large[0])).size <= 1,
  })
  const scans = c.plans.flatMap(largeSeqScans)
  checks.push({
    name: `${ep.title} plans`,
    target: 'no sequential scan of a large table',
    value: scans.length ? scans.map((s) => `Seq Scan on ${s.table} (${s.rows} rows)`).join(', ') : 'none',
    pass: scans.length === 0,
  })
}
checks.push({
  name: `homework fan-out to ${big.size} students p95`,
  target: `≤ ${TARGET_FANOUT_P95_MS} ms (one homework at a time)`,
  value: `${ms(fanout.p95)} ms (p50 ${ms(fanout.p50)} ms)`,
  pass: fanout.p95 <= TARGET_FANOUT_P95_MS && fanout.errors === 0,
})
for (const r of side.rows) {
  checks.push({
    name: `${r.title}: service / bare baseline`,
    target: `≥ ${TARGET_RATIO * 100} % of the bare baseline's req/s (wrk, ${WRK_CONNECTIONS} connections), same JSON`,
    value: `${(r.ratio * 100).toFixed(0)} % (${r.service.rps.toFixed(0)} / ${r.bare.rps.toFixed(0)} req/s)${r.sameJson ? '' : ', JSON differs'}`,
    pass: r.ratio >= TARGET_RATIO && r.sameJson && r.service.errors === 0 && r.bare.errors === 0,
  })
}
for (const h of side.history) {
  checks.push({
    name: `history-independent: ${h.title}`,
    target: `long-history user's req/s within ${TARGET_HISTORY * 100} % of the short-history user's (wrk, ${CONCURRENCY} connections)`,
    value: `${h.heavyWhat}: ${h.heavy.rps.toFixed(0)} req/s vs ${h.lightWhat}: ${h.light.rps.toFixed(0)} req/s (${((h.heavy.rps / h.light.rps - 1) * 100).toFixed(0)} %)`,
    pass: h.heavy.rps >= h.light.rps * (1 - TARGET_HISTORY) && h.heavy.errors === 0 && h.light.errors === 0,
  })
}
checks.push({ name: 'service RSS under load', target: `≤ ${TARGET_RSS_MB} MB (peak VmRSS of the service process during the wrk runs)`, value: `${side.peakRss.toFixed(0)} MB`, pass: side.peakRss <= TARGET_RSS_MB })
for (const r of dispatchRuns) {
  checks.push({ name: `dispatch, ${r.dispatchers} dispatcher(s)`, target: `≥ ${TARGET_EVENTS_PER_S} events/s`, value: `${r.eventsPerSecond.toFixed(0)} events/s`, pass: r.eventsPerSecond >= TARGET_EVENTS_PER_S })
}
const dispatchScans = dispatchPlans.flatMap(largeSeqScans)
checks.push({ name: 'dispatch plans', target: 'no sequential scan of a large table', value: dispatchScans.length ? dispatchScans.map((s) => `Seq Scan on ${s.table}`).join(', ') : 'none', pass: dispatchScans.length === 0 })
checks.push({ name: 'dispatch statements/batch', target: 'constant', value: perBatch.join(', '), pass: perBatch.length === 1 })

// ----- RESULTS.md and PLANS.md -----------------------------------------------------------------

const KEEP_MARKER = '<!-- Everything below this line is hand-written and kept by bench/run.ts. -->'
const resultsPath = join(import.meta.dir, 'RESULTS.md')
const previous = (await Bun.file(resultsPath).exists()) ? await Bun.file(resultsPath).text() : ''
const kept = previous.includes(KEEP_MARKER) ? previous.slice(previous.indexOf(KEEP_MARKER)) : `${KEEP_MARKER}\n`

const cpu = cpus()
const out: string[] = []
const line = (s = '') => out.push(s)
line('# Benchmark results')
line()
line(`Dataset shape: **${SHAPE.name}** (\`BENCH_SHAPE=${SHAPE.name}\`).`)
line()
line(`Generated by \`bun run bench\` (bench/run.ts) on ${new Date().toISOString()}. Not part of \`bun test\`.`)
line()
line('## Machine and settings')
line()
line(`- ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, shared with other work:` +
  ` load average ${loadAtStart.map((x) => x.toFixed(2)).join(' / ')} (1/5/15 min) when the run started, ${loadavg()[0]!.toFixed(2)} (1 min) when it ended.` +
  ' Latencies on a busy machine are pessimistic; compare runs with similar load.')
line(`- Bun ${Bun.version}; ${pg!.version.split(' on ')[0]}, shared_buffers ${pg!.shared_buffers}, work_mem ${pg!.work_mem}; the database is on the same machine.`)
line(`- The app runs in-process (buildApp, the same deps as server.ts) on 127.0.0.1 with a pool of ${POOL_MAX} connections;` +
  ` the load generator runs in a worker thread: ${CONCURRENCY} concurrent keep-alive clients, ${WARMUP_MS / 1000} s warm-up, then ${SECONDS} s measured per endpoint.`)
line(`- The app's clock starts at the dataset's anchor (${anchor.toISOString()}), so due dates relative to it look the same on every run.`)
line(`- Dataset ${seedInfo.reused ? `reused (seeded ${seedInfo.seededAt.toISOString()} in ${seedInfo.seconds.toFixed(0)} s)` : `seeded in this run in ${seedInfo.seconds.toFixed(0)} s`}; whatever a run adds is deleted again.`)
line()
line('## Dataset')
line()
line('| table / fact | rows |')
line('|---|---:|')
for (const [k, v] of Object.entries(sizes)) line(`| ${k.replaceAll('_', ' ')} | ${v.toLocaleString('en-US')} |`)
line()
line('## Targets')
line()
line('| check | target | result | |')
line('|---|---|---|---|')
for (const c of checks) line(`| ${c.name} | ${c.target} | ${c.value} | ${c.pass ? 'PASS' : '**FAIL**'} |`)
line()
line(`## Side by side with a bare baseline (wrk -t2 -c${WRK_CONNECTIONS}, separate processes)`)
line()
line(`The service (bench/serve.ts service: buildApp, pool of ${POOL_MAX}) and a bare baseline (bench/serve.ts bare: Bun.serve + postgres.js, pool of ${POOL_MAX},` +
  ' calling the same query and service functions, authentication and course check included, and writing the same JSON envelope) each run in a process of their own;' +
  ` \`wrk -t2 -c${WRK_CONNECTIONS} -d${WRK_SECONDS}s\` (${'/usr/bin/wrk'}) in a third. Service and baseline alternate, twice each per endpoint; the figures are the means of the two runs.` +
  ' Ratio = service req/s ÷ baseline req/s. "Same JSON": the two bodies are byte-identical.')
line()
line('| endpoint | KiB | service req/s | p50 | p95 | p99 ms | bare req/s | p50 | p95 | p99 ms | ratio | same JSON |')
line('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|')
for (const r of side.rows) {
  line(`| ${r.title} | ${(r.bytes / 1024).toFixed(1)} | ${r.service.rps.toFixed(0)} | ${ms(r.service.p50)} | ${ms(r.service.p95)} | ${ms(r.service.p99)} | ` +
    `${r.bare.rps.toFixed(0)} | ${ms(r.bare.p50)} | ${ms(r.bare.p95)} | ${ms(r.bare.p99)} | ${(r.ratio * 100).toFixed(0)} % | ${r.sameJson ? 'yes' : '**no**'} |`)
}
line()
line(`Peak RSS of the service process during these runs: ${side.peakRss.toFixed(0)} MB (${side.serviceRssIdle.toFixed(0)} MB after them).`)
if (side.history.length) {
  line()
  line(`### History independence (service, wrk -t2 -c${CONCURRENCY})`)
  line()
  line('The same request for a student with a long history and one with a short one, both in the same five courses as far as the big course goes (alternating, twice each).')
  line()
  line('| endpoint | long history | req/s | p50 | p95 | p99 ms | short history | req/s | p50 | p95 | p99 ms | difference |')
  line('|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|')
  for (const h of side.history) {
    line(`| ${h.title} | ${h.heavyWhat} | ${h.heavy.rps.toFixed(0)} | ${ms(h.heavy.p50)} | ${ms(h.heavy.p95)} | ${ms(h.heavy.p99)} | ${h.lightWhat} | ${h.light.rps.toFixed(0)} | ${ms(h.light.p50)} | ${ms(h.light.p95)} | ${ms(h.light.p99)} | ${((h.heavy.rps / h.light.rps - 1) * 100).toFixed(0)} % |`)
  }
}
line()
line(`## HTTP endpoints (${CONCURRENCY} concurrent clients)`)
line()
line('| endpoint | req/s | p50 ms | p95 ms | p99 ms | statements/request |')
line('|---|---:|---:|---:|---:|---:|')
for (const ep of endpoints) {
  const s = results.get(ep.key)!
  line(`| ${ep.title} | ${s.rps.toFixed(0)} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${counted.get(ep.key)!.large[0]} |`)
}
line()
line(`The homework-creation row is ${FANOUT_REQUESTS} requests at ${FANOUT_CONCURRENCY} concurrent clients (see "Reminder fan-out").`)
for (const ep of endpoints) {
  const s = results.get(ep.key)!
  const c = counted.get(ep.key)!
  line()
  line(`### ${ep.title}`)
  line()
  line(`Caller: ${ep.who}. Response: ${c.items ? `${c.items}, ` : ''}${(c.responseBytes / 1024).toFixed(1)} KiB.`)
  line()
  line('| req/s | p50 ms | p95 ms | p99 ms | max ms | requests | errors | statements/request (large / small case) |')
  line('|---:|---:|---:|---:|---:|---:|---:|---:|')
  line(`| ${s.rps.toFixed(0)} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.p99)} | ${ms(s.max)} | ${s.requests} | ${s.errors} | ${c.large.join(', ')} / ${c.small.join(', ')} |`)
  line()
  line('Statements of one request (EXPLAIN ANALYZE execution time, replayed alone):')
  line()
  const main = mainPlan(c.plans)
  let k = 0
  for (const st of c.statements) {
    k++
    if (isTxControl(st)) {
      line(`${k}. \`${oneLine(st.text)}\``)
      continue
    }
    const p = c.plans.find((x) => x.statement === st.text)
    const scans = p ? largeSeqScans(p) : []
    const small = p ? p.seqScans.filter((x) => !scans.includes(x)) : []
    const note = p?.error
      ? ` — not replayable: ${p.error}`
      : p
        ? ` — ${p.executionMs} ms${p === main ? ' (main query)' : ''}` +
          (scans.length ? ` — **Seq Scan on ${scans.map((x) => `${x.table} (${x.rows} rows)`).join(', ')}**` : '') +
          (small.length ? ` (seq scan of small ${small.map((x) => `${x.table}: ${x.rows} rows`).join(', ')})` : '')
        : ''
    line(`${k}. \`${oneLine(st.text)}\`${note}`)
  }
  if (main) {
    line()
    line('<details><summary>Plan of the main query</summary>')
    line()
    line('```')
    line(main.text)
    line('```')
    line('</details>')
  }
}
line()
line('## Reminder fan-out (homework creation)')
line()
line(`Homework created over HTTP in the ${big.size}-student course (spread over its ${bigPoints.length} knowledge points), first one at a time, then by ${FANOUT_CONCURRENCY} concurrent clients;` +
  ` every trigger in the future, so each creates ${big.size} × 3 events in one INSERT … SELECT inside the request's transaction. The target is the first row.`)
line()
line('| clients | homework | events | events/request | req/s | p50 ms | p95 ms | p99 ms | events/s generated | statements/request |')
line('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const f of fanouts) {
  line(`| ${f.concurrency} | ${f.tasks} | ${f.events} | ${(f.events / Math.max(1, f.tasks)).toFixed(0)} | ${f.stats.rps.toFixed(1)} | ${ms(f.stats.p50)} | ${ms(f.stats.p95)} | ${ms(f.stats.p99)} | ${f.eventsPerSecond.toFixed(0)} | ${counted.get('create-homework')!.large[0]} |`)
}
line()
line('## Dispatch')
line()
line(`${DISPATCH_EVENTS.toLocaleString('en-US')} due events (one homework per course, due an hour ago; a quarter of the students had submitted, so their BEFORE_DUE_24H and DUE events are canceled instead of sent),` +
  ` behind ${(sizes.pending_events ?? 0).toLocaleString('en-US')} pending future events. \`dispatch(sql, now)\` from src/modules/reminders/dispatch.ts, batch size ${DEFAULT_BATCH_SIZE}, ${DEFAULT_WORKERS} batches in flight per dispatcher;` +
  ' two dispatchers are two pools (two instances) running at once.')
line()
line('| dispatchers | due events | sent | canceled | seconds | events/s |')
line('|---:|---:|---:|---:|---:|---:|')
for (const r of dispatchRuns) line(`| ${r.dispatchers} | ${r.due} | ${r.sent} | ${r.canceled} | ${r.seconds.toFixed(2)} | ${r.eventsPerSecond.toFixed(0)} |`)
line()
line(`Statements per batch: ${perBatch.join(', ')} (BEGIN, one statement that claims, cancels, writes the notifications and marks sent, the stream announcement, COMMIT); every sent event has exactly one notification and nothing due is left.`)
line()
line('Plans of one batch of the backlog (replayed, rolled back):')
line()
for (const p of dispatchPlans) {
  const scans = largeSeqScans(p)
  const small = p.seqScans.filter((x) => !scans.includes(x))
  line(`- \`${oneLine(p.statement, 90)}\` — ${p.error ? `error: ${p.error}` : `${p.executionMs} ms`}` +
    (scans.length ? ` — **Seq Scan on ${scans.map((x) => `${x.table} (${x.rows} rows)`).join(', ')}**` : '') +
    (small.length ? ` (seq scan of small ${small.map((x) => `${x.table}: ${x.rows} rows`).join(', ')})` : ''))
}
line()
line('Full plans of every statement: bench/PLANS.md (written by each run, not kept in the tree).')
line()
await Bun.write(resultsPath, out.join('\n') + '\n' + kept)

const plansOut: string[] = ['# Plans', '', `EXPLAIN (ANALYZE, BUFFERS) of every statement, generated by bench/run.ts on ${new Date().toISOString()}.`, '']
const addPlans = (title: string, plans: Plan[]) => {
  plansOut.push(`## ${title}`, '')
  for (const p of plans) {
    plansOut.push('```sql', p.statement.replace(/^\s*\n/, '').replace(/\n\s*$/, ''), '```', '')
    plansOut.push('```', p.error ? `error: ${p.error}` : p.text, '```', '')
  }
}
for (const ep of endpoints) addPlans(ep.title, counted.get(ep.key)!.plans)
addPlans('dispatch: one batch', dispatchPlans)
await Bun.write(join(import.meta.dir, 'PLANS.md'), plansOut.join('\n'))

console.log('')
for (const c of checks) console.log(`${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${c.value} (target ${c.target})`)
const failed = checks.filter((c) => !c.pass).length
console.log(`\n${checks.length - failed} passed, ${failed} failed. Results: bench/RESULTS.md, plans: bench/PLANS.md (${((performance.now() - t0) / 1000).toFixed(0)} s)`)

await app.stop(true)
await db.close()
await counting.sql.end({ timeout: 5 })
await admin.end({ timeout: 5 })
process.exit(0)
