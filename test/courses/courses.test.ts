import { beforeAll, describe, expect, test } from 'bun:test'
import { client, ManualClock, signUp, testApp, type Account, type Client, type TestContext } from '../support/harness.ts'
import { BIG, createCourse, join } from './world.ts'


const CODE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$/

let ctx: TestContext
let api: Client
let clock: ManualClock
/** For tests that only need some teacher: signing up costs two password hashes. */
let teacher: Account

beforeAll(async () => {
  // Moved forward only, and by less than the token lifetime, so logins stay valid.
  clock = new ManualClock('2026-11-22T08:00:00.000Z')
  ctx = await testApp({ clock })
  api = ctx.api
  teacher = await signUp(api, 'TEACHER')
})

describe('POST /courses', () => {
  test('a teacher creates a course: 201, trimmed fields, teacher view with invite code', async () => {
    const t = await signUp(api, 'TEACHER', 'Prof. Ada')
    const res = await api.post('/courses', { json: { title: '  Linear Algebra  ', description: ' Vectors.\nMatrices. ' }, token: t.token })
    expect(res.status).toBe(201)
    expect(res.code).toBe(0)
    expect(res.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      title: 'Linear Algebra',
      description: 'Vectors.\nMatrices.',
      teacher: { id: t.id, username: t.username, displayName: 'Prof. Ada' },
      memberCount: 1,
      studentCount: 0,
      createdAt: '2026-11-22T08:00:00.000Z',
      inviteCode: expect.stringMatching(CODE),
      joiningOpen: true,
      myRole: 'TEACHER',
      archived: false,
      studentComments: true,
    })
  })

  test('works under /core/api/v1 too', async () => {
    const t = teacher
    const core = client(ctx.app, '/core/api/v1')
    const res = await core.post('/courses', { json: { title: 'Via core', description: '' }, token: t.token })
    expect(res.status).toBe(201)
    expect((await core.get(`/courses/${res.data.id}`, { token: t.token })).data.title).toBe('Via core')
  })

  test('every course gets its own code', async () => {
    const t = teacher
    const codes = new Set<string>()
    for (let i = 0; i < 5; i++) codes.add((await createCourse(api, t, `C${i}`)).inviteCode)
    expect(codes.size).toBe(5)
  })

  test('description is plain text: stored as sent (trimmed), not interpreted', async () => {
    const t = teacher
    const res = await api.post('/courses', { json: { title: '<b>T</b>', description: '<script>alert(1)</script>' }, token: t.token })
    expect(res.status).toBe(201)
    expect(res.data.title).toBe('<b>T</b>')
    expect(res.data.description).toBe('<script>alert(1)</script>')
  })

  const INVALID: [name: string, body: unknown, field: string][] = [
    ['missing title', { description: 'd' }, 'title'],
    ['missing description', { title: 't' }, 'description'],
    ['empty title', { title: '   ', description: '' }, 'title'],
    ['title not a string', { title: 42, description: '' }, 'title'],
    ['description not a string', { title: 't', description: ['x'] }, 'description'],
    ['title too long', { title: 'x'.repeat(121), description: '' }, 'title'],
    ['200 KB title', { title: BIG, description: '' }, 'title'],
    ['200 KB description', { title: 't', description: BIG }, 'description'],
    ['NUL in title', { title: 'a\u0000b', description: '' }, 'title'],
    ['line break in title', { title: 'a\nb', description: '' }, 'title'],
    ['NUL in description', { title: 't', description: 'a\u0000b' }, 'description'],
  ]
  test.each(INVALID)('%s → 400 naming the field', async (_name, body, field) => {
    const res = await api.post('/courses', { json: body, token: teacher.token })
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
    expect(res.data.fields.map((f: { field: string }) => f.field)).toContain(field)
  })

  test('malformed JSON → 400 (40000)', async () => {
    const res = await api.post('/courses', { raw: '{"title":', headers: { 'content-type': 'application/json' }, token: teacher.token })
    expect(res.status).toBe(400)
    expect(res.code).toBe(40000)
  })
})

describe('GET /courses and GET /courses/{courseId}', () => {
  test('each caller sees the courses they teach or joined, with their role; newest first', async () => {
    const t = await signUp(api, 'TEACHER')
    const s = await signUp(api, 'STUDENT')
    const outsider = await signUp(api, 'STUDENT')
    clock.set('2026-11-23T08:00:00.000Z')
    const a = await createCourse(api, t, 'A')
    clock.set('2026-11-23T09:00:00.000Z')
    const b = await createCourse(api, t, 'B')
    // A student sees joined courses by join time, newest first.
    clock.set('2026-11-23T10:00:00.000Z')
    await join(api, s, b.inviteCode)
    clock.set('2026-11-23T11:00:00.000Z')
    await join(api, s, a.inviteCode)

    const mine = await api.get('/courses', { token: t.token })
    expect(mine.status).toBe(200)
    expect(mine.data.map((c: any) => [c.title, c.myRole, c.memberCount])).toEqual([
      ['B', 'TEACHER', 2],
      ['A', 'TEACHER', 2],
    ])
    expect(mine.data[0].inviteCode).toBe(b.inviteCode)
    expect(mine.data[0].joiningOpen).toBe(true)

    const joined = await api.get('/courses', { token: s.token })
    expect(joined.data.map((c: any) => [c.title, c.myRole])).toEqual([
      ['A', 'STUDENT'],
      ['B', 'STUDENT'],
    ])
    for (const c of joined.data) {
      expect(c).not.toHaveProperty('inviteCode')
      expect(c).not.toHaveProperty('joiningOpen')
    }

    expect((await api.get('/courses', { token: outsider.token })).data).toEqual([])
  })

  test('detail: the teacher sees the code, a student does not', async () => {
    const t = await signUp(api, 'TEACHER', 'Prof. Lin')
    const s = await signUp(api, 'STUDENT')
    const c = await createCourse(api, t, 'Detail', 'About')
    await join(api, s, c.inviteCode)
    const asTeacher = await api.get(`/courses/${c.id}`, { token: t.token })
    expect(asTeacher.status).toBe(200)
    expect(asTeacher.data).toMatchObject({ id: c.id, title: 'Detail', description: 'About', inviteCode: c.inviteCode, myRole: 'TEACHER', memberCount: 2 })
    const asStudent = await api.get(`/courses/${c.id}`, { token: s.token })
    expect(asStudent.data).toMatchObject({ id: c.id, myRole: 'STUDENT', memberCount: 2, teacher: { id: t.id, displayName: 'Prof. Lin' } })
    expect(asStudent.data).not.toHaveProperty('inviteCode')
    expect(asStudent.data).not.toHaveProperty('joiningOpen')
  })
})

describe('PATCH /courses/{courseId}', () => {
  test('edits title and description, and opens/closes joining', async () => {
    const t = await signUp(api, 'TEACHER')
    const c = await createCourse(api, t)
    const res = await api.patch(`/courses/${c.id}`, { json: { title: ' New ', description: '' }, token: t.token })
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({ title: 'New', description: '', joiningOpen: true, inviteCode: c.inviteCode })
    const closed = await api.patch(`/courses/${c.id}`, { json: { joiningOpen: false }, token: t.token })
    expect(closed.data).toMatchObject({ title: 'New', joiningOpen: false })
  })

  const INVALID: [name: string, body: unknown][] = [
    ['empty body', {}],
    ['empty title', { title: '' }],
    ['joiningOpen not a boolean', { joiningOpen: 'no' }],
    ['200 KB description', { description: BIG }],
    ['title of wrong type', { title: null }],
  ]
  test.each(INVALID)('%s → 400', async (_name, body) => {
    const c = await createCourse(api, teacher)
    const res = await api.patch(`/courses/${c.id}`, { json: body, token: teacher.token })
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
  })
})

describe('POST /courses/{courseId}/invite-code', () => {
  test('rotates: the new code works, the old one is unknown, members stay', async () => {
    const t = await signUp(api, 'TEACHER')
    const [s1, s2] = [await signUp(api), await signUp(api)]
    const c = await createCourse(api, t)
    await join(api, s1, c.inviteCode)
    const res = await api.post(`/courses/${c.id}/invite-code`, { token: t.token })
    expect(res.status).toBe(200)
    expect(res.data.inviteCode).toMatch(CODE)
    expect(res.data.inviteCode).not.toBe(c.inviteCode)
    expect(res.data.memberCount).toBe(2)

    const old = await api.post('/courses/join', { json: { inviteCode: c.inviteCode }, token: s2.token })
    expect({ status: old.status, code: old.code }).toEqual({ status: 404, code: 40401 })
    await join(api, s2, res.data.inviteCode)
    expect((await api.get(`/courses/${c.id}`, { token: s1.token })).data.memberCount).toBe(3)
  })
})

describe('GET /courses/{courseId}/members', () => {
  test('teacher first (joined at course creation), then students by join time; paginated', async () => {
    const t = await signUp(api, 'TEACHER', 'The Teacher')
    const students = [await signUp(api, 'STUDENT', 'S1'), await signUp(api, 'STUDENT', 'S2'), await signUp(api, 'STUDENT', 'S3')]
    clock.set('2026-11-24T08:00:00.000Z')
    const c = await createCourse(api, t)
    // Join in the order S3, S1, S2.
    for (const [i, s] of [students[2]!, students[0]!, students[1]!].entries()) {
      clock.set(new Date(Date.UTC(2026, 10, 24, 9 + i)))
      await join(api, s, c.inviteCode)
    }

    const all = await api.get(`/courses/${c.id}/members`, { token: students[0]!.token })
    expect(all.status).toBe(200)
    expect(all.data).toMatchObject({ total: 4, page: 1, pageSize: 50 })
    expect(all.data.items).toEqual([
      { userId: t.id, username: t.username, displayName: 'The Teacher', role: 'TEACHER', owner: true, joinedAt: '2026-11-24T08:00:00.000Z' },
      { userId: students[2]!.id, username: students[2]!.username, displayName: 'S3', role: 'STUDENT', owner: false, joinedAt: '2026-11-24T09:00:00.000Z' },
      { userId: students[0]!.id, username: students[0]!.username, displayName: 'S1', role: 'STUDENT', owner: false, joinedAt: '2026-11-24T10:00:00.000Z' },
      { userId: students[1]!.id, username: students[1]!.username, displayName: 'S2', role: 'STUDENT', owner: false, joinedAt: '2026-11-24T11:00:00.000Z' },
    ])

    const p2 = await api.get(`/courses/${c.id}/members?page=2&pageSize=3`, { token: t.token })
    expect(p2.data).toMatchObject({ total: 4, page: 2, pageSize: 3 })
    expect(p2.data.items.map((m: any) => m.displayName)).toEqual(['S2'])
    const beyond = await api.get(`/courses/${c.id}/members?page=9`, { token: t.token })
    expect(beyond.data).toMatchObject({ items: [], total: 4, page: 9 })
  })

  test('a course without students lists only its teacher', async () => {
    const t = teacher
    const c = await createCourse(api, t)
    const res = await api.get(`/courses/${c.id}/members`, { token: t.token })
    expect(res.data.total).toBe(1)
    expect(res.data.items.map((m: any) => m.role)).toEqual(['TEACHER'])
  })

  test.each([['page=0'], ['pageSize=0'], ['pageSize=201'], ['page=abc'], ['pageSize=1.5']])('bad paging %s → 400', async (qs) => {
    const c = await createCourse(api, teacher)
    const res = await api.get(`/courses/${c.id}/members?${qs}`, { token: teacher.token })
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
  })
})

describe('OpenAPI', () => {
  test('documents every route of this feature', async () => {
    const doc = await ctx.api.get('//v3/api-docs')
    const paths = doc.body.paths as Record<string, Record<string, unknown>>
    const has = (p: string, m: string) => Boolean(paths[p]?.[m])
    expect(paths['/api/v1/courses/']).toBeUndefined()
    expect(has('/api/v1/courses', 'post')).toBe(true)
    expect(has('/api/v1/courses', 'get')).toBe(true)
    expect(has('/api/v1/courses/join', 'post')).toBe(true)
    expect(has('/api/v1/courses/{courseId}', 'get')).toBe(true)
    expect(has('/api/v1/courses/{courseId}', 'patch')).toBe(true)
    expect(has('/api/v1/courses/{courseId}/invite-code', 'post')).toBe(true)
    expect(has('/api/v1/courses/{courseId}/members', 'get')).toBe(true)
    expect(has('/api/v1/courses/{courseId}/announcements', 'post')).toBe(true)
    expect(has('/api/v1/courses/{courseId}/announcements', 'get')).toBe(true)
    expect(has('/api/v1/courses/{courseId}/announcements/{announcementId}', 'patch')).toBe(true)
    expect(has('/api/v1/courses/{courseId}/announcements/{announcementId}', 'delete')).toBe(true)
    expect(has('/api/v1/courses/{courseId}/workspace/modules', 'get')).toBe(true)
    expect(has('/api/v1/courses/{courseId}/workspace/modules', 'put')).toBe(true)
  })
})
