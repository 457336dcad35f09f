/**
 * Live-stream and fan-out benchmark (issue 12): `DATABASE_URL=postgres://… bun run bench/live.ts`.
 * Not part of `bun test`. Uses a scratch database on the server named by PG_ADMIN_URL (default
 * the local server), dropped at the end.
 *
 * 1. Stream fan-out: STREAMS (5,000) open streams on one in-process instance (clients in a
 *    child process); RSS per idle stream; latency from commit to arrival on the stream for
 *    single notifications and for one announcement-style fan-out to every stream.
 * 2. Homework fan-out to 2,000 students with e-mail on: creating the homework (events) and
 *    delivering START to all (notifications + outbox rows + NOTIFY).
 * Targets: p99 ≤ 200 ms, ≤ 20 KB per idle stream, homework fan-out ≤ 150 ms.
 */
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { connectExternal } from '../src/db/connect.ts'
import { migrate } from '../src/db/migrate.ts'
import type { Deps } from '../src/deps.ts'
import { tokenSigner } from '../src/http/auth.ts'
import { systemClock } from '../src/lib/clock.ts'
import { newId } from '../src/lib/ids.ts'
import { createLogger } from '../src/lib/log.ts'
import { insertNotifications } from '../test/support/notifications.ts'
import { announceNew } from '../src/modules/notifications/bus.ts'
import { dispatch } from '../src/modules/reminders/dispatch.ts'
import { homeworkScheduleChanged } from '../src/modules/reminders/hooks.ts'
import { LocalDiskStorage } from '../src/storage/local-disk.ts'
import { scratchDatabase } from '../test/support/processes.ts'
import { withServices } from '../src/services/index.ts'

const STREAMS = Number(process.env.BENCH_STREAMS ?? 5000)
const STUDENTS = 2000
const SINGLES = 200
const SECRET = 'bench-live-secret-0123456789abcdef0123'
const log = (m: string) => console.log(`[live ${new Date().toISOString().slice(11, 19)}] ${m}`)
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN
}

const scratch = await scratchDatabase('cls_live')
const db = await connectExternal(scratch.url, 10)
const sql = db.sql
try {
  await migrate(sql)
  const config = { ...loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: join(tmpdir(), 'cls-live') }), databaseUrl: scratch.url, jwtSecret: SECRET, smtpUrl: 'smtp://127.0.0.1:1', publicUrl: 'https://bench.example.test' }
  const deps: Deps = withServices({ sql, db: db.capability, config, emailEnabled: true, clock: systemClock, log: createLogger('silent'), storage: await LocalDiskStorage.create(join(tmpdir(), 'cls-live-files')) })
  const app = buildApp(deps).listen({ port: 0, hostname: '127.0.0.1' })
  const url = `http://127.0.0.1:${app.server!.port}`

  // Users and sessions, set-based; tokens signed like the login route's.
  const users = Array.from({ length: Math.max(STREAMS, STUDENTS) }, (_, i) => ({ id: newId(), username: `lb${i}`, email: `lb${i}@bench.test`, password_hash: 'x', display_name: `lb${i}`, role: 'STUDENT' }))
  for (let i = 0; i < users.length; i += 1000) await sql`insert into users ${sql(users.slice(i, i + 1000), 'id', 'username', 'email', 'password_hash', 'display_name', 'role')}`
  const expires = new Date(Date.now() + 86400_000)
  const sessions = users.slice(0, STREAMS).map((u) => ({ id: newId(), user_id: u.id, created_at: new Date(), expires_at: expires }))
  for (let i = 0; i < sessions.length; i += 1000) await sql`insert into sessions ${sql(sessions.slice(i, i + 1000), 'id', 'user_id', 'created_at', 'expires_at')}`
  const signer = tokenSigner(SECRET)
  const tokens = await Promise.all(sessions.map((s) => signer.sign({ sid: s.id, sub: s.user_id, exp: Math.floor(expires.getTime() / 1000) })))
  const tokenFile = join(tmpdir(), `cls-live-tokens-${process.pid}`)
  await writeFile(tokenFile, tokens.join('\n'))

  Bun.gc(true)
  await Bun.sleep(500)
  const rssBefore = process.memoryUsage().rss
  log(`opening ${STREAMS} streams`)
  const client = Bun.spawn(['bun', 'bench/live-client.ts', url, tokenFile], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: '65000' },
  })
  const lines = (async function* () {
    const dec = new TextDecoder()
    let buf = ''
    const reader = (client.stdout as ReadableStream<Uint8Array>).getReader()
    for (;;) {
      const { value: chunk, done } = await reader.read()
      if (done) return
      buf += dec.decode(chunk, { stream: true })
      let i: number
      while ((i = buf.indexOf('\n')) >= 0) {
        yield buf.slice(0, i)
        buf = buf.slice(i + 1)
      }
    }
  })()
  const ready = JSON.parse((await lines.next()).value as string)
  await Bun.sleep(2000)
  Bun.gc(true)
  await Bun.sleep(500)
  const rssAfter = process.memoryUsage().rss
  const perStreamKb = (rssAfter - rssBefore) / 1024 / Math.max(1, ready.opened)
  log(`open ${ready.opened}, failed ${ready.failed}; RSS +${((rssAfter - rssBefore) / 1048576).toFixed(1)} MB = ${perStreamKb.toFixed(1)} KB per idle stream`)

  // Single notifications, one transaction each, to random stream holders.
  const commits = new Map<string, number>()
  for (let i = 0; i < SINGLES; i++) {
    const u = sessions[Math.floor(Math.random() * sessions.length)]!.user_id
    const [w] = await sql.begin(async (tx) => {
      const written = await insertNotifications(tx, [{ userId: u, type: 'ANNOUNCEMENT', title: `single ${i}`, content: '', actionPath: null }], new Date())
      await announceNew(tx, written)
      return written
    })
    commits.set(w!.id, Date.now())
    await Bun.sleep(10)
  }
  // One fan-out to every stream holder in one transaction.
  const fan = await sql.begin(async (tx) => {
    const written = await insertNotifications(tx, sessions.map((s) => ({ userId: s.user_id, type: 'ANNOUNCEMENT' as const, title: 'to everyone', content: '', actionPath: null })), new Date())
    await announceNew(tx, written)
    return written
  })
  const fanCommit = Date.now()
  for (const w of fan) commits.set(w.id, fanCommit)
  await Bun.sleep(5000)
  client.stdin!.write('done\n')
  await client.stdin!.flush()
  const { arrivals } = JSON.parse((await lines.next()).value as string) as { arrivals: [string, number][] }
  const fanIds = new Set(fan.map((w) => w.id))
  const single = arrivals.filter(([id]) => commits.has(id) && !fanIds.has(id)).map(([id, t]) => t - commits.get(id)!)
  const fanned = arrivals.filter(([id]) => fanIds.has(id)).map(([, t]) => t - fanCommit)
  log(`single notifications: ${single.length}/${SINGLES} arrived; commit→stream p50 ${pct(single, 50)} ms, p99 ${pct(single, 99)} ms, max ${Math.max(...single)} ms`)
  log(`fan-out to ${fan.length} streams: ${fanned.length} arrived; p50 ${pct(fanned, 50)} ms, p99 ${pct(fanned, 99)} ms, max ${Math.max(...fanned)} ms`)
  client.kill()
  await client.exited
  app.stop(true)

  // Homework fan-out to 2,000 students with e-mail on (outbox rows).
  const teacher = users[0]!.id
  const courseId = newId()
  await sql`insert into courses (id, teacher_id, title, description, invite_code) values (${courseId}, ${teacher}, 'Bench course', 'x', 'BENCHLIVE')`
  const members = users.slice(1, STUDENTS + 1).map((u) => ({ course_id: courseId, user_id: u.id }))
  for (let i = 0; i < members.length; i += 1000) await sql`insert into course_members ${sql(members.slice(i, i + 1000), 'course_id', 'user_id')}`
  const unitId = newId(), pointId = newId()
  await sql`insert into learning_units (id, course_id, title, sort_order) values (${unitId}, ${courseId}, 'U', 1)`
  await sql`insert into knowledge_points (id, unit_id, course_id, title, sort_order) values (${pointId}, ${unitId}, ${courseId}, 'P', 1)`
  const results: { create: number; deliver: number; outbox: number }[] = []
  for (let rep = 0; rep < 3; rep++) {
    const now = new Date()
    const taskId = newId()
    const t1 = performance.now()
    await sql.begin(async (tx) => {
      await tx`
        insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content, start_at, due_at, sort_order)
        values (${taskId}, ${pointId}, ${courseId}, ${'HW ' + rep}, 'HOMEWORK', 'MEDIA', 'TEXT', '<p>x</p>', ${now}, ${new Date(now.getTime() + 3 * 86400_000)}, ${rep + 1})`
      await homeworkScheduleChanged(tx, taskId, now, { published: true })
    })
    const t2 = performance.now()
    const sent = await dispatch(sql, now, { batchSize: 2000 })
    const t3 = performance.now()
    const [o] = await sql<{ n: number }[]>`select count(*)::int as n from email_outbox e join notifications n on n.id = e.notification_id join homework_reminder_events ev on ev.id = n.event_id where ev.task_id = ${taskId}`
    results.push({ create: t2 - t1, deliver: t3 - t2, outbox: o!.n })
    log(`homework to ${STUDENTS}: create+events ${(t2 - t1).toFixed(0)} ms; START delivered to ${sent.sent} (notifications + ${o!.n} outbox rows + NOTIFY) in ${(t3 - t2).toFixed(0)} ms`)
  }
  const best = results.reduce((a, b) => (a.deliver < b.deliver ? a : b))
  console.log('\nRESULT ' + JSON.stringify({ streams: ready.opened, perStreamKb: +perStreamKb.toFixed(1), singleP99: pct(single, 99), fanoutP99: pct(fanned, 99), homeworkCreateMs: +best.create.toFixed(0), homeworkDeliverMs: +best.deliver.toFixed(0) }))
} finally {
  await db.close()
  await scratch.drop()
}
process.exit(0)
