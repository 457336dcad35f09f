import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { teacherWithCourse } from '../support/harness.ts'
import { rssOf } from './api.ts'

const MB = 1024 * 1024
const STUDENTS = 100_000
/** Issue 26's bound. Built in memory (before), the overview rose by 100-140 MB here, the CSV by ~60 MB. */
const BOUND = 64 * MB
const WARM = 6_000

/**
 * Issue 26: the grades CSV and the whole-course overview of a 100,000-student course, each read
 * 3 times from a real service process (warmed up on a 6,000-student course): both are streamed in chunks of students
 * (the overview because the course is over GRADEBOOK_STREAM_STUDENTS), so RSS rises by at most
 * 64 MB over the 3 calls, however many students. The course is written straight into the
 * service's database, so this needs DATABASE_URL. The GC is sized for 512 MiB as in the image
 * (Dockerfile): left to the 24 GiB of a build box, it lets garbage pile up far past any bound.
 */
describe.skipIf(!process.env.DATABASE_URL)('grades CSV and whole-course overview of 100,000 students on a real service process', () => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>
  let svc: ServiceProcess
  let sql: postgres.Sql
  beforeAll(async () => {
    db = await scratchDatabase('cls_gradesmem')
    svc = await startService({ env: { DATABASE_URL: db.url, JWT_SECRET: 'x'.repeat(40), REMINDER_SCAN_CRON: 'off', BACKUP_CRON: 'off', NODE_ENV: 'production', BUN_JSC_forceRAMSize: '536870912' } })
    sql = postgres(db.url, { max: 2, onnotice: () => {} })
  }, 90_000)
  afterAll(async () => {
    await sql?.end()
    await svc?.stop()
    await db?.drop()
  })

  test('RSS rises by at most 64 MB over 3 CSV exports, then over 3 whole-course overviews', async () => {
    const { teacher, courseId } = await teacherWithCourse(svc.api)
    const { teacher: warmTeacher, courseId: warm } = await teacherWithCourse(svc.api)
    await sql`
      insert into users (id, username, email, password_hash, display_name, role)
      select gen_random_uuid(), 'm' || i, 'm' || i || '@example.test', 'x', 'Student ' || i, 'STUDENT' from generate_series(1, ${STUDENTS}) i`
    await sql`insert into course_members (course_id, user_id, joined_at) select ${courseId}, id, now() from users where username like 'm%'`
    // A smaller course (still streamed) read first: the process's code and heap warmed up, so
    // what is judged is what the course's size adds.
    await sql`insert into course_members (course_id, user_id, joined_at) select ${warm}, id, now() from users where username like 'm%' limit ${WARM}`
    const [{ id: lab }] = await sql<[{ id: string }]>`
      insert into experiments (id, course_id, title, description, due_at) values (gen_random_uuid(), ${courseId}, 'Lab', '', now() + interval '7 days') returning id`
    await sql`
      insert into experiment_submissions (id, experiment_id, course_id, student_id, storage_key, file_name, file_size, content_type, submitted_at, score, graded_at)
      select gen_random_uuid(), ${lab}, ${courseId}, u.id, 'k', 'r.pdf', 1, 'application/pdf', now(), 70, now() from users u where u.username like 'm%'`
    await sql`analyze`
    for (const path of ['/grades/overview.csv', '/grades/overview']) {
      const own = await fetch(`${svc.url}/api/v1/courses/${warm}${path}`, { headers: { authorization: `Bearer ${warmTeacher.token}` } })
      expect(own.status).toBe(200)
      await own.arrayBuffer()
    }

    const pid = svc.proc.pid
    async function rise(path: string) {
      const idle = await rssOf(pid)
      let peak = idle
      let sampling = true
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await rssOf(pid))
          await Bun.sleep(20) // the sampling period, not a wait for state
        }
      })()
      let bytes = 0
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${svc.url}/api/v1/courses/${courseId}${path}`, { headers: { authorization: `Bearer ${teacher.token}` } })
        expect(res.status).toBe(200)
        bytes = 0
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength
      }
      sampling = false
      await sampler
      console.log(`${path} of ${STUDENTS} students: ${(bytes / MB).toFixed(1)} MB, RSS idle ${(idle / MB).toFixed(1)} MB, peak ${(peak / MB).toFixed(1)} MB`)
      return { bytes, rise: peak - idle }
    }
    const csv = await rise('/grades/overview.csv')
    expect(csv.bytes).toBeGreaterThan(STUDENTS * 60)
    expect(csv.rise).toBeLessThanOrEqual(BOUND)
    const overview = await rise('/grades/overview')
    expect(overview.bytes).toBeGreaterThan(STUDENTS * 200)
    expect(overview.rise).toBeLessThanOrEqual(BOUND)
  }, 120_000)
})
