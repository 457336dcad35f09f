/**
 * Issue 53's benchmark row: a task's class thread of 5,000 comments pages as fast as one of 50
 * (target: ≥ 0.8 × the small thread's req/s, on the first page and on a deep one). Pages are
 * keyset pages over sql/055's thread index, so the depth and the length of a thread should not
 * matter; an OFFSET or a count of the thread would.
 *
 *   bun bench/comments.ts
 *
 * It creates the database PROBE_DB (default cls_bench_comments; dropped first if it exists) on
 * the server of PG_ADMIN_URL (default postgres://postgres@127.0.0.1:5432/postgres), migrates it,
 * seeds both threads with one bulk INSERT each, starts the service in a process of its own
 * (bench/serve.ts) and drives it with wrk (Debian's, /usr/bin/wrk). PROBE_RUNS (default 3)
 * interleaved wrk runs of PROBE_SECONDS (default 5) with 16 connections per URL; medians compared.
 */
import postgres from 'postgres'
import { migrate } from '../src/db/migrate.ts'
import type { Sql } from '../src/db/connect.ts'
import { startServer, wrk } from './wrk.ts'

const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = process.env.PROBE_DB ?? 'cls_bench_comments'
if (!/^[a-z0-9_]+$/.test(name)) throw new Error('PROBE_DB: lower-case letters, digits and _ only')
const runs = Number(process.env.PROBE_RUNS ?? 3)
const seconds = Number(process.env.PROBE_SECONDS ?? 5)
const SMALL = 50
const BIG = 5_000
const PAGE = 20

const a = postgres(admin, { max: 1, onnotice: () => {} })
await a.unsafe(`drop database if exists ${name} with (force)`)
await a.unsafe(`create database ${name}`)
await a.end()
const url = new URL(admin)
url.pathname = `/${name}`
const sql = postgres(url.toString(), { max: 2, onnotice: () => {} }) as unknown as Sql
await migrate(sql)

const server = await startServer('service', { DATABASE_URL: url.toString() })
const call = async (path: string, body: unknown, token?: string) => {
  const r = await fetch(server.base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })
  const j = (await r.json()) as { data: any }
  if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(j)}`)
  return j
}
async function account(username: string, role: 'STUDENT' | 'TEACHER') {
  const reg = await call('/auth/register', { username, email: `${username}@example.test`, password: 'probe-password-1', role })
  const token = (await call('/auth/login', { identifier: username, password: 'probe-password-1' })).data.accessToken as string
  return { id: reg.data.id as string, token }
}

/** The thread's cursor after its `n`-th comment (oldest first), as the service writes it. */
async function cursorAfter(taskId: string, n: number) {
  const [row] = await sql<{ created_at: Date; id: string }[]>`
    select created_at, id from comments where task_id = ${taskId} and student_id is null order by created_at, id offset ${n - 1} limit 1`
  return Buffer.from(`${row!.created_at.toISOString()}|${row!.id}`).toString('base64url')
}

try {
  const teacher = await account('bench_teacher', 'TEACHER')
  const student = await account('bench_student', 'STUDENT')
  const course = (await call('/courses', { title: 'Comments', description: '' }, teacher.token)).data
  await call('/courses/join', { inviteCode: course.inviteCode }, student.token)
  const base = `/courses/${course.id}/learning`
  const unit = (await call(`${base}/units`, { title: 'U' }, teacher.token)).data
  const point = (await call(`${base}/units/${unit.id}/points`, { title: 'P' }, teacher.token)).data
  const task = async (title: string) =>
    (await call(`${base}/points/${point.id}/tasks`, { title, taskType: 'MEDIA', materialType: 'TEXT', content: '<p>x</p>' }, teacher.token)).data.id as string
  const small = await task('Small thread')
  const big = await task('Big thread')
  // Other threads around them, so the index holds more than the two being read.
  const others = await Promise.all([1, 2, 3].map((i) => task(`Other ${i}`)))

  const t0 = performance.now()
  for (const [taskId, n] of [[small, SMALL], [big, BIG], ...others.map((o) => [o, BIG] as const)] as const) {
    await sql`
      insert into comments (id, course_id, task_id, author_id, content, created_at)
      select gen_uuid_v7(), ${course.id}, ${taskId}, case when g % 3 = 0 then ${teacher.id}::uuid else ${student.id}::uuid end,
             '<p>Comment ' || g || ': a question about the reading, with <b>some</b> markup.</p>',
             timestamptz '2031-01-01T00:00:00Z' + g * interval '1 minute'
        from generate_series(1, ${n}::int) g`
  }
  console.log(`seeded ${SMALL + BIG * 4} comments in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  await sql`vacuum analyze`

  const thread = (taskId: string) => `${server.base}${base}/tasks/${taskId}/comments?pageSize=${PAGE}`
  const urls = {
    smallFirst: thread(small),
    bigFirst: thread(big),
    smallDeep: `${thread(small)}&after=${await cursorAfter(small, SMALL - PAGE)}`,
    bigDeep: `${thread(big)}&after=${await cursorAfter(big, BIG - PAGE)}`,
  }
  // Every URL answers a full page (the deep ones: the thread's last PAGE comments).
  for (const [k, u] of Object.entries(urls)) {
    const r = (await (await fetch(u, { headers: { authorization: `Bearer ${student.token}` } })).json()) as { data: { items: unknown[] } }
    if (r.data.items.length !== PAGE) throw new Error(`${k}: ${r.data.items.length} items`)
  }
  const rps: Record<keyof typeof urls, number[]> = { smallFirst: [], bigFirst: [], smallDeep: [], bigDeep: [] }
  for (const k of Object.keys(urls) as (keyof typeof urls)[]) await wrk({ url: urls[k], token: student.token, connections: 16, seconds: 1 })
  for (let i = 0; i < runs; i++) {
    for (const k of Object.keys(urls) as (keyof typeof urls)[]) {
      const r = await wrk({ url: urls[k], token: student.token, connections: 16, seconds })
      if (r.errors) throw new Error(`${k}: ${r.errors} errors`)
      rps[k].push(r.rps)
      console.log(`run ${i + 1} ${k}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`)
    }
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
  const rows = [
    ['first page', median(rps.smallFirst), median(rps.bigFirst)],
    ['deep page', median(rps.smallDeep), median(rps.bigDeep)],
  ] as const
  console.log(`\n| page (${PAGE} comments) | ${SMALL} comments req/s | ${BIG} comments req/s | ratio | target ≥ 0.8 |`)
  console.log('|---|---|---|---|---|')
  for (const [label, s, b] of rows) console.log(`| ${label} | ${s.toFixed(0)} | ${b.toFixed(0)} | ${(b / s).toFixed(2)} | ${b / s >= 0.8 ? 'PASS' : 'FAIL'} |`)
  const plan = await sql<{ 'QUERY PLAN': string }[]>`
    explain (format text) select c.id from comments c
     where c.task_id = ${big} and c.task_id is not null and c.student_id is null
       and (c.created_at, c.id) > (timestamptz '2031-01-04T00:00:00Z', '00000000-0000-7000-8000-000000000000'::uuid)
     order by c.created_at, c.id limit ${PAGE + 1}`
  console.log(`\nplan of a deep page:\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`)
} finally {
  await server.stop()
  await sql.end()
  const d = postgres(admin, { max: 1, onnotice: () => {} })
  await d.unsafe(`drop database if exists ${name} with (force)`)
  await d.end()
}
