import { beforeAll, describe, expect, test } from 'bun:test'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, testApp, type Account, type Client } from '../support/harness.ts'

/* Issue 29.10: a table in rich text (pasted into the editor) is stored and returned as a table. */
let api: Client
let teacher: Account, student: Account, outsider: Account
let courseId: string

beforeAll(async () => {
  const ctx = await testApp()
  api = ctx.api
  ;[teacher, student, outsider] = await Promise.all([signUp(api, 'TEACHER'), signUp(api), signUp(api)])
  courseId = (await insertCourse(ctx.deps.sql, teacher.id, 'Statistics')).id
  await addStudent(ctx.deps.sql, courseId, student.id)
}, 30_000)

const TABLE = '<table style="min-width: 50px"><colgroup><col></colgroup><tbody><tr><th>Week</th><th>Topic</th></tr><tr><td>1</td><td colspan="1"><p>Means</p></td></tr></tbody></table>'
const KEPT = '<table><tbody><tr><th>Week</th><th>Topic</th></tr><tr><td>1</td><td><p>Means</p></td></tr></tbody></table>'

describe('rich text keeps tables', () => {
  test('an announcement with a table: stored without style or colgroup, the student reads the table', async () => {
    const r = await api.post(`/courses/${courseId}/announcements`, { token: teacher.token, json: { title: 'Schedule', content: TABLE } })
    expect([r.status, r.code]).toEqual([201, 0])
    expect(r.data.content).toBe(KEPT)
    const list = await api.get(`/courses/${courseId}/announcements`, { token: student.token })
    expect(list.status).toBe(200)
    const items = Array.isArray(list.data) ? list.data : list.data.items
    expect(items.find((a: any) => a.id === r.data.id).content).toBe(KEPT)
  })

  test('a table with nothing safe in it is empty (400); no login 401; a student or outsider 403; unknown course 404', async () => {
    const empty = await api.post(`/courses/${courseId}/announcements`, { token: teacher.token, json: { title: 'x', content: '<script>alert(1)</script>' } })
    expect([empty.status, empty.code]).toEqual([400, 40001])
    expect((await api.post(`/courses/${courseId}/announcements`, { json: { title: 'x', content: TABLE } })).status).toBe(401)
    expect((await api.post(`/courses/${courseId}/announcements`, { token: student.token, json: { title: 'x', content: TABLE } })).status).toBe(403)
    expect((await api.post(`/courses/${courseId}/announcements`, { token: outsider.token, json: { title: 'x', content: TABLE } })).status).toBe(403)
    expect((await api.post(`/courses/${crypto.randomUUID()}/announcements`, { token: teacher.token, json: { title: 'x', content: TABLE } })).status).toBe(404)
  })
})
