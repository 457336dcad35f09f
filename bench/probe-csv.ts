/**
 * The grades CSV of a 100,000-student course (issue 26): `bun run bench/probe-csv.ts`. A fresh
 * database (cls_probe_csv_<time>, dropped afterwards) with a course of PROBE_STUDENTS (100,000)
 * students, 5 homework, one graded submission per student. Then, in a child process per tree
 * (this one, and PROBE_OLD_ROOT when set: an older commit's checkout), 5 exports in a row through
 * the service function the route calls; each child reports the time per export, the size, and
 * its RSS growth (peak sampled every 20 ms, minus before the first export).
 */
import { join } from 'node:path'
import postgres from 'postgres'
import { migrate } from '../src/db/migrate.ts'

if (process.argv[2] === 'child') {
  const root = process.argv[3]!
  const courseId = process.argv[4]!
  const { overviewCsv } = await import(join(root, 'src/modules/grades/service.ts'))
  const sql = postgres(process.env.DATABASE_URL!, { max: 4, onnotice: () => {} })
  await sql`select 1`
  const rss = () => process.memoryUsage.rss() / 1048576
  Bun.gc(true)
  const before = rss()
  let peak = before
  const timer = setInterval(() => (peak = Math.max(peak, rss())), 20)
  const times: number[] = []
  let bytes = 0
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now()
    // Since issue 29.6 the export takes the time (Missing cells); an older tree's does not.
    const body = await (overviewCsv.length >= 3 ? overviewCsv(sql, courseId, new Date()) : overviewCsv(sql, courseId))
    // What the route hands to Response: a string (old) or a Blob (new); both are sent whole.
    bytes = typeof body === 'string' ? Buffer.byteLength(body) : body.size
    times.push(Math.round(performance.now() - t0))
  }
  clearInterval(timer)
  console.log(`RESULT ${JSON.stringify({ times, bytes, growth: Math.round(Math.max(peak, rss()) - before) })}`)
  await sql.end()
  process.exit(0)
}

const N = Number(process.env.PROBE_STUDENTS ?? 100_000)
const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = `cls_probe_csv_${Date.now().toString(36)}`
const a = postgres(admin, { max: 1, onnotice: () => {} })
await a.unsafe(`create database ${name}`)
await a.end()
const u = new URL(admin)
u.pathname = `/${name}`
const url = u.toString()
const sql = postgres(url, { max: 4, onnotice: () => {} })
try {
  await migrate(sql)
  const id = () => Bun.randomUUIDv7()
  const [teacher, course, unit, point] = [id(), id(), id(), id()]
  await sql`insert into users (id, username, email, password_hash, display_name, role) values (${teacher}, 'teacher', 'teacher@example.test', 'x', 'T', 'TEACHER')`
  await sql`
    insert into users (id, username, email, password_hash, display_name, role)
    select gen_random_uuid(), 's' || i, 's' || i || '@example.test', 'x', 'Student ' || i, 'STUDENT' from generate_series(1, ${N}) i`
  await sql`insert into courses (id, teacher_id, title, description, invite_code) values (${course}, ${teacher}, 'MOOC', 'x', 'MOOC1')`
  await sql`insert into course_members (course_id, user_id, joined_at) select ${course}, id, now() from users where role = 'STUDENT'`
  await sql`insert into learning_units (id, course_id, title, sort_order) values (${unit}, ${course}, 'U', 1)`
  await sql`insert into knowledge_points (id, unit_id, course_id, title, sort_order) values (${point}, ${unit}, ${course}, 'P', 1)`
  const tasks = [id(), id(), id(), id(), id()]
  for (const [i, t] of tasks.entries())
    await sql`
      insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content, start_at, due_at,
                                  notify_on_start, notify_before_due_24h, notify_on_due, sort_order)
      values (${t}, ${point}, ${course}, ${'Homework ' + (i + 1)}, 'HOMEWORK', 'MEDIA', 'TEXT', '<p>x</p>', now(), now() + interval '7 days', false, false, false, ${i + 1})`
  await sql`
    insert into learning_submissions (id, task_id, course_id, student_id, content, status, score, submitted_at, graded_at, graded_by)
    select gen_random_uuid(), (${sql.array(tasks)}::uuid[])[1 + (abs(hashtext(u.id::text)) % 5)], ${course}, u.id, 'answer', 'GRADED',
           (abs(hashtext(u.username)) % 101), now(), now(), ${teacher}
      from users u where u.role = 'STUDENT'`
  await sql`vacuum analyze`
  const roots = [['new', join(import.meta.dir, '..')], ...(process.env.PROBE_OLD_ROOT ? [['old', process.env.PROBE_OLD_ROOT]] : [])]
  for (const [label, root] of roots) {
    const child = Bun.spawn([process.execPath, import.meta.path, 'child', root!, course], {
      env: { ...process.env, DATABASE_URL: url, BUN_JSC_forceRAMSize: '536870912' },
      stdout: 'pipe',
      stderr: 'inherit',
    })
    const out = await new Response(child.stdout).text()
    const r = JSON.parse(/RESULT (\{.*\})/.exec(out)![1]!) as { times: number[]; bytes: number; growth: number }
    console.log(`| grades CSV, ${N} students (${label}) | ${(r.bytes / 1048576).toFixed(1)} MB | ${r.times.join(', ')} ms | RSS +${r.growth} MB over 5 exports | ${r.growth <= 64 ? 'PASS' : 'FAIL'} |`)
  }
} finally {
  await sql.end()
  const b = postgres(admin, { max: 1, onnotice: () => {} })
  await b.unsafe(`drop database if exists ${name} with (force)`)
  await b.end()
}
process.exit(0)
