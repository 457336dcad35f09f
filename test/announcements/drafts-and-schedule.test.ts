import { beforeAll, describe, expect, test } from 'bun:test'
import { publishScheduledAnnouncements } from '../../src/modules/announcements/service.ts'
import { ManualClock, testApp, type Client, type TestContext } from '../support/harness.ts'
import { makeWorld, UNKNOWN_ID, type World } from '../courses/world.ts'

/**
 * Issue 56.4: announcements get a draft state and an optional scheduled publish time, as tasks
 * do. Students never see a draft or a not-yet-published one; they are notified when it is
 * published, once (by PATCH or by the publisher job). A POST without the new fields publishes at
 * once, as before.
 */
let ctx: TestContext
let api: Client
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World
const HOUR = 3600_000

beforeAll(async () => {
  ctx = await testApp({ clock })
  api = ctx.api
  w = await makeWorld(api)
}, 60_000)

const base = () => `/courses/${w.course.id}/announcements`
const post = (json: unknown, token: string | null = w.teacher.token) => api.post(base(), { json, token: token ?? undefined })
const patch = (id: string, json: unknown, token: string | null = w.teacher.token) => api.patch(`${base()}/${id}`, { json, token: token ?? undefined })
const titles = async (token: string) => ((await api.get(base(), { token })).data.items as any[]).map((a) => a.title)
const total = async (token: string) => (await api.get(base(), { token })).data.total as number
const notices = async (id: string) =>
  (await ctx.deps.sql<{ n: number }[]>`select count(*)::int as n from notifications where notification_type = 'ANNOUNCEMENT' and params ->> 'announcementId' = ${id}`)[0]!.n
const runPublisher = (at: Date) => publishScheduledAnnouncements(ctx.deps.sql, at, ctx.deps.channels)

describe('drafts', () => {
  test('a draft: 201 DRAFT, hidden from students, nobody notified; publishing it notifies once', async () => {
    const r = await post({ title: 'Draft: exam rules', content: '<p>Bring a pencil.</p>', state: 'DRAFT' })
    expect([r.status, r.code, r.message]).toEqual([201, 0, 'Draft saved.'])
    expect(r.data).toMatchObject({ state: 'DRAFT', publishAt: null, publishedAt: null })
    expect(await notices(r.data.id)).toBe(0)
    expect(await titles(w.student.token)).not.toContain('Draft: exam rules')
    expect(await titles(w.teacher.token)).toContain('Draft: exam rules')

    // An edit of a draft stays a draft and tells nobody.
    const edited = await patch(r.data.id, { title: 'Exam rules' })
    expect([edited.status, edited.data.state]).toEqual([200, 'DRAFT'])
    expect(await notices(r.data.id)).toBe(0)

    clock.advance(60_000)
    const published = await patch(r.data.id, { state: 'PUBLISHED' })
    expect([published.status, published.code]).toEqual([200, 0])
    expect(published.data).toMatchObject({ state: 'PUBLISHED', publishAt: null, publishedAt: clock.now().toISOString() })
    expect(await notices(r.data.id)).toBe(1)
    expect(await titles(w.student.token)).toContain('Exam rules')
    // Publishing again changes nothing and notifies nobody again.
    expect((await patch(r.data.id, { state: 'PUBLISHED' })).status).toBe(200)
    expect(await notices(r.data.id)).toBe(1)
    // A published one cannot go back (its students were told): 409.
    const back = await patch(r.data.id, { state: 'DRAFT' })
    expect([back.status, back.code]).toEqual([409, 40900])
    const later = await patch(r.data.id, { publishAt: new Date(clock.now().getTime() + HOUR).toISOString() })
    expect([later.status, later.code]).toEqual([409, 40900])
  })

  test('students count only published ones in the total', async () => {
    const before = await total(w.student.token)
    const teacherBefore = await total(w.teacher.token)
    await post({ title: 'Another draft', content: '<p>x</p>', state: 'DRAFT' })
    expect(await total(w.student.token)).toBe(before)
    expect(await total(w.teacher.token)).toBe(teacherBefore + 1)
  })
})

describe('scheduled publishing', () => {
  test('publishAt schedules; the publisher publishes it when its time comes and notifies once', async () => {
    const at = new Date(clock.now().getTime() + 2 * HOUR)
    const r = await post({ title: 'Week 2 starts', content: '<p>Read chapter 2.</p>', publishAt: at.toISOString() })
    expect([r.status, r.message]).toEqual([201, 'Announcement scheduled.'])
    expect(r.data).toMatchObject({ state: 'SCHEDULED', publishAt: at.toISOString(), publishedAt: null })
    expect(await titles(w.student.token)).not.toContain('Week 2 starts')

    // Too early: nothing happens.
    expect(await runPublisher(new Date(at.getTime() - 1000))).toEqual({ published: 0 })
    expect(await notices(r.data.id)).toBe(0)
    // An edit of its text keeps the time.
    expect((await patch(r.data.id, { content: '<p>Read chapter 2 and 3.</p>' })).data).toMatchObject({ state: 'SCHEDULED', publishAt: at.toISOString() })

    // Two publishers at once (two instances): published and notified once.
    const runs = await Promise.all([runPublisher(at), runPublisher(at)])
    expect(runs.reduce((n, x) => n + x.published, 0)).toBe(1)
    expect(await notices(r.data.id)).toBe(1)
    const seen = (await api.get(base(), { token: w.student.token })).data.items.find((a: any) => a.title === 'Week 2 starts')
    expect(seen).toMatchObject({ state: 'PUBLISHED', publishedAt: at.toISOString(), content: '<p>Read chapter 2 and 3.</p>' })
    expect(await runPublisher(new Date(at.getTime() + HOUR))).toEqual({ published: 0 })
    expect(await notices(r.data.id)).toBe(1)
  })

  test('a scheduled one can be taken back to draft, rescheduled, or published now', async () => {
    const at = new Date(clock.now().getTime() + HOUR)
    const r = await post({ title: 'Maybe', content: '<p>x</p>', state: 'SCHEDULED', publishAt: at.toISOString() })
    const draft = await patch(r.data.id, { state: 'DRAFT' })
    expect(draft.data).toMatchObject({ state: 'DRAFT', publishAt: null })
    expect(await runPublisher(new Date(at.getTime() + 1000))).toEqual({ published: 0 })
    const moved = await patch(r.data.id, { publishAt: new Date(at.getTime() + HOUR).toISOString() })
    expect(moved.data).toMatchObject({ state: 'SCHEDULED', publishAt: new Date(at.getTime() + HOUR).toISOString() })
    const now = await patch(r.data.id, { state: 'PUBLISHED' })
    expect(now.data).toMatchObject({ state: 'PUBLISHED', publishAt: null })
    expect(await notices(r.data.id)).toBe(1)
  })

  test('an archived course keeps its scheduled announcements until it is unarchived', async () => {
    const at = new Date(clock.now().getTime() + HOUR)
    const r = await post({ title: 'During the break', content: '<p>x</p>', publishAt: at.toISOString() })
    expect((await api.patch(`/courses/${w.course.id}`, { token: w.teacher.token, json: { archived: true } })).status).toBe(200)
    expect(await runPublisher(at)).toEqual({ published: 0 })
    expect(await notices(r.data.id)).toBe(0)
    expect((await api.patch(`/courses/${w.course.id}`, { token: w.teacher.token, json: { archived: false } })).status).toBe(200)
    expect(await runPublisher(at)).toEqual({ published: 1 })
  })
})

describe('rules', () => {
  test('400: scheduling without a time, a time in the past, a time on a draft, an unknown state', async () => {
    const past = new Date(clock.now().getTime() - 1000).toISOString()
    const future = new Date(clock.now().getTime() + HOUR).toISOString()
    for (const [json, field] of [
      [{ state: 'SCHEDULED' }, 'publishAt'],
      [{ publishAt: past }, 'publishAt'],
      [{ state: 'DRAFT', publishAt: future }, 'publishAt'],
      [{ state: 'PUBLISHED', publishAt: future }, 'publishAt'],
      [{ state: 'UNPUBLISHED' }, 'state'],
      [{ publishAt: 'tomorrow' }, 'publishAt'],
    ] as const) {
      const r = await post({ title: 'Bad', content: '<p>x</p>', ...json })
      expect([r.status, r.code, json]).toEqual([400, 40001, json])
      expect(r.data.fields.map((f: any) => f.field)).toContain(field)
    }
    const draft = await post({ title: 'Fine', content: '<p>x</p>', state: 'DRAFT' })
    const r = await patch(draft.data.id, { state: 'SCHEDULED' })
    expect([r.status, r.code]).toEqual([400, 40001])
  })

  test('401 without login, 403 for a student or another teacher, 404 for an unknown announcement', async () => {
    const draft = await post({ title: 'Private', content: '<p>x</p>', state: 'DRAFT' })
    expect((await post({ title: 'x', content: '<p>x</p>', state: 'DRAFT' }, null)).status).toBe(401)
    expect((await patch(draft.data.id, { state: 'PUBLISHED' }, null)).status).toBe(401)
    for (const token of [w.student.token, w.otherTeacher.token]) {
      const p = await patch(draft.data.id, { state: 'PUBLISHED' }, token)
      expect([p.status, p.code]).toEqual([403, 40300])
      expect((await post({ title: 'x', content: '<p>x</p>', state: 'DRAFT' }, token)).status).toBe(403)
    }
    const u = await patch(UNKNOWN_ID, { state: 'PUBLISHED' })
    expect([u.status, u.code]).toEqual([404, 40409])
    const other = await api.patch(`/courses/${w.otherCourse.id}/announcements/${draft.data.id}`, { token: w.otherTeacher.token, json: { state: 'PUBLISHED' } })
    expect([other.status, other.code]).toEqual([404, 40409])
    expect(await notices(draft.data.id)).toBe(0)
  })
})
