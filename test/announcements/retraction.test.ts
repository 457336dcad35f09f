import { beforeAll, describe, expect, test } from 'bun:test'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, type Account, type TestContext } from '../support/harness.ts'

/**
 * Issue 29.3: a deleted announcement kept its title and text in students' inboxes, and an
 * edited one kept its old title. Deleting retracts its notifications (the counters of sql/012
 * stay exact: total and unread drop by what was retracted); editing rewrites them.
 */
let ctx: TestContext
let teacher: Account
let students: Account[]
let course: { id: string }
const clock = new ManualClock('2026-11-22T08:00:00.000Z')

beforeAll(async () => {
  ctx = await testApp({ clock })
  teacher = await signUp(ctx.api, 'TEACHER', 'Prof. Ada')
  students = [await signUp(ctx.api, 'STUDENT', 'Alice'), await signUp(ctx.api, 'STUDENT', 'Bob')]
  course = await insertCourse(ctx.deps.sql, teacher.id)
  for (const s of students) await addStudent(ctx.deps.sql, course.id, s.id)
}, 60_000)

const publish = async (title: string) => {
  const r = await ctx.api.post(`/courses/${course.id}/announcements`, { token: teacher.token, json: { title, content: `<p>${title} body</p>` } })
  expect(r.status).toBe(201)
  return r.data.id as string
}
const inbox = async (who: Account) => (await ctx.api.get('/notifications', { token: who.token })).data
/** The counters row against a count from scratch. */
async function countersExact(who: Account) {
  const [kept] = await ctx.deps.sql<{ total: number; unread: number }[]>`
    select coalesce(c.total, 0) as total, coalesce(c.unread, 0) as unread
      from users u left join notification_counters c on c.user_id = u.id where u.id = ${who.id}`
  const [real] = await ctx.deps.sql<{ total: number; unread: number }[]>`
    select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread from notifications where user_id = ${who.id}`
  expect(kept).toEqual(real!)
  return real!
}

describe('announcement notifications follow the announcement', () => {
  test('an edit shows the new title and excerpt in every inbox', async () => {
    const id = await publish('Exam on Friday')
    const r = await ctx.api.patch(`/courses/${course.id}/announcements/${id}`, { token: teacher.token, json: { title: 'Exam moved to Monday', content: '<p>Room 101</p>' } })
    expect(r.status).toBe(200)
    for (const s of students) {
      const item = (await inbox(s)).items.find((n: any) => n.type === 'ANNOUNCEMENT' && n.title.startsWith('Exam'))
      expect(item).toMatchObject({ title: 'Exam moved to Monday', content: 'Room 101' })
    }
    await countersExact(students[0]!)
  })

  test('a delete retracts it from every inbox; counters drop exactly (read or not); other notifications stay', async () => {
    const keep = await publish('Office hours')
    const gone = await publish('Field trip')
    // Alice reads the one that will be deleted, Bob does not.
    const alice = await inbox(students[0]!)
    const read = alice.items.find((n: any) => n.title === 'Field trip')
    expect((await ctx.api.patch(`/notifications/${read.id}/read`, { token: students[0]!.token })).status).toBe(200)
    const before = [await countersExact(students[0]!), await countersExact(students[1]!)]

    const del = await ctx.api.del(`/courses/${course.id}/announcements/${gone}`, { token: teacher.token })
    expect([del.status, del.code]).toEqual([200, 0])

    for (const [i, s] of students.entries()) {
      const box = await inbox(s)
      expect(box.items.map((n: any) => n.title)).not.toContain('Field trip')
      expect(box.items.map((n: any) => n.title)).toContain('Office hours')
      const after = await countersExact(s)
      expect(after.total).toBe(before[i]!.total - 1)
      // Alice had read it: her unread count stays; Bob's drops by one.
      expect(after.unread).toBe(before[i]!.unread - (i === 0 ? 0 : 1))
      expect(box).toMatchObject({ total: after.total, unreadCount: after.unread })
    }
    expect(keep).toBeString()
  })

  test('404 for an unknown announcement; 403 for a student; nothing retracted', async () => {
    const id = await publish('Stays')
    const before = await countersExact(students[1]!)
    const s = await ctx.api.del(`/courses/${course.id}/announcements/${id}`, { token: students[0]!.token })
    expect([s.status, s.code]).toEqual([403, 40300])
    const u = await ctx.api.del(`/courses/${course.id}/announcements/01900000-0000-7000-8000-000000000000`, { token: teacher.token })
    expect([u.status, u.code]).toEqual([404, 40409])
    expect(await countersExact(students[1]!)).toEqual(before)
  })
})
