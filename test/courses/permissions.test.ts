import { beforeAll, describe, expect, test } from 'bun:test'
import { newId } from '../../src/lib/ids.ts'
import { testApp, type Account, type Client } from '../support/harness.ts'
import { makeWorld, UNKNOWN_ID, type World } from './world.ts'


/**
 * The permission matrix of every course-scoped route of this feature (courses, members,
 * invite codes, announcements, workspace modules), for every kind of caller.
 */
type Level = 'member' | 'teacher'
interface Route {
  name: string
  method: 'get' | 'post' | 'put' | 'patch' | 'del'
  level: Level
  /** Builds the path for a course id; may create rows the route needs (an announcement). */
  path: (courseId: string) => Promise<string> | string
  json?: unknown
  status: 200 | 201
}

let api: Client
let w: World
let insertAnnouncement: () => Promise<string>

beforeAll(async () => {
  const ctx = await testApp()
  api = ctx.api
  w = await makeWorld(api)
  // The announcement always lives in the world's course; for an unknown course id the course
  // check must answer before the announcement is looked at.
  insertAnnouncement = async () => {
    const id = newId()
    await ctx.deps.sql`
      insert into announcements (id, course_id, author_id, title, content)
      values (${id}, ${w.course.id}, ${w.teacher.id}, 'Fixture', '<p>x</p>')`
    return id
  }
})

const ROUTES: Route[] = [
  { name: 'course detail', method: 'get', level: 'member', path: (c) => `/courses/${c}`, status: 200 },
  { name: 'edit course', method: 'patch', level: 'teacher', path: (c) => `/courses/${c}`, json: { title: 'Renamed' }, status: 200 },
  { name: 'rotate invite code', method: 'post', level: 'teacher', path: (c) => `/courses/${c}/invite-code`, status: 200 },
  { name: 'members', method: 'get', level: 'member', path: (c) => `/courses/${c}/members`, status: 200 },
  { name: 'list announcements', method: 'get', level: 'member', path: (c) => `/courses/${c}/announcements`, status: 200 },
  {
    name: 'publish announcement',
    method: 'post',
    level: 'teacher',
    path: (c) => `/courses/${c}/announcements`,
    json: { title: 'Exam', content: '<p>Friday</p>' },
    status: 201,
  },
  {
    name: 'edit announcement',
    method: 'patch',
    level: 'teacher',
    path: async (c) => `/courses/${c}/announcements/${await insertAnnouncement()}`,
    json: { title: 'Edited' },
    status: 200,
  },
  {
    name: 'delete announcement',
    method: 'del',
    level: 'teacher',
    path: async (c) => `/courses/${c}/announcements/${await insertAnnouncement()}`,
    status: 200,
  },
  { name: 'get workspace modules', method: 'get', level: 'member', path: (c) => `/courses/${c}/workspace/modules`, status: 200 },
  {
    name: 'save workspace modules',
    method: 'put',
    level: 'teacher',
    path: (c) => `/courses/${c}/workspace/modules`,
    json: { modules: [{ moduleKey: 'QUIZ', enabled: false, sortOrder: 9 }] },
    status: 200,
  },
]

type Caller = 'anonymous' | 'teacher' | 'student' | 'otherTeacher' | 'outsider'
const account = (c: Caller): Account | undefined => (c === 'anonymous' ? undefined : w[c])

/** What each caller gets on the world's course: [status, envelope code]. */
function expected(route: Route, caller: Caller): [number, number] {
  switch (caller) {
    case 'anonymous':
      return [401, 40100]
    case 'teacher':
      return [route.status, 0]
    case 'student':
      return route.level === 'member' ? [route.status, 0] : [403, 40300]
    case 'otherTeacher':
    case 'outsider':
      return [403, 40300]
  }
}

const CALLERS: Caller[] = ['anonymous', 'teacher', 'student', 'otherTeacher', 'outsider']

describe.each(ROUTES)('$name', (route) => {
  test.each(CALLERS)('%s', async (caller) => {
    const res = await api[route.method](await route.path(w.course.id), { json: route.json, token: account(caller)?.token })
    const [status, code] = expected(route, caller)
    expect({ status: res.status, code: res.code }).toEqual({ status, code })
    if (status === 403) expect(res.message).toMatch(/teacher|member/i)
    if (status < 300) expect(res.data === null || typeof res.data === 'object').toBe(true)
  })

  test('unknown course → 404 (40401)', async () => {
    const res = await api[route.method](await route.path(UNKNOWN_ID), { json: route.json, token: w.teacher.token })
    expect({ status: res.status, code: res.code }).toEqual({ status: 404, code: 40401 })
  })

  test('non-UUID course id → 400 naming courseId', async () => {
    const res = await api[route.method](await route.path('not-a-uuid'), { json: route.json, token: w.teacher.token })
    expect(res.status).toBe(400)
    expect(res.data.fields.map((f: { field: string }) => f.field)).toContain('courseId')
  })

  test('another course\'s teacher acting on their own course succeeds (the guard is per course)', async () => {
    const res = await api[route.method](await route.path(w.otherCourse.id), { json: route.json, token: w.otherTeacher.token })
    // Announcement fixtures live in the world's course, so on the other course they are unknown ids.
    if (route.name.endsWith(' announcement') && route.method !== 'post') {
      expect({ status: res.status, code: res.code }).toEqual({ status: 404, code: 40409 })
    } else {
      expect({ status: res.status, code: res.code }).toEqual({ status: route.status, code: 0 })
    }
  })
})

describe('routes that are not course-scoped', () => {
  const CASES: [name: string, method: 'get' | 'post', path: string, json: unknown, caller: Caller, status: number, code: number][] = [
    ['create course, anonymous', 'post', '/courses', { title: 'T', description: '' }, 'anonymous', 401, 40100],
    ['create course, student', 'post', '/courses', { title: 'T', description: '' }, 'student', 403, 40300],
    ['create course, teacher', 'post', '/courses', { title: 'T', description: '' }, 'teacher', 201, 0],
    ['my courses, anonymous', 'get', '/courses', undefined, 'anonymous', 401, 40100],
    ['my courses, student', 'get', '/courses', undefined, 'student', 200, 0],
    ['my courses, outsider', 'get', '/courses', undefined, 'outsider', 200, 0],
    ['join, anonymous', 'post', '/courses/join', { inviteCode: 'ABCDEFGH' }, 'anonymous', 401, 40100],
    ['join, teacher account', 'post', '/courses/join', { inviteCode: 'ABCDEFGH' }, 'otherTeacher', 403, 40300],
    ['join, unknown code', 'post', '/courses/join', { inviteCode: 'ZZZZZZZZ' }, 'outsider', 404, 40401],
  ]
  test.each(CASES)('%s', async (_name, method, path, json, caller, status, code) => {
    const res = await api[method](path, { json, token: account(caller)?.token })
    expect({ status: res.status, code: res.code }).toEqual({ status, code })
  })

  test('a bad or revoked token is 401, by header and by cookie', async () => {
    expect((await api.get('/courses', { token: 'not.a.jwt' })).status).toBe(401)
    expect((await api.get(`/courses/${w.course.id}`, { cookie: 'cls_session=garbage' })).status).toBe(401)
  })
})
