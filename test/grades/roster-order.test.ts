import { beforeAll, describe, expect, test } from 'bun:test'
import { world, type World } from '../experiments/world.ts'
import { insertCourse } from '../support/fixtures.ts'
import { signUp, testApp, type TestContext } from '../support/harness.ts'

// Both overviews list the course's students in one order, by name ignoring case (then
// username, then id), read from the membership's copy of the names (sql/028): the copy
// follows renames and is made for every way of joining.
let ctx: TestContext
let w: World
const NAMES = ['bob', 'Dave', 'alice', 'Carol', 'Same', 'Same']

beforeAll(async () => {
  ctx = await testApp()
  w = await world(ctx, { students: NAMES.length, names: NAMES })
}, 60_000)

const PATHS = ['learning/overview', 'grades/overview']
const overview = async (path: string, query = '') => {
  const res = await ctx.api.get(`/courses/${w.course.id}/${path}${query}`, { token: w.teacher.token })
  expect(res.status).toBe(200)
  expect(res.code).toBe(0)
  return res.data as { students: { userId: string; username: string; displayName: string }[]; total: number; page: number; pageSize: number | null }
}
/** The two "Same" students, by username ignoring case. */
const sameTwins = () =>
  w.students
    .filter((_, i) => NAMES[i] === 'Same')
    .map((s) => s.username)
    .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0))

describe.each(PATHS)('GET …/%s: roster order', (path) => {
  test('by display name ignoring case, then username; the whole list and its pages agree', async () => {
    const all = await overview(path)
    expect(all.students.map((s) => s.displayName)).toEqual(['alice', 'bob', 'Carol', 'Dave', 'Same', 'Same'])
    expect(all.students.slice(4).map((s) => s.username)).toEqual(sameTwins())
    expect(all.total).toBe(6)
    const pages = []
    for (const page of [1, 2, 3]) {
      const p = await overview(path, `?page=${page}&pageSize=2`)
      expect(p).toMatchObject({ total: 6, page, pageSize: 2 })
      pages.push(...p.students.map((s) => s.userId))
    }
    expect(pages).toEqual(all.students.map((s) => s.userId))
  })
})

describe('the roster follows the accounts', () => {
  test('a renamed student is listed under the new name, in its place, in both overviews', async () => {
    const dave = w.students[NAMES.indexOf('Dave')]!
    const res = await ctx.api.patch('/auth/me', { json: { displayName: 'Aaron' }, token: dave.token })
    expect(res.status).toBe(200)
    for (const path of PATHS) {
      const first = await overview(path, '?page=1&pageSize=1')
      expect(first.students).toEqual([expect.objectContaining({ userId: dave.id, username: dave.username, displayName: 'Aaron' })])
      expect(first.total).toBe(6)
    }
  })

  test('a student who joins by invite code is listed in order, in this course only', async () => {
    const course = await insertCourse(ctx.deps.sql, w.teacher.id, 'Joined by code')
    const bea = await signUp(ctx.api, 'STUDENT', 'Bea')
    const joined = await ctx.api.post('/courses/join', { json: { inviteCode: course.inviteCode }, token: bea.token })
    expect(joined.status).toBe(200)
    for (const path of PATHS) {
      const res = await ctx.api.get(`/courses/${course.id}/${path}`, { token: w.teacher.token })
      expect(res.status).toBe(200)
      expect(res.data.students.map((s: any) => [s.userId, s.username, s.displayName])).toEqual([[bea.id, bea.username, 'Bea']])
      expect(res.data.total).toBe(1)
      const here = await overview(path)
      expect(here.students.map((s) => s.userId)).not.toContain(bea.id)
    }
  })
})

test('a membership of an unknown user is refused by the foreign key (23503), as before the copied names', async () => {
  const err = await ctx.deps.sql`insert into course_members (course_id, user_id) values (${w.course.id}, '01900000-0000-7000-8000-000000000000')`.catch((e) => e)
  expect(err.code).toBe('23503')
})
