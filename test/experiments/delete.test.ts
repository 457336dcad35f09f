import { beforeAll, describe, expect, test } from 'bun:test'
import { formOf } from '../storage/helpers.ts'
import { ManualClock, testApp, type TestContext } from '../support/harness.ts'
import { NOT_A_UUID, UNKNOWN_ID, world, type World } from './world.ts'

let ctx: TestContext
let w: World
const clock = new ManualClock('2026-11-22T08:00:00.000Z')

beforeAll(async () => {
  ctx = await testApp({ clock })
  w = await world(ctx)
}, 60_000)

const lab = { title: 'Ohm', description: '<p>Measure</p>', dueAt: '2026-12-01T00:00:00.000Z' }
const create = async (courseId = w.course.id, token = w.teacher.token) => {
  const res = await ctx.api.post(`/courses/${courseId}/experiments`, { json: lab, token })
  expect(res.status).toBe(201)
  return res.data.id as string
}
const del = (id: string, token = w.teacher.token, courseId = w.course.id) => ctx.api.del(`/courses/${courseId}/experiments/${id}`, { token })
const get = (id: string) => ctx.api.get(`/courses/${w.course.id}/experiments/${id}`, { token: w.teacher.token })
const rowsOf = async (id: string) =>
  (await ctx.deps.sql<{ n: number }[]>`select count(*)::int as n from experiments where id = ${id}`)[0]!.n

describe('DELETE /courses/{courseId}/experiments/{experimentId}', () => {
  test('the course teacher deletes an experiment without submissions; it is gone', async () => {
    const id = await create()
    const res = await del(id)
    expect({ status: res.status, code: res.code, data: res.data }).toEqual({ status: 200, code: 0, data: { id } })
    const after = await get(id)
    expect({ status: after.status, code: after.code }).toEqual({ status: 404, code: 40406 })
    const list = await ctx.api.get(`/courses/${w.course.id}/experiments`, { token: w.teacher.token })
    expect(list.data.some((e: any) => e.id === id)).toBe(false)
    // A second delete finds nothing.
    expect((await del(id)).status).toBe(404)
  })

  test('also under /core/api/v1', async () => {
    const id = await create()
    const res = await ctx.api.del(`//core/api/v1/courses/${w.course.id}/experiments/${id}`, { token: w.teacher.token })
    expect(res.status).toBe(200)
    expect(await rowsOf(id)).toBe(0)
  })

  test('once a student has submitted → 409 HAS_SUBMISSIONS, and nothing changes', async () => {
    const id = await create()
    const sub = await ctx.api.post(`/experiments/${id}/submissions`, {
      form: formOf({ file: new File(['report'], 'report.txt', { type: 'text/plain' }) }),
      token: w.students[0]!.token,
    })
    expect(sub.status).toBe(201)
    const before = await get(id)
    const res = await del(id)
    expect({ status: res.status, code: res.code, data: res.data }).toEqual({ status: 409, code: 40904, data: null })
    expect(res.message).toBe('Students have already submitted to this experiment, so it cannot be deleted. Edit it instead.')
    expect((await get(id)).data).toEqual(before.data)
    const subs = await ctx.api.get(`/experiments/${id}/submissions`, { token: w.teacher.token })
    expect(subs.data.items.map((s: any) => s.id)).toEqual([sub.data.id])
  })

  test('the 409 is in the reader’s language', async () => {
    const id = await create()
    await ctx.api.post(`/experiments/${id}/submissions`, {
      form: formOf({ file: new File(['report'], 'report.txt', { type: 'text/plain' }) }),
      token: w.students[1]!.token,
    })
    const res = await ctx.api.del(`/courses/${w.course.id}/experiments/${id}`, { token: w.teacher.token, headers: { 'accept-language': 'zh-CN' } })
    expect(res.status).toBe(409)
    expect(res.message).toBe('已有学生提交了这个实验，无法删除，可以改为编辑。')
  })

  test.each([
    ['no credentials', () => '', 401, 40100],
    ['a student of the course', () => w.students[0]!.token, 403, 40300],
    ['a teacher of another course', () => w.otherTeacher.token, 403, 40300],
    ['an outsider student', () => w.outsider.token, 403, 40300],
  ])('%s → refused, and the experiment stays', async (_, token, status, code) => {
    const id = await create()
    const res = await del(id, token())
    expect({ status: res.status, code: res.code, data: res.data }).toEqual({ status, code, data: null })
    expect(await rowsOf(id)).toBe(1)
  })

  test('an unknown experiment → 404 (40406)', async () => {
    const res = await del(UNKNOWN_ID)
    expect({ status: res.status, code: res.code }).toEqual({ status: 404, code: 40406 })
  })

  test('an experiment of another course, addressed under this one → 404 (40406), and it stays', async () => {
    const foreign = await create(w.otherCourse.id, w.otherTeacher.token)
    const res = await del(foreign)
    expect({ status: res.status, code: res.code, data: res.data }).toEqual({ status: 404, code: 40406, data: null })
    expect(await rowsOf(foreign)).toBe(1)
  })

  test('an unknown course → 404 (40401); a non-UUID id → 400', async () => {
    const id = await create()
    const unknownCourse = await del(id, w.teacher.token, UNKNOWN_ID)
    expect({ status: unknownCourse.status, code: unknownCourse.code }).toEqual({ status: 404, code: 40401 })
    const bad = await del(NOT_A_UUID)
    expect(bad.status).toBe(400)
    expect(await rowsOf(id)).toBe(1)
  })

  test('a submission to a deleted experiment → 404 (40406)', async () => {
    const id = await create()
    expect((await del(id)).status).toBe(200)
    const res = await ctx.api.post(`/experiments/${id}/submissions`, {
      form: formOf({ file: new File(['late'], 'late.txt', { type: 'text/plain' }) }),
      token: w.students[0]!.token,
    })
    expect({ status: res.status, code: res.code }).toEqual({ status: 404, code: 40406 })
  })
})
