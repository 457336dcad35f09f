import { beforeAll, describe, expect, test } from 'bun:test'
import { SseReader } from '../notifications/sse.ts'
import { signUp } from '../support/harness.ts'
import { closedAfter, twoInstances, type ServiceProcess } from '../support/processes.ts'

/*
 * Two real service processes on one PostgreSQL database: a private comment written through B
 * reaches the student's live stream held on A within 2 s, and the student's answer through A
 * reaches the teacher's stream on B — the notification pipeline's LISTEN/NOTIFY, nothing of
 * the comments' own.
 */
describe.skipIf(!process.env.DATABASE_URL)('comment notifications on the live stream across two instances', () => {
  const two = twoInstances('cls_comments_sse', { JWT_SECRET: 'two-instances-secret-0123456789abcdef', REMINDER_SCAN_CRON: 'off', STREAM_HEARTBEAT_SECONDS: '1' })
  const readers: SseReader[] = closedAfter(two)
  let a: ServiceProcess, b: ServiceProcess
  beforeAll(() => void ({ a, b } = two))

  const stream = async (svc: ServiceProcess, token: string) => {
    const res = await fetch(`${svc.url}/api/v1/notifications/stream`, { headers: { authorization: `Bearer ${token}` } })
    expect(res.status).toBe(200)
    const r = new SseReader(res.body!)
    readers.push(r)
    expect(await r.until((x) => x.of('counts').length > 0)).toBe(true)
    return r
  }

  test('a private comment through B is on the student\'s stream on A within 2 s; the answer through A on the teacher\'s stream on B', async () => {
    const teacher = await signUp(b.api, 'TEACHER', 'Prof. B')
    const student = await signUp(a.api, 'STUDENT', 'Stu A')
    const course = await b.api.post('/courses', { token: teacher.token, json: { title: 'Distributed', description: 'x' } })
    expect((await a.api.post('/courses/join', { token: student.token, json: { inviteCode: course.data.inviteCode } })).status).toBe(200)
    const base = `/courses/${course.data.id}/learning`
    const unit = await b.api.post(`${base}/units`, { token: teacher.token, json: { title: 'U' } })
    const point = await b.api.post(`${base}/units/${unit.data.id}/points`, { token: teacher.token, json: { title: 'P' } })
    const task = await b.api.post(`${base}/points/${point.data.id}/tasks`, {
      token: teacher.token,
      json: { title: 'Essay', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>Write</p>' },
    })
    expect(task.status).toBe(201)
    const thread = `${base}/tasks/${task.data.id}/students/${student.id}/comments`

    const onA = await stream(a, student.token)
    const onB = await stream(b, teacher.token)

    let started = performance.now()
    expect((await b.api.post(thread, { token: teacher.token, json: { content: '<p>See me</p>' } })).status).toBe(201)
    expect(await onA.until((r) => r.of('notification').some((e) => e.data.type === 'PRIVATE_COMMENT'), 2000)).toBe(true)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(onA.of('notification').find((e) => e.data.type === 'PRIVATE_COMMENT')!.data).toMatchObject({
      title: 'Prof. B sent a private comment on "Essay"',
      content: 'See me',
    })

    started = performance.now()
    expect((await a.api.post(thread, { token: student.token, json: { content: '<p>On my way</p>' } })).status).toBe(201)
    expect(await onB.until((r) => r.of('notification').some((e) => e.data.type === 'PRIVATE_COMMENT'), 2000)).toBe(true)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(onB.of('notification').find((e) => e.data.type === 'PRIVATE_COMMENT')!.data.content).toBe('On my way')
  }, 30_000)
})
