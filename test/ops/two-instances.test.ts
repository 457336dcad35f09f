import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import postgres from 'postgres'
import { newId } from '../../src/lib/ids.ts'
import { addStudent, insertHomework, insertPoint } from '../support/fixtures.ts'
import { signUp, teacherWithCourse } from '../support/harness.ts'
import { freePort, scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { startS3Server, type S3Server } from '../support/s3.ts'
import { afterJobRuns, waitFor } from '../support/wait.ts'

/**
 * Issue 13.5: two real server processes on one PostgreSQL database and one bucket, each with
 * its own DATA_DIR, as a deployment behind a load balancer runs them.
 */
describe.skipIf(!process.env.DATABASE_URL)('two instances on one database and one bucket', () => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>
  let s3: S3Server
  let a: ServiceProcess
  let b: ServiceProcess
  let sql: postgres.Sql
  let metricsPort: number
  let metricsPortB: number
  beforeAll(async () => {
    db = await scratchDatabase('cls_two')
    s3 = await startS3Server()
    metricsPort = await freePort()
    metricsPortB = await freePort()
    const env = {
      DATABASE_URL: db.url,
      JWT_SECRET: 'two-instances-secret-two-instances-secret',
      // Every second, on both: they compete for the same due events.
      REMINDER_SCAN_CRON: '* * * * * *',
      ...s3.env('two/'),
    }
    ;[a, b] = await Promise.all([startService({ env: { ...env, METRICS_PORT: String(metricsPort) } }), startService({ env: { ...env, METRICS_PORT: String(metricsPortB) } })])
    sql = postgres(db.url, { max: 2, onnotice: () => {} })
  }, 90_000)
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await sql?.end()
    await s3?.stop()
    await db?.drop()
  })

  test('they have separate DATA_DIRs', () => {
    expect(a.dataDir).not.toBe(b.dataDir)
  })

  test('logout on A ends the login on B', async () => {
    const u = await signUp(a.api, 'STUDENT')
    expect((await b.api.get('/auth/me', { token: u.token })).status).toBe(200)
    expect((await a.api.post('/auth/logout', { token: u.token })).status).toBe(200)
    const after = await b.api.get('/auth/me', { token: u.token })
    expect([after.status, after.code]).toEqual([401, 40100])
  })

  test('an upload through A downloads through B (whole and ranged); a delete through B removes it for A', async () => {
    const { teacher, courseId } = await teacherWithCourse(a.api)
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 31) & 255)
    const form = new FormData()
    form.append('name', 'Slides')
    form.append('type', 'FILE')
    form.append('file', new File([bytes], '讲义.pdf', { type: 'application/pdf' }))
    const up = await a.api.post(`/courses/${courseId}/resources`, { token: teacher.token, form })
    expect(up.status).toBe(201)
    const auth = { authorization: `Bearer ${teacher.token}` }
    const whole = await fetch(`${b.url}${up.data.fileUrl}`, { headers: auth })
    expect(whole.status).toBe(200)
    expect(whole.headers.get('content-disposition')).toContain("filename*=UTF-8''%E8%AE%B2%E4%B9%89.pdf")
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff')
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(bytes)
    const part = await fetch(`${b.url}${up.data.fileUrl}`, { headers: { ...auth, range: 'bytes=1000-1999' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe('bytes 1000-1999/300000')
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(1000, 2000))
    // Nothing of it on either local disk: the bucket holds it.
    for (const dir of [a.dataDir, b.dataDir]) {
      const local = await readdir(join(dir, 'files', 'objects')).catch(() => [])
      expect(local).toEqual([])
    }
    expect((await b.api.del(`/courses/${courseId}/resources/${up.data.id}`, { token: teacher.token })).status).toBe(200)
    expect((await fetch(`${a.url}${up.data.fileUrl}`, { headers: auth })).status).toBe(404)
  })

  test('reminders are delivered exactly once with both instances scanning', async () => {
    const { courseId } = await teacherWithCourse(a.api)
    const students = await Promise.all(Array.from({ length: 6 }, () => signUp(b.api, 'STUDENT')))
    for (const s of students) await addStudent(sql, courseId, s.id)
    const { pointId } = await insertPoint(sql, courseId)
    const now = Date.now()
    const tasks: { id: string }[] = []
    for (let i = 0; i < 10; i++) {
      tasks.push(await insertHomework(sql, courseId, pointId, { title: `HW ${i}`, startAt: new Date(now - 60_000), dueAt: new Date(now + 7 * 86400_000) }))
    }
    // Due now: 60 START events, for two dispatchers that scan every second.
    const events = tasks.flatMap((t) => students.map((s) => ({ id: newId(), task_id: t.id, target_user_id: s.id, trigger_type: 'START', scheduled_at: new Date(now - 1000) })))
    // The homework rows were written directly (no service hook), so these are the only events.
    await sql`insert into homework_reminder_events ${sql(events, 'id', 'task_id', 'target_user_id', 'trigger_type', 'scheduled_at')}`
    await waitFor(
      async () => {
        const [r] = await sql<{ pending: string }[]>`select count(*) as pending from homework_reminder_events where task_id = any(${tasks.map((t) => t.id)}::uuid[]) and sent_at is null and not canceled`
        return Number(r!.pending) === 0
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'every reminder to be sent' },
    )
    // Two more whole scans on each instance (job_runs_total) must deliver nothing again.
    await afterJobRuns([metricsPort, metricsPortB], 'homework-reminders', 2)
    const rows = await sql<{ user_id: string; n: string }[]>`
      select n.user_id, count(*) as n from notifications n
        join homework_reminder_events e on e.id = n.event_id
       where e.task_id = any(${tasks.map((t) => t.id)}::uuid[])
       group by n.user_id`
    expect(rows.map((r) => Number(r.n))).toEqual(students.map(() => 10))
    // Each student sees exactly its ten, through either instance.
    const inbox = await a.api.get('/notifications?pageSize=50', { token: students[0]!.token })
    expect(inbox.data.items.filter((n: any) => n.type === 'HOMEWORK_REMINDER')).toHaveLength(10)
  }, 60_000)

  test('metrics are served on METRICS_PORT, never on the public port', async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(text).toContain('http_requests_total{method="POST",route="/api/v1/auth/logout",status="200"}')
    expect(text).toMatch(/^reminder_events_due \d+$/m)
    expect(text).toContain('notifications_created_total')
    expect(text).toContain('process_resident_memory_bytes')
    const pub = await fetch(`${a.url}/metrics`)
    expect(await pub.text()).not.toContain('http_requests_total')
  })
})
