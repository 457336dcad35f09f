import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { newId } from '../../src/lib/ids.ts'
import { teacherWithCourse, type Account } from '../support/harness.ts'
import { scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { waitFor } from '../support/wait.ts'

/**
 * The background fan-out (issue 26) on two real service processes sharing one PostgreSQL: both
 * runners work the same queue at once (chunks of one student, each instance looking every
 * second), and every student still gets each notification and each event exactly once; work
 * queued by an instance that never ran it (a crash after the commit) is done by the others.
 */
describe.skipIf(!process.env.DATABASE_URL)('background fan-out on two instances', () => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>
  let a: ServiceProcess
  let b: ServiceProcess
  let sql: postgres.Sql
  let teacher: Account
  let courseId: string
  const students: string[] = []

  beforeAll(async () => {
    db = await scratchDatabase('cls_fan')
    const env = {
      DATABASE_URL: db.url,
      JWT_SECRET: 'fan-out-secret-fan-out-secret-fan-out-0123',
      FANOUT_INLINE_STUDENTS: '3',
      FANOUT_CHUNK_STUDENTS: '1',
      FANOUT_CRON: '* * * * * *',
      REMINDER_SCAN_CRON: 'off',
    }
    a = await startService({ env })
    b = await startService({ env })
    sql = postgres(db.url, { max: 2, onnotice: () => {} })
    ;({ teacher, courseId } = await teacherWithCourse(a.api))
    const rows = Array.from({ length: 20 }, (_, i) => ({ id: newId(), username: `fan${i}_${Date.now().toString(36)}`, role: 'STUDENT' }))
    await sql`insert into users ${sql(rows.map((r) => ({ ...r, email: `${r.username}@example.test`, password_hash: 'x', display_name: r.username })))}`
    await sql`insert into course_members ${sql(rows.map((r) => ({ course_id: courseId, user_id: r.id })))}`
    students.push(...rows.map((r) => r.id))
  }, 90_000)
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await sql?.end()
    await db?.drop()
  })

  const perStudent = async (announcementId: string) =>
    (await sql<{ n: number }[]>`
      select count(n.id)::int as n from unnest(${students}::uuid[]) as s (id)
        left join notifications n on n.user_id = s.id and n.params->>'announcementId' = ${announcementId}
       group by s.id`).map((r) => r.n)

  test('an announcement posted on A: each of the 20 students notified once, while B competes for the chunks', async () => {
    const r = await a.api.post(`/courses/${courseId}/announcements`, { token: teacher.token, json: { title: 'Both', content: '<p>x</p>' } })
    expect(r.status).toBe(201)
    await waitFor(async () => (await sql`select 1 from announcement_fanout where announcement_id = ${r.data.id}`).length === 0, { what: 'the fan-out to finish' })
    expect(await perStudent(r.data.id)).toEqual(Array(20).fill(1))
  })

  test('queued by an instance that stopped right after its commit: the others finish it, once per student', async () => {
    const id = newId()
    await sql.begin(async (tx) => {
      await tx`insert into announcements (id, course_id, author_id, title, content) values (${id}, ${courseId}, ${teacher.id}, 'Left over', '<p>x</p>')`
      await tx`insert into announcement_fanout (announcement_id, course_id) values (${id}, ${courseId})`
    })
    await waitFor(async () => (await sql`select 1 from announcement_fanout where announcement_id = ${id}`).length === 0, { what: 'the cron to take it up' })
    expect(await perStudent(id)).toEqual(Array(20).fill(1))
  })

  test('a homework created on B: three events per student, none twice, none canceled', async () => {
    const base = `/courses/${courseId}/learning`
    const unit = await b.api.post(`${base}/units`, { token: teacher.token, json: { title: 'U' } })
    const point = await b.api.post(`${base}/units/${unit.data.id}/points`, { token: teacher.token, json: { title: 'P' } })
    const start = new Date(Date.now() + 3_600_000)
    const r = await b.api.post(`${base}/points/${point.data.id}/tasks`, {
      token: teacher.token,
      json: { title: 'HW', taskKind: 'HOMEWORK', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>x</p>', startAt: start.toISOString(), dueAt: new Date(start.getTime() + 3 * 86_400_000).toISOString() },
    })
    expect(r.status).toBe(201)
    await waitFor(async () => (await sql`select 1 from reminder_fanout where task_id = ${r.data.id}`).length === 0, { what: 'the fan-out to finish' })
    const rows = await sql<{ n: number; canceled: number }[]>`
      select count(*)::int as n, count(*) filter (where canceled)::int as canceled from homework_reminder_events where task_id = ${r.data.id}`
    expect(rows[0]).toEqual({ n: 60, canceled: 0 })
    const per = await sql<{ n: number }[]>`select count(*)::int as n from homework_reminder_events where task_id = ${r.data.id} group by target_user_id`
    expect(per.map((x) => x.n)).toEqual(Array(20).fill(3))
  })
})
