import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rm } from 'node:fs/promises'
import type { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { formOf, sampleBytes } from '../storage/helpers.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { ManualClock, testApp, type TestContext } from '../support/harness.ts'
import { NOT_A_UUID, UNKNOWN_ID, world, type World } from './world.ts'

/** GET /experiments/mine: the homework centre's experiment deadlines, across the caller's courses. */
let ctx: TestContext
let w: World
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const ids: Record<string, string> = {}
let secondCourse: { id: string; title: string }

const create = async (courseId: string, title: string, dueAt: string, token = w.teacher.token) => {
  const res = await ctx.api.post(`/courses/${courseId}/experiments`, { json: { title, description: '', dueAt }, token })
  expect(res.status).toBe(201)
  return res.data.id as string
}

beforeAll(async () => {
  ctx = await testApp({ clock })
  w = await world(ctx, { students: 2 })
  secondCourse = await insertCourse(ctx.deps.sql, w.teacher.id, 'Chemistry')
  await addStudent(ctx.deps.sql, secondCourse.id, w.students[0]!.id)
  ids.late = await create(w.course.id, 'Pendulum', '2026-11-22T09:00:00.000Z')
  ids.ohm = await create(w.course.id, 'Ohm', '2026-11-24T08:00:00.000Z')
  ids.titration = await create(secondCourse.id, 'Titration', '2026-11-23T08:00:00.000Z')
  ids.other = await create(w.otherCourse.id, 'Not mine', '2026-11-23T08:00:00.000Z', w.otherTeacher.token)
  const file = () => formOf({ file: new File([sampleBytes(500)], 'r.pdf', { type: 'application/pdf' }) })
  await ctx.api.post(`/experiments/${ids.ohm}/submissions`, { form: file(), token: w.students[0]!.token })
  clock.advance(2 * 3600_000) // 10:00: Pendulum is past due
  await ctx.api.post(`/experiments/${ids.late}/submissions`, { form: file(), token: w.students[1]!.token })
}, 60_000)
afterAll(async () => {
  await rm((ctx.deps.storage as LocalDiskStorage).root, { recursive: true, force: true })
})

describe('GET /experiments/mine', () => {
  test("a student sees the experiments of their courses only, by due time, with their own state", async () => {
    const res = await ctx.api.get('/experiments/mine', { token: w.students[0]!.token })
    expect(res.status).toBe(200)
    expect(res.code).toBe(0)
    expect(res.data.items).toEqual([
      {
        experimentId: ids.late,
        courseId: w.course.id,
        courseTitle: w.course.title,
        title: 'Pendulum',
        dueAt: '2026-11-22T09:00:00.000Z',
        status: 'OVERDUE',
        submittedAt: null,
        late: null,
        score: null,
        remainingSeconds: 0,
      },
      {
        experimentId: ids.titration,
        courseId: secondCourse.id,
        courseTitle: 'Chemistry',
        title: 'Titration',
        dueAt: '2026-11-23T08:00:00.000Z',
        status: 'OPEN',
        submittedAt: null,
        late: null,
        score: null,
        remainingSeconds: 22 * 3600,
      },
      {
        experimentId: ids.ohm,
        courseId: w.course.id,
        courseTitle: w.course.title,
        title: 'Ohm',
        dueAt: '2026-11-24T08:00:00.000Z',
        status: 'SUBMITTED',
        submittedAt: '2026-11-22T08:00:00.000Z',
        late: false,
        score: null,
        remainingSeconds: 46 * 3600,
      },
    ])
  })

  test('a late submission and a grade show up for that student', async () => {
    const subs = await ctx.api.get(`/experiments/${ids.late}/submissions`, { token: w.teacher.token })
    const sub = subs.data.items?.[0] ?? subs.data[0]
    const graded = await ctx.api.patch(`/submissions/${sub.id}/grade`, { json: { score: 87.5 }, token: w.teacher.token })
    expect(graded.status).toBe(200)
    const res = await ctx.api.get('/experiments/mine', { token: w.students[1]!.token })
    expect(res.status).toBe(200)
    expect(res.data.items.map((i: any) => [i.title, i.status, i.late, i.score])).toEqual([
      ['Pendulum', 'SUBMITTED', true, 87.5],
      ['Ohm', 'OPEN', null, null],
    ])
  })

  test('the teacher sees every experiment they teach with submission counts', async () => {
    const res = await ctx.api.get('/experiments/mine', { token: w.teacher.token })
    expect(res.status).toBe(200)
    expect(res.data.items.map((i: any) => [i.title, i.status, i.submittedAt, i.submittedCount, i.studentCount])).toEqual([
      ['Pendulum', 'OVERDUE', null, 1, 2],
      ['Titration', 'OPEN', null, 0, 1],
      ['Ohm', 'OPEN', null, 1, 2],
    ])
  })

  test('courseId narrows to one course; 403 outside it, 404 unknown, 400 not a UUID', async () => {
    const one = await ctx.api.get(`/experiments/mine?courseId=${secondCourse.id}`, { token: w.students[0]!.token })
    expect(one.status).toBe(200)
    expect(one.data.items.map((i: any) => i.title)).toEqual(['Titration'])
    const outside = await ctx.api.get(`/experiments/mine?courseId=${secondCourse.id}`, { token: w.students[1]!.token })
    expect(outside.status).toBe(403)
    expect(outside.code).toBeGreaterThanOrEqual(40300)
    expect(outside.code).toBeLessThan(40400)
    const unknown = await ctx.api.get(`/experiments/mine?courseId=${UNKNOWN_ID}`, { token: w.students[0]!.token })
    expect(unknown.status).toBe(404)
    const bad = await ctx.api.get(`/experiments/mine?courseId=${NOT_A_UUID}`, { token: w.students[0]!.token })
    expect(bad.status).toBe(400)
    expect(bad.code).toBe(40001)
  })

  test('a student of another course sees only that course; no login is a 401', async () => {
    const none = await ctx.api.get('/experiments/mine', { token: w.outsider.token })
    expect(none.status).toBe(200)
    expect(none.data.items.map((i: any) => i.title)).toEqual(['Not mine'])
    const anon = await ctx.api.get('/experiments/mine')
    expect(anon.status).toBe(401)
    expect(anon.code).toBeGreaterThanOrEqual(40100)
    expect(anon.code).toBeLessThan(40200)
  })
})
