import { beforeAll, describe, expect, test } from 'bun:test'
import { createTask, pointIn, world, type World } from '../learning/helpers.ts'
import { ManualClock, type Account } from '../support/harness.ts'

/** Unfolds RFC 5545 content lines and returns the VEVENT blocks as property maps. */
function events(ics: string) {
  const lines = ics.replace(/\r\n[ \t]/g, '').split('\r\n')
  const out: Record<string, string>[] = []
  let cur: Record<string, string> | null = null
  for (const line of lines) {
    if (line === 'BEGIN:VEVENT') cur = {}
    else if (line === 'END:VEVENT') {
      out.push(cur!)
      cur = null
    } else if (cur) {
      const i = line.indexOf(':')
      const name = line.slice(0, i).split(';')[0]!
      cur[name] = line.slice(i + 1)
    }
  }
  return out
}

const icsTime = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z')

describe('calendar feed', () => {
  let w: World
  let homework: any
  let learning: any
  let experiment: any
  const clock = new ManualClock('2026-11-23T08:00:00.000Z')
  const due = '2026-12-10T09:30:00.000Z'
  const expDue = '2026-12-12T16:00:00.000Z'

  const feedUrl = async (a: Account) => {
    const r = await w.api.get('/me/calendar', { token: a.token })
    expect(r.status).toBe(200)
    expect(r.code).toBe(0)
    return r.data.url as string
  }
  const fetchFeed = (url: string, headers: Record<string, string> = {}) => w.app.handle(new Request(url, { headers }))

  beforeAll(async () => {
    w = await world({ clock })
    const { point } = await pointIn(w)
    homework = await createTask(w.api, w.base, w.teacher, point.id, {
      title: 'Week 3 worksheet',
      taskKind: 'HOMEWORK',
      taskType: 'MEDIA',
      materialType: 'TEXT',
      content: '<p>Do it</p>',
      startAt: '2026-12-01T00:00:00.000Z',
      dueAt: due,
    })
    learning = await createTask(w.api, w.base, w.teacher, point.id, { title: 'Reading', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>x</p>' })
    const e = await w.api.post(`/courses/${w.course.id}/experiments`, { token: w.teacher.token, json: { title: 'Titration lab', description: '<p>Lab</p>', dueAt: expDue } })
    expect(e.status).toBe(201)
    experiment = e.data
  })

  test('401 without a login, for the URL and its rotation', async () => {
    const a = await w.api.get('/me/calendar')
    expect([a.status, a.code, a.data]).toEqual([401, 40100, null])
    const b = await w.api.post('/me/calendar/rotate')
    expect([b.status, b.code]).toEqual([401, 40100])
  })

  test('the URL is private to the user, stable until rotated, and carries at least 128 random bits', async () => {
    const url = await feedUrl(w.student)
    expect(url).toMatch(/^http:\/\/localhost\/calendar\/[A-Za-z0-9_-]{43}\.ics$/)
    expect(await feedUrl(w.student)).toBe(url)
    expect(await feedUrl(w.student2)).not.toBe(url)
    // Served under the web prefix as well.
    const core = await w.app.handle(new Request('http://localhost/core/api/v1/me/calendar', { headers: { authorization: `Bearer ${w.student.token}` } }))
    expect(((await core.json()) as any).data.url).toBe(url)
  })

  test("a student's feed lists the homework and experiment deadlines of the joined course, nothing else", async () => {
    const res = await fetchFeed(await feedUrl(w.student))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8')
    const text = await res.text()
    expect(text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true)
    expect(text).toContain('VERSION:2.0')
    const evs = events(text)
    expect(evs.map((e) => e.UID).sort()).toEqual([`${experiment.id}@course-learning-service`, `${homework.id}@course-learning-service`].sort())
    const hw = evs.find((e) => e.UID === `${homework.id}@course-learning-service`)!
    expect(hw.DTSTART).toBe(icsTime(due))
    expect(hw.SUMMARY).toContain('Week 3 worksheet')
    expect(hw.SUMMARY).toContain(w.course.title)
    expect(hw.URL).toBe(`http://localhost/courses/${w.course.id}?taskId=${homework.id}`)
    expect(hw.SEQUENCE).toBe('0')
    const ex = evs.find((e) => e.UID === `${experiment.id}@course-learning-service`)!
    expect(ex.DTSTART).toBe(icsTime(expDue))
    expect(ex.URL).toBe(`http://localhost/experiments/${experiment.id}?courseId=${w.course.id}`)
    expect(text).not.toContain(learning.id)
  })

  test("the teacher's feed lists the taught course's deadlines; an outsider's feed has none of them", async () => {
    const teacherEvents = events(await (await fetchFeed(await feedUrl(w.teacher))).text())
    expect(teacherEvents.map((e) => e.UID)).toContain(`${homework.id}@course-learning-service`)
    const outsiderText = await (await fetchFeed(await feedUrl(w.outsider))).text()
    expect(outsiderText).not.toContain(homework.id)
    expect(outsiderText).not.toContain(experiment.id)
  })

  test('ETag and 304; moving the deadline bumps SEQUENCE and LAST-MODIFIED and changes the ETag', async () => {
    const url = await feedUrl(w.student2)
    const first = await fetchFeed(url)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
    const before = events(await first.text()).find((e) => e.UID?.startsWith(homework.id))!
    const again = await fetchFeed(url, { 'if-none-match': etag })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')

    const moved = '2026-12-11T09:30:00.000Z'
    clock.advance(60_000)
    const r = await w.api.patch(`${w.base}/tasks/${homework.id}`, { token: w.teacher.token, json: { dueAt: moved } })
    expect(r.status).toBe(200)
    const after = await fetchFeed(url, { 'if-none-match': etag })
    expect(after.status).toBe(200)
    expect(after.headers.get('etag')).not.toBe(etag)
    const ev = events(await after.text()).find((e) => e.UID?.startsWith(homework.id))!
    expect(ev.DTSTART).toBe(icsTime(moved))
    expect(Number(ev.SEQUENCE)).toBe(Number(before.SEQUENCE) + 1)
    expect(before['LAST-MODIFIED']).toBe('20261123T080000Z')
    expect(ev['LAST-MODIFIED']).toBe('20261123T080100Z')
    // Other events keep their revision.
    const exp = events(await (await fetchFeed(url)).text()).find((e) => e.UID?.startsWith(experiment.id))!
    expect(exp.SEQUENCE).toBe('0')
  })

  test('rotating gives a new URL and the old one answers 404 at once', async () => {
    const old = await feedUrl(w.student)
    const r = await w.api.post('/me/calendar/rotate', { token: w.student.token })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data.url).not.toBe(old)
    expect(r.data.url).toMatch(/\/calendar\/[A-Za-z0-9_-]{43}\.ics$/)
    const gone = await fetchFeed(old)
    expect(gone.status).toBe(404)
    expect(((await gone.json()) as any).code).toBe(40400)
    expect((await fetchFeed(r.data.url)).status).toBe(200)
    expect(await feedUrl(w.student)).toBe(r.data.url)
  })

  test('unknown, malformed and extension-less tokens are 404, never 500', async () => {
    for (const path of ['/calendar/' + 'A'.repeat(43) + '.ics', '/calendar/nope.ics', '/calendar/%00.ics', '/calendar/' + 'x'.repeat(190), "/calendar/'%20or%201=1.ics"]) {
      const res = await w.app.handle(new Request(`http://localhost${path}`))
      expect({ path, status: res.status }).toEqual({ path, status: 404 })
    }
    const url = await feedUrl(w.student2)
    expect((await w.app.handle(new Request(url.replace(/\.ics$/, '')))).status).toBe(404)
  })

  test("summaries follow the owner's language", async () => {
    await w.deps.sql`update users set locale = 'zh-CN' where id = ${w.student2.id}`
    const text = await (await fetchFeed(await feedUrl(w.student2))).text()
    const ev = events(text).find((e) => e.UID?.startsWith(homework.id))!
    expect(ev.SUMMARY).toContain('作业截止')
    expect(text).toContain('课程截止日期')
    await w.deps.sql`update users set locale = null where id = ${w.student2.id}`
    const en = events(await (await fetchFeed(await feedUrl(w.student2))).text()).find((e) => e.UID?.startsWith(homework.id))!
    expect(en.SUMMARY).toContain('homework due')
  })

  test('PUBLIC_URL is the base of the feed URL and of event links', async () => {
    const { testApp } = await import('../support/harness.ts')
    // The same clock as the world's: its sessions were made at that time, and on the system
    // clock they expire a week after it (this test began to fail on 30 Nov 2026).
    const ctx = await testApp({ clock, config: { publicUrl: 'https://learn.example.edu' } })
    const r = await ctx.api.get('/me/calendar', { token: w.student.token })
    expect(r.data.url.startsWith('https://learn.example.edu/calendar/')).toBe(true)
    const text = await (await ctx.app.handle(new Request(r.data.url.replace('https://learn.example.edu', 'http://localhost')))).text()
    expect(events(text).find((e) => e.UID?.startsWith(homework.id))!.URL).toBe(`https://learn.example.edu/courses/${w.course.id}?taskId=${homework.id}`)
  })
})
