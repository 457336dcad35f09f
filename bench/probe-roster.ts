/**
 * Issue 23's benchmark row: GET /courses for a student of a 30-student seminar, in a database
 * without and then with a 100,000-student course (target: with ≥ 0.9 × without). Before
 * sql/034 memberCount was counted per request, and the big course cost every user.
 *
 *   PROBE_DB=cls_probe_roster bun bench/probe-roster.ts
 *
 * It creates the database PROBE_DB (dropped first if it exists) on the server of PG_ADMIN_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres), migrates it, starts the service in a
 * process of its own (bench/serve.ts) and drives it with wrk. PROBE_RUNS (default 3) wrk runs
 * of PROBE_SECONDS (default 6) with 32 connections each side; the medians are compared.
 */
import postgres from 'postgres'
import { migrate } from '../src/db/migrate.ts'
import type { Sql } from '../src/db/connect.ts'
import { startServer, wrk } from './wrk.ts'

const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = process.env.PROBE_DB ?? 'cls_probe_roster'
if (!/^[a-z0-9_]+$/.test(name)) throw new Error('PROBE_DB: lower-case letters, digits and _ only')
const runs = Number(process.env.PROBE_RUNS ?? 3)
const seconds = Number(process.env.PROBE_SECONDS ?? 6)
const BIG = Number(process.env.PROBE_STUDENTS ?? 100_000)

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
  return (await r.json()) as { data: any }
}
async function account(username: string, role: 'STUDENT' | 'TEACHER') {
  await call('/auth/register', { username, email: `${username}@example.test`, password: 'probe-password-1', role })
  return (await call('/auth/login', { identifier: username, password: 'probe-password-1' })).data.accessToken as string
}

try {
  const teacher = await account('probe_teacher', 'TEACHER')
  const student = await account('probe_student', 'STUDENT')
  const seminar = (await call('/courses', { title: 'Seminar', description: '' }, teacher)).data
  await call('/courses/join', { inviteCode: seminar.inviteCode }, student)
  await sql`
    insert into users (id, username, email, password_hash, display_name, role)
    select gen_uuid_v7(), 'sem_' || g, 'sem_' || g || '@example.test', 'x', 'Seminar ' || g, 'STUDENT' from generate_series(1, 29) g`
  await sql`insert into course_members (course_id, user_id) select ${seminar.id}, id from users where username like 'sem\\_%'`
  await sql`vacuum analyze`

  const measure = async (label: string) => {
    const rps: number[] = []
    await wrk({ url: `${server.base}/courses`, token: student, connections: 32, seconds: 2 })
    for (let i = 0; i < runs; i++) {
      const r = await wrk({ url: `${server.base}/courses`, token: student, connections: 32, seconds })
      if (r.errors) throw new Error(`${label}: ${r.errors} errors`)
      rps.push(r.rps)
      console.log(`${label} run ${i + 1}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`)
    }
    return rps.sort((x, y) => x - y)[Math.floor(rps.length / 2)]!
  }

  const without = await measure('without the big course')
  const mooc = (await call('/courses', { title: 'MOOC', description: '' }, teacher)).data
  const t0 = performance.now()
  await sql`
    insert into users (id, username, email, password_hash, display_name, role)
    select gen_uuid_v7(), 'mooc_' || g, 'mooc_' || g || '@example.test', 'x', 'Learner ' || g, 'STUDENT' from generate_series(1, ${BIG}::int) g`
  await sql`insert into course_members (course_id, user_id) select ${mooc.id}, id from users where username like 'mooc\\_%'`
  console.log(`inserted ${BIG} students into one course in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  await sql`vacuum analyze`
  const withBig = await measure(`with a ${BIG}-student course`)
  const ratio = withBig / without
  console.log(`GET /courses (seminar student): ${without.toFixed(0)} req/s without, ${withBig.toFixed(0)} req/s with; ratio ${ratio.toFixed(2)} (target ≥ 0.90): ${ratio >= 0.9 ? 'PASS' : 'FAIL'}`)
} finally {
  await server.stop()
  await sql.end()
  const d = postgres(admin, { max: 1, onnotice: () => {} })
  await d.unsafe(`drop database if exists ${name} with (force)`)
  await d.end()
}
