import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, testApp, type Account, type Client } from '../support/harness.ts'

/*
 * Issue 29.10: a course says how many students it has (`studentCount`, whom an announcement
 * notifies); the web app used memberCount - 1, which counted co-teachers as students.
 */
let api: Client
let sql: Sql
let owner: Account, co: Account, a: Account, b: Account, outsider: Account

beforeAll(async () => {
  const ctx = await testApp()
  api = ctx.api
  sql = ctx.deps.sql
  ;[owner, co, a, b, outsider] = await Promise.all([signUp(api, 'TEACHER'), signUp(api, 'TEACHER'), signUp(api), signUp(api), signUp(api)])
}, 30_000)

describe('studentCount', () => {
  test('0 for a new course; the students only once students join and a co-teacher is added', async () => {
    const course = await insertCourse(sql, owner.id, 'Optics')
    const empty = await api.get(`/courses/${course.id}`, { token: owner.token })
    expect([empty.status, empty.code]).toEqual([200, 0])
    expect(empty.data).toMatchObject({ memberCount: 1, studentCount: 0 })
    await addStudent(sql, course.id, a.id)
    await addStudent(sql, course.id, b.id)
    expect((await api.post(`/courses/${course.id}/teachers`, { token: owner.token, json: { identifier: co.username } })).status).toBe(201)
    for (const who of [owner, co, a]) {
      const r = await api.get(`/courses/${course.id}`, { token: who.token })
      expect(r.data).toMatchObject({ memberCount: 4, studentCount: 2 })
    }
    const list = await api.get('/courses', { token: co.token })
    expect(list.status).toBe(200)
    const items = Array.isArray(list.data) ? list.data : list.data.items
    expect(items.find((c: any) => c.id === course.id)).toMatchObject({ studentCount: 2 })
  })

  test('the course read still refuses no login (401), a non-member (403) and an unknown course (404)', async () => {
    const course = await insertCourse(sql, owner.id, 'Acoustics')
    expect((await api.get(`/courses/${course.id}`)).status).toBe(401)
    expect((await api.get(`/courses/${course.id}`, { token: outsider.token })).status).toBe(403)
    expect((await api.get(`/courses/${crypto.randomUUID()}`, { token: owner.token })).status).toBe(404)
  })
})
