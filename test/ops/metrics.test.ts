import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { countEmail, serveMetrics, setSseStreams } from '../../src/metrics.ts'
import { world, type World } from '../experiments/world.ts'
import { testApp, type TestContext } from '../support/harness.ts'
import { freePort } from '../support/processes.ts'

let ctx: TestContext
let w: World
let server: ReturnType<typeof serveMetrics>
let url: string
beforeAll(async () => {
  ctx = await testApp()
  w = await world(ctx, { students: 2 })
  const port = await freePort()
  server = serveMetrics({ port, hostname: '127.0.0.1', sql: ctx.deps.sql, log: ctx.deps.log })
  url = `http://127.0.0.1:${port}/metrics`
}, 60_000)
afterAll(() => server?.stop(true))

const scrape = async () => {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/plain')
  return res.text()
}
/** The value of one sample line, e.g. sample(text, 'http_requests_total', { method: 'GET', ... }). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue
    const m = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((x) => [x[1], x[2]]))
    if (Object.entries(labels).every(([k, v]) => got[k] === v) && Object.keys(got).length === Object.keys(labels).length) return Number(m[3])
  }
  return undefined
}

describe('METRICS_PORT /metrics', () => {
  test('request counts and durations are labelled by route template, never by raw path', async () => {
    const before = await scrape()
    const route = '/api/v1/courses/:courseId'
    const n0 = sample(before, 'http_requests_total', { method: 'GET', route, status: '200' }) ?? 0
    for (let i = 0; i < 3; i++) expect((await ctx.api.get(`/courses/${w.course.id}`, { token: w.teacher.token })).status).toBe(200)
    expect((await ctx.api.get(`/courses/${w.otherCourse.id}`, { token: w.teacher.token })).status).toBe(403)
    expect((await ctx.api.get(`/no/such/${w.course.id}`)).status).toBe(404)
    const text = await scrape()
    expect(sample(text, 'http_requests_total', { method: 'GET', route, status: '200' })).toBe(n0 + 3)
    expect(sample(text, 'http_requests_total', { method: 'GET', route, status: '403' })).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route })).toBeGreaterThanOrEqual(n0 + 4)
    expect(sample(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1)
    // No raw path (with an id in it) is ever a label value.
    expect(text).not.toContain(w.course.id)
    expect(text).not.toContain(w.otherCourse.id)
  })

  test('notifications_created_total counts announcements (one per student) and grading notifications', async () => {
    const n0 = sample(await scrape(), 'notifications_created_total', { type: 'ANNOUNCEMENT' }) ?? 0
    const res = await ctx.api.post(`/courses/${w.course.id}/announcements`, { json: { title: 'Lab moved', content: '<p>Room 2</p>' }, token: w.teacher.token })
    expect(res.status).toBe(201)
    expect(sample(await scrape(), 'notifications_created_total', { type: 'ANNOUNCEMENT' })).toBe(n0 + 2)
  })

  test('reminder gauges (collected by a query at scrape time), e-mail and stream metrics, process metrics', async () => {
    countEmail('sent')
    setSseStreams(3)
    const text = await scrape()
    for (const name of ['reminder_events_due', 'reminder_dispatch_lag_seconds', 'fanout_queued', 'fanout_oldest_seconds', 'sse_streams_open', 'process_resident_memory_bytes']) {
      expect(sample(text, name)).toBeNumber()
    }
    expect(sample(text, 'reminder_events_due')).toBeGreaterThanOrEqual(0)
    expect(sample(text, 'sse_streams_open')).toBe(3)
    expect(sample(text, 'emails_sent_total', { result: 'sent' })).toBeGreaterThanOrEqual(1)
    expect(text).toContain('# TYPE notifications_created_total counter')
    expect(text).toContain('# TYPE http_request_duration_seconds histogram')
  })

  test('fanout_queued counts a job once, whatever its parts (sql/050)', async () => {
    const sql = ctx.deps.sql
    const q0 = sample(await scrape(), 'fanout_queued')!
    const [a] = await sql<{ id: string }[]>`
      insert into announcements (id, course_id, author_id, title, content)
      values (gen_uuid_v7(), ${w.course.id}, ${w.teacher.id}, 'Queued in parts', '<p>x</p>') returning id`
    await sql`insert into announcement_fanout (announcement_id, course_id, part, after_user, up_to_user)
              values (${a!.id}, ${w.course.id}, 0, null, ${w.students[0]!.id}), (${a!.id}, ${w.course.id}, 1, ${w.students[0]!.id}, null)`
    try {
      expect(sample(await scrape(), 'fanout_queued')).toBe(q0 + 1)
    } finally {
      await sql`delete from announcements where id = ${a!.id}`
    }
    expect(sample(await scrape(), 'fanout_queued')).toBe(q0)
  })

  test('only /metrics is served there', async () => {
    expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404)
    expect((await fetch(url, { method: 'POST' })).status).toBe(405)
  })

  test('the public app has no /metrics', async () => {
    const res = await ctx.app.handle(new Request('http://localhost/metrics'))
    expect(res.status).not.toBe(200)
    expect(await res.text()).not.toContain('http_requests_total')
  })
})
