/**
 * The grades CSV and the whole-course grade overview of a 100,000-student course (issue 26):
 * `bun run bench/probe-csv.ts`. A fresh database (cls_probe_csv_<time>, dropped afterwards) with
 * a course of PROBE_STUDENTS (100,000) students, 5 homework (one graded submission per student)
 * and 2 experiments (a submission from every fifth student, half of them graded). Then, per tree
 * (this one, and PROBE_OLD_ROOT when set: an older commit's checkout with node_modules), the
 * service as a process of its own (that tree's bench/serve.ts, GC sized for 512 MiB as in the
 * image), and over HTTP 3 CSV exports, then 3 whole-course overviews, each read to the end;
 * reported: size, time per call, and RSS growth of the service (peak sampled every 20 ms, minus
 * RSS before the first call of the row).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { migrate } from '../src/db/migrate.ts'

const PASSWORD = 'probe-password-1'

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
  const hash = await Bun.password.hash(PASSWORD, { algorithm: 'argon2id' })
  await sql`insert into users (id, username, email, password_hash, display_name, role) values (${teacher}, 'teacher', 'teacher@example.test', ${hash}, 'T', 'TEACHER')`
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
  const labs = [id(), id()]
  for (const [i, e] of labs.entries())
    await sql`insert into experiments (id, course_id, title, description, due_at) values (${e}, ${course}, ${'Lab ' + (i + 1)}, '', now() + interval '7 days')`
  await sql`
    insert into experiment_submissions (id, experiment_id, course_id, student_id, storage_key, file_name, file_size, content_type, submitted_at, score, graded_at, graded_by)
    select gen_random_uuid(), (${sql.array(labs)}::uuid[])[1 + (abs(hashtext(u.username)) % 2)], ${course}, u.id, 'k', 'report.pdf', 1000, 'application/pdf', now(),
           case when abs(hashtext(u.id::text)) % 2 = 0 then 50 + abs(hashtext(u.username)) % 50 end,
           case when abs(hashtext(u.id::text)) % 2 = 0 then now() end, case when abs(hashtext(u.id::text)) % 2 = 0 then ${teacher}::uuid end
      from users u where u.role = 'STUDENT' and abs(hashtext(u.username)) % 5 = 0`
  await sql`vacuum analyze`
  const roots = [['new', join(import.meta.dir, '..')], ...(process.env.PROBE_OLD_ROOT ? [['old', process.env.PROBE_OLD_ROOT]] : [])]
  for (const [label, root] of roots) {
    const proc = Bun.spawn([process.execPath, join(root!, 'bench/serve.ts'), 'service', '0'], {
      env: { ...process.env, DATABASE_URL: url, BUN_JSC_forceRAMSize: '536870912' },
      stdout: 'pipe',
      stderr: 'inherit',
    })
    try {
      const reader = proc.stdout.getReader()
      let text = ''
      while (!/LISTENING (\d+)/.test(text)) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`${label}: the service exited: ${text}`)
        text += new TextDecoder().decode(value)
      }
      reader.releaseLock()
      const base = `http://127.0.0.1:${/LISTENING (\d+)/.exec(text)![1]}/api/v1`
      const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))![1]) / 1024
      const login = await fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ identifier: 'teacher', password: PASSWORD }) })
      const token = ((await login.json()) as any).data.accessToken as string
      for (const [what, path] of [
        ['grades CSV', `/courses/${course}/grades/overview.csv`],
        ['grade overview, whole course', `/courses/${course}/grades/overview`],
      ] as const) {
        const before = rss()
        let peak = before
        const timer = setInterval(() => (peak = Math.max(peak, rss())), 20)
        const times: number[] = []
        let bytes = 0
        let digest = ''
        for (let i = 0; i < 3; i++) {
          const t0 = performance.now()
          const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } })
          if (res.status !== 200) throw new Error(`${label} ${path}: ${res.status}`)
          bytes = 0
          const hash = new Bun.CryptoHasher('sha1')
          const r = res.body!.getReader()
          for (let c = await r.read(); !c.done; c = await r.read()) {
            bytes += c.value.length
            hash.update(c.value)
          }
          digest = hash.digest('hex').slice(0, 12)
          times.push(Math.round(performance.now() - t0))
        }
        clearInterval(timer)
        const growth = Math.round(Math.max(peak, rss()) - before)
        console.log(`| ${what}, ${N} students (${label}) | ${(bytes / 1048576).toFixed(1)} MB (sha1 ${digest}) | ${times.join(', ')} ms | RSS ${before.toFixed(0)} → ${(before + growth).toFixed(0)} MB (+${growth}) over 3 calls | ${growth <= 64 ? 'PASS' : 'FAIL'} |`)
      }
    } finally {
      proc.kill()
      await proc.exited
    }
  }
} finally {
  await sql.end()
  const b = postgres(admin, { max: 1, onnotice: () => {} })
  await b.unsafe(`drop database if exists ${name} with (force)`)
  await b.end()
}
process.exit(0)
