import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { findCourse, listCoursesOf } from '../../src/modules/courses/queries.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, testApp, usingExternalDb, type Account, type Client } from '../support/harness.ts'
import { plansOf } from '../support/plans.ts'

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

/*
 * The course reads' statements, from their plans (auto_explain, support/plans.ts: PostgreSQL only).
 * The student count was written as `cross join lateral (select <scalar subquery> as students)`:
 * PostgreSQL pulled it up and summed the counter rows once for memberCount and again for
 * studentCount (two SubPlans). GET /courses also read, for a student, the courses they own and
 * co-teach (none: only teachers do).
 */
describe.skipIf(!usingExternalDb())('the course reads\' plans (real PostgreSQL)', () => {
  const scansOf = (plan: string, table: string) => plan.match(new RegExp(` on ${table} `, 'g'))?.length ?? 0

  test('GET /courses/{id}: the student counters are read once', async () => {
    const course = await insertCourse(sql, owner.id, 'Plans of one course')
    await addStudent(sql, course.id, a.id)
    let row: Awaited<ReturnType<typeof findCourse>> = null
    const [plan] = await plansOf(async (tx) => {
      row = await findCourse(tx, course.id, a.id)
    })
    expect(row).toMatchObject({ member_count: 2, student_count: 1 })
    expect(scansOf(plan!, 'course_student_counts')).toBe(1)
  })

  test("a student's GET /courses: their memberships only, each course's student counters once", async () => {
    const student = await signUp(api)
    const [c1, c2] = [await insertCourse(sql, owner.id, 'Plans A'), await insertCourse(sql, owner.id, 'Plans B')]
    await addStudent(sql, c1.id, student.id)
    await addStudent(sql, c2.id, student.id)
    let rows: readonly { id: string; member_count: number; student_count: number }[] = []
    const [plan] = await plansOf(async (tx) => {
      rows = await listCoursesOf(tx, { id: student.id, role: 'STUDENT' })
    })
    expect(rows.map((r) => r.id).sort()).toEqual([c1.id, c2.id].sort())
    expect(rows.every((r) => r.student_count >= 1 && r.member_count === r.student_count + 1)).toBe(true)
    expect(scansOf(plan!, 'course_members')).toBe(1)
    expect(scansOf(plan!, 'course_teachers')).toBe(0)
    // The courses table is read for the two rows' details, never for courses the student owns.
    expect(plan).not.toMatch(/Filter: \(teacher_id = /)
    // One read of the counters per course of the list (a loop of two), not two.
    expect(scansOf(plan!, 'course_student_counts')).toBe(1)
  })
})
