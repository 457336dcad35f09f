// Backend and client CPU per statement of the course reads (bench/probe-courses.ts's endpoints),
// one connection, N calls each, alternating. DATABASE_URL = a mooc bench database.
import { readFileSync } from 'node:fs'
import postgres from 'postgres'
import { sessionUser } from '../src/http/auth.ts'
import { courseAccess } from '../src/http/guards.ts'
import * as q from '../src/modules/courses/queries.ts'

const sql = postgres(process.env.DATABASE_URL!, { onnotice: () => {}, max: 1 })
const N = Number(process.env.N ?? 3000)
const pid = (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid
const ticks = (p: string) => {
  const f = readFileSync(p, 'utf8').split(') ')[1]!.split(' ')
  return (Number(f[11]) + Number(f[12])) * 10
}
const [single] = await sql<{ id: string }[]>`select id from users where username = 'bench_single'`
const [learner] = await sql<{ id: string }[]>`select id from users where username = 'bench_m000001'`
const [teacher] = await sql<{ id: string; role: 'TEACHER' }[]>`select id, role from users where username = 'bench_tmooc'`
const [mooc] = await sql<{ id: string }[]>`select id from courses where title = 'MOOC'`
const [sess] = await sql<{ id: string }[]>`select id from sessions where user_id = ${single!.id} and revoked_at is null order by created_at desc limit 1`
const [anchor] = await sql<{ anchor: Date }[]>`select anchor from bench_seed order by seeded_at desc limit 1`
const now = anchor!.anchor
const user = { id: teacher!.id, role: 'TEACHER' as const, username: '', email: '', displayName: '', createdAt: now }
const cases: [string, () => Promise<unknown>][] = [
  ['sessionUser', () => sessionUser(sql, sess!.id, now)],
  ['listCoursesOf single', () => q.listCoursesOf(sql, { id: single!.id, role: 'STUDENT' })],
  ['listCoursesOf learner', () => q.listCoursesOf(sql, { id: learner!.id, role: 'STUDENT' })],
  ['courseAccess', () => courseAccess(sql, mooc!.id, user, 'member')],
  ['findCourse', () => q.findCourse(sql, mooc!.id, teacher!.id)],
  ['listTeachers', () => q.listTeachers(sql, mooc!.id)],
  ['listStudents 49', () => q.listStudents(sql, mooc!.id, { limit: 49, offset: 0, after: null, search: null })],
  ['select 1', () => sql`select 1`],
]
for (const [, f] of cases) for (let i = 0; i < 20; i++) await f()
const out = new Map<string, { db: number[]; app: number[] }>()
for (let round = 0; round < 3; round++) {
  for (const [k, f] of cases) {
    const d0 = ticks(`/proc/${pid}/stat`)
    const a0 = ticks(`/proc/self/task/${process.pid}/stat`)
    for (let i = 0; i < N; i++) await f()
    const r = out.get(k) ?? { db: [], app: [] }
    r.db.push(((ticks(`/proc/${pid}/stat`) - d0) * 1000) / N)
    r.app.push(((ticks(`/proc/self/task/${process.pid}/stat`) - a0) * 1000) / N)
    out.set(k, r)
  }
}
for (const [k, r] of out) console.log(`${k.padEnd(24)} db ${r.db.map((x) => x.toFixed(0)).join('/').padEnd(14)} µs  client ${r.app.map((x) => x.toFixed(0)).join('/')} µs`)
await sql.end()
