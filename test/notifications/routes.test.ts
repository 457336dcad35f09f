import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { insertNotifications, notifyCourseStudents, type RawNotification } from '../support/notifications.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, testDatabase, type Account, type Client } from '../support/harness.ts'

const T0 = new Date('2028-06-01T08:00:00.000Z')
const clock = new ManualClock(T0)
let api: Client
let sql: Sql
let someone: Account

beforeAll(async () => {
  sql = (await testDatabase()).sql
  ;({ api } = await testApp({ clock }))
  someone = await signUp(api)
}, 30_000)

const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000)
const note = (userId: string, title: string, type: RawNotification['type'] = 'HOMEWORK_REMINDER'): RawNotification => ({
  userId,
  type,
  title,
  content: `About ${title}`,
  actionPath: `/courses/x?taskId=${title}`,
})

/** A fresh user with `n` notifications delivered a minute apart (n1 oldest). */
async function inboxOf(n: number) {
  const user = await signUp(api)
  for (let i = 1; i <= n; i++) await insertNotifications(sql, [note(user.id, `n${i}`, i % 3 === 0 ? 'ANNOUNCEMENT' : 'HOMEWORK_REMINDER')], at(i))
  return user
}

describe('GET /notifications', () => {
  test('newest first with the notification fields, unreadCount and page info', async () => {
    const u = await inboxOf(3)
    const r = await api.get('/notifications', { token: u.token })
    expect(r.status).toBe(200)
    expect(r.code).toBe(0)
    expect(r.data).toMatchObject({ unreadCount: 3, total: 3, page: 1, pageSize: 50 })
    expect(r.data.items.map((n: any) => n.title)).toEqual(['n3', 'n2', 'n1'])
    const [first] = r.data.items
    expect(Object.keys(first).sort()).toEqual(['actionPath', 'content', 'deliveredAt', 'id', 'params', 'readAt', 'title', 'type'])
    expect(first).toMatchObject({ type: 'ANNOUNCEMENT', title: 'n3', content: 'About n3', actionPath: '/courses/x?taskId=n3', readAt: null, deliveredAt: at(3).toISOString() })
  })

  test('pages through the inbox', async () => {
    const u = await inboxOf(5)
    const p1 = await api.get('/notifications?page=1&pageSize=2', { token: u.token })
    const p3 = await api.get('/notifications?page=3&pageSize=2', { token: u.token })
    const p4 = await api.get('/notifications?page=4&pageSize=2', { token: u.token })
    expect(p1.data.items.map((n: any) => n.title)).toEqual(['n5', 'n4'])
    expect(p3.data.items.map((n: any) => n.title)).toEqual(['n1'])
    expect(p4.data).toMatchObject({ items: [], total: 5, page: 4, pageSize: 2, unreadCount: 5 })
  })

  test('unreadOnly=true lists only unread ones; total follows the filter, unreadCount does not page', async () => {
    const u = await inboxOf(4)
    const all = await api.get('/notifications', { token: u.token })
    const n2 = all.data.items.find((n: any) => n.title === 'n2')
    await api.patch(`/notifications/${n2.id}/read`, { token: u.token })
    const unread = await api.get('/notifications?unreadOnly=true&pageSize=2', { token: u.token })
    expect(unread.data.items.map((n: any) => n.title)).toEqual(['n4', 'n3'])
    expect(unread.data).toMatchObject({ total: 3, unreadCount: 3 })
    const everything = await api.get('/notifications?unreadOnly=false', { token: u.token })
    expect(everything.data.items.map((n: any) => n.title)).toEqual(['n4', 'n3', 'n2', 'n1'])
    expect(everything.data).toMatchObject({ total: 4, unreadCount: 3 })
  })

  test("only the caller's notifications; an announcement fan-out reaches every student of the course", async () => {
    const teacher = await signUp(api, 'TEACHER')
    const [a, b, c] = await Promise.all([signUp(api), signUp(api), signUp(api)])
    const course = await insertCourse(sql, teacher.id)
    await addStudent(sql, course.id, a.id)
    await addStudent(sql, course.id, b.id)
    await notifyCourseStudents(sql, course.id, { type: 'ANNOUNCEMENT', title: 'Exam moved', content: 'Now on Friday', actionPath: `/courses/${course.id}` }, T0)
    for (const who of [a, b]) {
      const r = await api.get('/notifications', { token: who.token })
      expect(r.data.items.map((n: any) => [n.type, n.title])).toEqual([['ANNOUNCEMENT', 'Exam moved']])
    }
    expect((await api.get('/notifications', { token: c.token })).data).toMatchObject({ items: [], total: 0, unreadCount: 0 })
    expect((await api.get('/notifications', { token: teacher.token })).data.total).toBe(0)
  })

  const bad: [string, string][] = [
    ['unreadOnly=yes', '?unreadOnly=yes'],
    ['unreadOnly=1', '?unreadOnly=1'],
    ['unreadOnly=TRUE', '?unreadOnly=TRUE'],
    ['unreadOnly empty', '?unreadOnly='],
    ['unreadOnly hostile', `?unreadOnly=${encodeURIComponent('<script>x</script>')}`],
    ['unreadOnly 200 KB', `?unreadOnly=${'t'.repeat(200_000)}`],
    ['page=0', '?page=0'],
    ['page=abc', '?page=abc'],
    ['pageSize=0', '?pageSize=0'],
    ['pageSize=201', '?pageSize=201'],
    ['pageSize=1.5', '?pageSize=1.5'],
  ]
  test.each(bad)('400 for %s', async (_name, qs) => {
    const r = await api.get(`/notifications${qs}`, { token: someone.token })
    expect(r.status).toBe(400)
    expect(r.code).toBe(40001)
  })

  test('401 without credentials', async () => {
    const r = await api.get('/notifications')
    expect(r.status).toBe(401)
    expect(r.code).toBe(40100)
  })
})

describe('PATCH /notifications/{notificationId}/read', () => {
  test('marks one read; repeating it keeps the first readAt', async () => {
    const u = await inboxOf(2)
    const [n2, n1] = (await api.get('/notifications', { token: u.token })).data.items
    clock.set(at(100))
    const r = await api.patch(`/notifications/${n1.id}/read`, { token: u.token })
    expect(r.status).toBe(200)
    expect(r.code).toBe(0)
    expect(r.data).toMatchObject({ id: n1.id, title: 'n1', readAt: at(100).toISOString(), deliveredAt: at(1).toISOString() })
    clock.set(at(200))
    const again = await api.patch(`/notifications/${n1.id}/read`, { token: u.token })
    expect(again.status).toBe(200)
    expect(again.data.readAt).toBe(at(100).toISOString())
    const list = await api.get('/notifications', { token: u.token })
    expect(list.data.unreadCount).toBe(1)
    expect(list.data.items.find((n: any) => n.id === n2.id).readAt).toBeNull()
    clock.set(T0)
  })

  test("another user's notification → 404, and it stays unread", async () => {
    const owner = await inboxOf(1)
    const other = await signUp(api)
    const [n] = (await api.get('/notifications', { token: owner.token })).data.items
    const r = await api.patch(`/notifications/${n.id}/read`, { token: other.token })
    expect(r.status).toBe(404)
    expect(r.code).toBe(40408)
    expect((await api.get('/notifications', { token: owner.token })).data.unreadCount).toBe(1)
  })

  const cases: [string, () => string, () => Promise<string | undefined>, number, number][] = [
    ['no credentials', () => `/notifications/${newId()}/read`, async () => undefined, 401, 40100],
    ['an unknown id', () => `/notifications/${newId()}/read`, async () => someone.token, 404, 40408],
    ['an id that is not a UUID', () => '/notifications/123/read', async () => someone.token, 400, 40001],
    ['a hostile id', () => `/notifications/${encodeURIComponent('<b>x</b>')}/read`, async () => someone.token, 400, 40001],
  ]
  test.each(cases)('%s → %d', async (_name, p, token, status, code) => {
    const r = await api.patch(p(), { token: await token() })
    expect(r.status).toBe(status)
    expect(r.code).toBe(code)
  })
})

describe('PATCH /notifications/read-all', () => {
  test("marks all of the caller's unread notifications read and says how many", async () => {
    const u = await inboxOf(3)
    const other = await inboxOf(2)
    const [n3] = (await api.get('/notifications', { token: u.token })).data.items
    clock.set(at(50))
    await api.patch(`/notifications/${n3.id}/read`, { token: u.token })
    clock.set(at(60))
    const r = await api.patch('/notifications/read-all', { token: u.token })
    expect(r.status).toBe(200)
    expect(r.code).toBe(0)
    expect(r.data).toEqual({ updated: 2 })
    const list = await api.get('/notifications', { token: u.token })
    expect(list.data.unreadCount).toBe(0)
    // The one read before keeps its readAt.
    expect(list.data.items.map((n: any) => [n.title, n.readAt])).toEqual([
      ['n3', at(50).toISOString()],
      ['n2', at(60).toISOString()],
      ['n1', at(60).toISOString()],
    ])
    expect((await api.patch('/notifications/read-all', { token: u.token })).data).toEqual({ updated: 0 })
    // Nobody else's inbox changed.
    expect((await api.get('/notifications', { token: other.token })).data.unreadCount).toBe(2)
    clock.set(T0)
  })

  test('401 without credentials', async () => {
    const r = await api.patch('/notifications/read-all')
    expect(r.status).toBe(401)
    expect(r.code).toBe(40100)
  })

  test('served under /core/api/v1 as well', async () => {
    const u = await inboxOf(1)
    const r = await api.patch('//core/api/v1/notifications/read-all', { token: u.token })
    expect(r.data).toEqual({ updated: 1 })
  })
})
