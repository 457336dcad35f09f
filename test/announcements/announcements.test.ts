import { beforeAll, describe, expect, test } from 'bun:test'
import { excerpt, EXCERPT_MAX } from '../../src/modules/announcements/plain-text.ts'
import { client, ManualClock, signUp, testApp, type Client, type TestContext } from '../support/harness.ts'
import { BIG, createCourse, join, makeWorld, UNKNOWN_ID, type World } from '../courses/world.ts'


let ctx: TestContext
let api: Client
let clock: ManualClock
let w: World

beforeAll(async () => {
  clock = new ManualClock('2026-11-22T08:00:00.000Z')
  ctx = await testApp({ clock })
  api = ctx.api
  w = await makeWorld(api)
})

const publish = (courseId: string, json: unknown, token = w.teacher.token) => api.post(`/courses/${courseId}/announcements`, { json, token })

interface NotificationRow {
  user_id: string
  notification_type: string
  title: string
  content: string
  action_path: string
  delivered_at: Date
  read_at: Date | null
}
const notificationsFor = (courseId: string) => ctx.deps.sql<NotificationRow[]>`
  select user_id, notification_type, params->>'announcementTitle' as title, params->>'excerpt' as content, action_path, delivered_at, read_at
    from notifications where action_path = ${`/courses/${courseId}`} order by user_id`
// The row stores no wording (issue 28): the teacher's title and excerpt are in its params.

describe('POST /courses/{courseId}/announcements', () => {
  test('publishes: 201, sanitised content, author, timestamps', async () => {
    clock.set('2026-11-22T09:00:00.000Z')
    const res = await publish(w.course.id, {
      title: '  Exam on Friday  ',
      content: '<h2>Exam</h2><p onclick="steal()">Bring <b>pencils</b> &amp; <a href="javascript:alert(1)">this</a></p><script>alert(1)</script>',
    })
    expect(res.status).toBe(201)
    expect(res.code).toBe(0)
    expect(res.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      courseId: w.course.id,
      title: 'Exam on Friday',
      content: '<h2>Exam</h2><p>Bring <b>pencils</b> &amp; <a rel="noopener noreferrer nofollow">this</a></p>',
      author: { id: w.teacher.id, displayName: 'Prof. Ada' },
      createdAt: '2026-11-22T09:00:00.000Z',
      updatedAt: '2026-11-22T09:00:00.000Z',
      // Without state or publishAt it is published at once, as before drafts existed (issue 56.4).
      state: 'PUBLISHED',
      publishAt: null,
      publishedAt: '2026-11-22T09:00:00.000Z',
    })
    // What is stored is what is returned.
    const [row] = await ctx.deps.sql<{ content: string }[]>`select content from announcements where id = ${res.data.id}`
    expect(row!.content).toBe(res.data.content)
  })

  test('notifies every student of the course once (and nobody else), with a plain-text excerpt', async () => {
    const t = await signUp(api, 'TEACHER')
    const [s1, s2, stranger] = [await signUp(api), await signUp(api), await signUp(api)]
    const c = await createCourse(api, t)
    await join(api, s1, c.inviteCode)
    await join(api, s2, c.inviteCode)
    clock.set('2026-11-22T10:00:00.000Z')
    const res = await publish(c.id, { title: 'Lab moved', content: '<p>Room <b>B&amp;12</b></p><ul><li>bring a laptop</li></ul>' }, t.token)
    expect(res.status).toBe(201)

    const rows = await notificationsFor(c.id)
    expect(rows.map((r) => r.user_id).sort()).toEqual([s1.id, s2.id].sort())
    for (const r of rows) {
      expect(r).toMatchObject({
        notification_type: 'ANNOUNCEMENT',
        title: 'Lab moved',
        content: 'Room B&12\nbring a laptop',
        action_path: `/courses/${c.id}`,
        read_at: null,
      })
      expect(r.delivered_at.toISOString()).toBe('2026-11-22T10:00:00.000Z')
    }
    expect(rows.some((r) => r.user_id === t.id || r.user_id === stranger.id)).toBe(false)
  })

  test('a course without students publishes without notifications', async () => {
    const t = await signUp(api, 'TEACHER')
    const c = await createCourse(api, t)
    expect((await publish(c.id, { title: 'Hello', content: '<p>Nobody here yet</p>' }, t.token)).status).toBe(201)
    expect((await notificationsFor(c.id)).length).toBe(0)
  })

  test('works under /core/api/v1', async () => {
    const core = client(ctx.app, '/core/api/v1')
    const res = await core.post(`/courses/${w.course.id}/announcements`, { json: { title: 'Core', content: '<p>x</p>' }, token: w.teacher.token })
    expect(res.status).toBe(201)
  })

  const INVALID: [name: string, body: unknown, field: string][] = [
    ['missing title', { content: '<p>x</p>' }, 'title'],
    ['missing content', { title: 'T' }, 'content'],
    ['empty title', { title: ' ', content: '<p>x</p>' }, 'title'],
    ['title too long', { title: 'x'.repeat(201), content: '<p>x</p>' }, 'title'],
    ['NUL in title', { title: 'a\u0000', content: '<p>x</p>' }, 'title'],
    ['title of wrong type', { title: { en: 'T' }, content: '<p>x</p>' }, 'title'],
    ['content of wrong type', { title: 'T', content: 42 }, 'content'],
    ['200 KB content', { title: 'T', content: `<p>${BIG}</p>` }, 'content'],
    ['content that is only hostile markup', { title: 'T', content: '<script>alert(1)</script><img src=x onerror=alert(1)>' }, 'content'],
    ['empty content', { title: 'T', content: '' }, 'content'],
  ]
  test.each(INVALID)('%s → 400 naming the field', async (_name, body, field) => {
    const before = await ctx.deps.sql<{ n: number }[]>`select count(*)::int as n from announcements where course_id = ${w.course.id}`
    const res = await publish(w.course.id, body)
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
    expect(res.data.fields.map((f: { field: string }) => f.field)).toContain(field)
    const after = await ctx.deps.sql<{ n: number }[]>`select count(*)::int as n from announcements where course_id = ${w.course.id}`
    expect(after[0]!.n).toBe(before[0]!.n)
  })
})

describe('GET /courses/{courseId}/announcements', () => {
  test('newest first, paginated, for the teacher and students alike', async () => {
    const t = await signUp(api, 'TEACHER')
    const s = await signUp(api)
    const c = await createCourse(api, t)
    await join(api, s, c.inviteCode)
    for (const [i, title] of ['first', 'second', 'third'].entries()) {
      clock.set(new Date(Date.UTC(2026, 10, 23, 8 + i)))
      await publish(c.id, { title, content: `<p>${title}</p>` }, t.token)
    }
    // Two in the same millisecond: the later id (UUIDv7) comes first.
    clock.set('2026-11-23T12:00:00.000Z')
    await publish(c.id, { title: 'fourth', content: '<p>4</p>' }, t.token)
    await publish(c.id, { title: 'fifth', content: '<p>5</p>' }, t.token)

    for (const who of [t, s]) {
      const res = await api.get(`/courses/${c.id}/announcements`, { token: who.token })
      expect(res.status).toBe(200)
      expect(res.data).toMatchObject({ total: 5, page: 1, pageSize: 50 })
      expect(res.data.items.map((a: any) => a.title)).toEqual(['fifth', 'fourth', 'third', 'second', 'first'])
    }
    const p2 = await api.get(`/courses/${c.id}/announcements?page=2&pageSize=2`, { token: s.token })
    expect(p2.data).toMatchObject({ total: 5, page: 2, pageSize: 2 })
    expect(p2.data.items.map((a: any) => a.title)).toEqual(['third', 'second'])
  })

  test('another course\'s announcements do not leak in', async () => {
    const res = await api.get(`/courses/${w.otherCourse.id}/announcements`, { token: w.otherTeacher.token })
    expect(res.data).toMatchObject({ items: [], total: 0 })
  })

  test.each([['page=0'], ['pageSize=500'], ['pageSize=x']])('bad paging %s → 400', async (qs) => {
    const res = await api.get(`/courses/${w.course.id}/announcements?${qs}`, { token: w.student.token })
    expect(res.status).toBe(400)
  })
})

describe('PATCH and DELETE /courses/{courseId}/announcements/{announcementId}', () => {
  test('edit title, then content (sanitised); updatedAt moves, createdAt stays; nobody is notified again', async () => {
    clock.set('2026-11-24T08:00:00.000Z')
    const a = (await publish(w.course.id, { title: 'Draft', content: '<p>v1</p>' })).data
    const notified = (await notificationsFor(w.course.id)).length

    clock.set('2026-11-24T09:00:00.000Z')
    const t1 = await api.patch(`/courses/${w.course.id}/announcements/${a.id}`, { json: { title: ' Final ' }, token: w.teacher.token })
    expect(t1.status).toBe(200)
    expect(t1.data).toMatchObject({ id: a.id, title: 'Final', content: '<p>v1</p>', createdAt: '2026-11-24T08:00:00.000Z', updatedAt: '2026-11-24T09:00:00.000Z' })

    clock.set('2026-11-24T10:00:00.000Z')
    const t2 = await api.patch(`/courses/${w.course.id}/announcements/${a.id}`, {
      json: { content: '<p style="color:red" onmouseover="x()">v2 <em>now</em></p><iframe src="https://evil.example"></iframe>' },
      token: w.teacher.token,
    })
    expect(t2.data).toMatchObject({ title: 'Final', content: '<p>v2 <em>now</em></p>', updatedAt: '2026-11-24T10:00:00.000Z' })
    const listed = await api.get(`/courses/${w.course.id}/announcements`, { token: w.student.token })
    expect(listed.data.items.find((x: any) => x.id === a.id)).toEqual(t2.data)
    expect((await notificationsFor(w.course.id)).length).toBe(notified)
  })

  test('delete: 200, gone from the list, a second delete is 404', async () => {
    const a = (await publish(w.course.id, { title: 'Oops', content: '<p>wrong course</p>' })).data
    const del = await api.del(`/courses/${w.course.id}/announcements/${a.id}`, { token: w.teacher.token })
    expect({ status: del.status, code: del.code, data: del.data }).toEqual({ status: 200, code: 0, data: null })
    const listed = await api.get(`/courses/${w.course.id}/announcements?pageSize=200`, { token: w.teacher.token })
    expect(listed.data.items.some((x: any) => x.id === a.id)).toBe(false)
    const again = await api.del(`/courses/${w.course.id}/announcements/${a.id}`, { token: w.teacher.token })
    expect({ status: again.status, code: again.code }).toEqual({ status: 404, code: 40409 })
  })

  test('the list total is the kept count (sql/025): it follows publishes and deletes, whatever the history', async () => {
    const t = await signUp(api, 'TEACHER')
    const c = await createCourse(api, t)
    const total = async () => (await api.get(`/courses/${c.id}/announcements?pageSize=1`, { token: t.token })).data.total
    expect(await total()).toBe(0)
    const ids: string[] = []
    for (let i = 0; i < 4; i++) ids.push((await publish(c.id, { title: `n${i}`, content: '<p>x</p>' }, t.token)).data.id)
    expect(await total()).toBe(4)
    expect((await api.patch(`/courses/${c.id}/announcements/${ids[0]}`, { json: { title: 'edited' }, token: t.token })).status).toBe(200)
    expect((await api.del(`/courses/${c.id}/announcements/${ids[1]}`, { token: t.token })).status).toBe(200)
    expect(await total()).toBe(3)
    // A bulk delete outside the API is counted too.
    await ctx.deps.sql`delete from announcements where id = any(${ids.slice(2)}::uuid[])`
    expect(await total()).toBe(1)
    const [counted] = await ctx.deps.sql<{ n: number }[]>`select count(*)::int as n from announcements where course_id = ${c.id}`
    expect(counted!.n).toBe(1)
    // A deleted course takes its counter row with it.
    await ctx.deps.sql`delete from courses where id = ${c.id}`
    expect(await ctx.deps.sql`select 1 from course_counters where course_id = ${c.id}`).toHaveLength(0)
  })

  test('unknown id, or an id of another course, → 404 (40409) for edit and delete', async () => {
    const foreign = (await publish(w.otherCourse.id, { title: 'Theirs', content: '<p>x</p>' }, w.otherTeacher.token)).data
    for (const id of [UNKNOWN_ID, foreign.id]) {
      const path = `/courses/${w.course.id}/announcements/${id}`
      const p = await api.patch(path, { json: { title: 'Hijack' }, token: w.teacher.token })
      expect({ status: p.status, code: p.code }).toEqual({ status: 404, code: 40409 })
      const d = await api.del(path, { token: w.teacher.token })
      expect({ status: d.status, code: d.code }).toEqual({ status: 404, code: 40409 })
    }
    // The foreign announcement is untouched.
    const theirs = await api.get(`/courses/${w.otherCourse.id}/announcements`, { token: w.otherTeacher.token })
    expect(theirs.data.items.find((x: any) => x.id === foreign.id).title).toBe('Theirs')
  })

  test('non-UUID announcement id → 400 naming announcementId', async () => {
    for (const method of ['patch', 'del'] as const) {
      const res = await api[method](`/courses/${w.course.id}/announcements/42`, { json: { title: 'x' }, token: w.teacher.token })
      expect(res.status).toBe(400)
      expect(res.data.fields.map((f: { field: string }) => f.field)).toContain('announcementId')
    }
  })

  const INVALID: [name: string, body: unknown][] = [
    ['empty body', {}],
    ['empty title', { title: '' }],
    ['content of wrong type', { content: false }],
    ['200 KB content', { content: BIG }],
    ['content that is only hostile markup', { content: '<style>*{}</style>' }],
  ]
  test.each(INVALID)('edit with %s → 400, nothing changes', async (_name, body) => {
    const a = (await publish(w.course.id, { title: 'Stable', content: '<p>same</p>' })).data
    const res = await api.patch(`/courses/${w.course.id}/announcements/${a.id}`, { json: body, token: w.teacher.token })
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
    const [row] = await ctx.deps.sql<{ title: string; content: string }[]>`select title, content from announcements where id = ${a.id}`
    expect(row).toEqual({ title: 'Stable', content: '<p>same</p>' })
  })
})

describe('excerpt (notification text)', () => {
  test('blocks and line breaks become line breaks (the preview keeps paragraphs), entities are decoded, other whitespace collapses', () => {
    expect(excerpt('<h2>Title</h2><p>a &amp; b &lt;c&gt; &quot;d&quot;</p><ul><li>one</li><li>two</li></ul>')).toBe('Title\na & b <c> "d"\none\ntwo')
    expect(excerpt('<p>line<br />break</p>')).toBe('line\nbreak')
    expect(excerpt('<p>First  paragraph\n wrapped.</p>\n\n<p>  Second.</p>')).toBe('First paragraph wrapped.\nSecond.')
    expect(excerpt('<p>  </p>')).toBe('')
    expect(excerpt('<p>a</p><p></p><p>b</p>')).toBe('a\nb')
  })

  test('long text is cut at a word boundary with an ellipsis', () => {
    const long = `<p>${'word '.repeat(100)}</p>`
    const out = excerpt(long)
    expect(out.length).toBeLessThanOrEqual(EXCERPT_MAX)
    expect(out.endsWith('word…')).toBe(true)
    const unbroken = excerpt(`<p>${'x'.repeat(500)}</p>`)
    expect(unbroken).toHaveLength(EXCERPT_MAX)
    expect(unbroken.endsWith('…')).toBe(true)
  })
})
