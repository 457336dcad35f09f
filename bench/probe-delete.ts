/**
 * Deleting a homework at MOOC scale (issue 30.3): `bun run bench/probe-delete.ts`. A fresh database
 * (cls_probe_del_<time>, dropped afterwards), migrated up to PROBE_BEFORE (default
 * 036_zzz: everything before sql/037), a course of PROBE_STUDENTS (100,000) students with four
 * homework: two whose START reminders were delivered (a notification per student), two still
 * pending. One of each is deleted (`delete from learning_tasks`, as the service deletes the row),
 * then the remaining migrations are applied and the other two are deleted: before and after on
 * the same data. Prints time and WAL per delete.
 */
import postgres from 'postgres'
import { listMigrations, migrate } from '../src/db/migrate.ts'
import { homeworkScheduleChanged } from '../src/modules/reminders/hooks.ts'
import { dispatch } from '../src/modules/reminders/dispatch.ts'

const N = Number(process.env.PROBE_STUDENTS ?? 100_000)
const BEFORE = process.env.PROBE_BEFORE ?? '036_zzz'
const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = `cls_probe_del_${Date.now().toString(36)}`
const a = postgres(admin, { max: 1, onnotice: () => {} })
await a.unsafe(`create database ${name}`)
await a.end()
const u = new URL(admin)
u.pathname = `/${name}`
const sql = postgres(u.toString(), { max: 4, onnotice: () => {} })
const id = () => Bun.randomUUIDv7()
try {
  const { mkdtempSync, copyFileSync } = await import('node:fs')
  const dir = mkdtempSync('/tmp/cls-probe-del-')
  for (const m of await listMigrations()) if (m.name < BEFORE) copyFileSync(m.path, `${dir}/${m.name}`)
  await migrate(sql, dir)
  const teacher = id()
  const course = id()
  const unit = id()
  const point = id()
  const now = new Date()
  await sql`insert into users (id, username, email, password_hash, display_name, role) values (${teacher}, 'teacher', 'teacher@example.test', 'x', 'T', 'TEACHER')`
  await sql`
    insert into users (id, username, email, password_hash, display_name, role)
    select gen_random_uuid(), 's' || i, 's' || i || '@example.test', 'x', 'S', 'STUDENT' from generate_series(1, ${N}) i`
  await sql`insert into courses (id, teacher_id, title, description, invite_code) values (${course}, ${teacher}, 'MOOC', 'x', 'MOOC1')`
  await sql`insert into course_members (course_id, user_id, joined_at) select ${course}, id, ${now} from users where role = 'STUDENT'`
  await sql`insert into learning_units (id, course_id, title, sort_order) values (${unit}, ${course}, 'U', 1)`
  await sql`insert into knowledge_points (id, unit_id, course_id, title, sort_order) values (${point}, ${unit}, ${course}, 'P', 1)`
  const task = async (startAt: Date, sort: number) => {
    const t = id()
    await sql`
      insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content, start_at, due_at,
                                  notify_on_start, notify_before_due_24h, notify_on_due, sort_order)
      values (${t}, ${point}, ${course}, 'HW', 'HOMEWORK', 'MEDIA', 'TEXT', '<p>x</p>', ${startAt}, ${new Date(startAt.getTime() + 7 * 86400_000)}, true, true, true, ${sort})`
    await sql.begin((tx) => homeworkScheduleChanged(tx, t, now, { published: true }))
    return t
  }
  const delivered = [await task(new Date(now.getTime() + 60_000), 1), await task(new Date(now.getTime() + 60_000), 2)]
  const pendingTask = [await task(new Date(now.getTime() + 86400_000), 3), await task(new Date(now.getTime() + 86400_000), 4)]
  while ((await dispatch(sql, new Date(now.getTime() + 120_000))).sent > 0);
  await sql`vacuum analyze`
  const n = (await sql<{ n: number }[]>`select count(*)::int as n from notifications`)[0]!.n
  const timed = async (what: string, taskId: string) => {
    const [w0] = await sql<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`
    const t0 = performance.now()
    await sql`delete from learning_tasks where id = ${taskId}`
    const ms = performance.now() - t0
    const [w] = await sql<{ mb: number }[]>`select round((pg_current_wal_lsn() - ${w0!.lsn}::pg_lsn) / 1048576.0, 1)::float as mb`
    console.log(`| delete a homework, ${what} (${N} students) | ${Math.round(ms)} ms | ${w!.mb} MB WAL |`)
  }
  console.log(`${n} notifications; migrations before ${BEFORE}:`)
  await timed('START reminders delivered', delivered[0]!)
  await timed('all reminders pending', pendingTask[0]!)
  console.log(`applied: ${(await migrate(sql)).join(', ')}`)
  await sql`analyze`
  await timed('START reminders delivered', delivered[1]!)
  await timed('all reminders pending', pendingTask[1]!)
} finally {
  await sql.end()
  const b = postgres(admin, { max: 1, onnotice: () => {} })
  await b.unsafe(`drop database if exists ${name} with (force)`)
  await b.end()
}
process.exit(0)
