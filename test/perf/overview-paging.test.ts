import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rm } from 'node:fs/promises'
import type { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { world, type World } from '../experiments/world.ts'
import { formOf } from '../storage/helpers.ts'
import { insertHomework, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { ManualClock, testApp, type TestContext } from '../support/harness.ts'

// GET …/learning/overview and …/grades/overview page their students on request
// (`page` / `pageSize`, at most 200); without them the whole list comes back as before.
let ctx: TestContext
let w: World
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const NAMES = ['Eve', 'Bob', 'Dan', 'Ann', 'Cat']
const ORDER = ['Ann', 'Bob', 'Cat', 'Dan', 'Eve']
const experimentOf: Record<string, string> = {}

beforeAll(async () => {
  ctx = await testApp({ clock })
  w = await world(ctx, { students: NAMES.length, names: NAMES })
  const { pointId } = await insertPoint(ctx.deps.sql, w.course.id)
  const task = await insertHomework(ctx.deps.sql, w.course.id, pointId, { startAt: new Date('2026-11-20T00:00:00Z'), dueAt: new Date('2026-12-20T00:00:00Z') })
  const exp = await ctx.api.post(`/courses/${w.course.id}/experiments`, { json: { title: 'Lab', description: '', dueAt: '2026-12-01T00:00:00Z' }, token: w.teacher.token })
  expect(exp.status).toBe(201)
  // Every student answers the task and hands in the experiment.
  for (const s of w.students) {
    await insertSubmission(ctx.deps.sql, task.id, w.course.id, s.id, new Date('2026-11-21T00:00:00Z'))
    clock.advance(1_000)
    const res = await ctx.api.post(`/experiments/${exp.data.id}/submissions`, { form: formOf({ file: new File(['r'], 'r.txt') }), token: s.token })
    expect(res.status).toBe(201)
    experimentOf[s.id] = res.data.id
  }
}, 60_000)
afterAll(async () => {
  await rm((ctx.deps.storage as LocalDiskStorage).root, { recursive: true, force: true })
})

const names = (data: any) => data.students.map((s: any) => s.displayName)

describe.each([['learning', 'learning/overview'], ['grades', 'grades/overview']])('GET …/%s overview, paged', (_, path) => {
  const get = (query = '', token = w.teacher.token) => ctx.api.get(`/courses/${w.course.id}/${path}${query}`, { token })

  test('without page and pageSize: every student, as before, with total, page 1 and pageSize null', async () => {
    const res = await get()
    expect(res.status).toBe(200)
    expect(res.code).toBe(0)
    expect(names(res.data)).toEqual(ORDER)
    expect(res.data).toMatchObject({ total: 5, page: 1, pageSize: null })
  })

  test('page 2 of 2: the third and fourth students of the same order', async () => {
    const res = await get('?page=2&pageSize=2')
    expect(res.status).toBe(200)
    expect(names(res.data)).toEqual(['Cat', 'Dan'])
    expect(res.data).toMatchObject({ total: 5, page: 2, pageSize: 2 })
    const last = await get('?page=3&pageSize=2')
    expect(names(last.data)).toEqual(['Eve'])
    expect(last.data).toMatchObject({ total: 5, page: 3, pageSize: 2 })
  })

  test('only pageSize: page 1; only page: 50 a page', async () => {
    const first = await get('?pageSize=3')
    expect(names(first.data)).toEqual(['Ann', 'Bob', 'Cat'])
    expect(first.data).toMatchObject({ total: 5, page: 1, pageSize: 3 })
    const fifty = await get('?page=1')
    expect(names(fifty.data)).toEqual(ORDER)
    expect(fifty.data).toMatchObject({ total: 5, page: 1, pageSize: 50 })
  })

  test('a page past the end is empty and still counts the whole list', async () => {
    const res = await get('?page=9&pageSize=2')
    expect(res.status).toBe(200)
    const { columns, ...rest } = res.data
    expect(rest).toEqual({ students: [], total: 5, page: 9, pageSize: 2 })
    // The grade overview's gradebook columns describe the course, whatever the page.
    if (path === 'grades/overview') expect(columns.map((c: { kind: string }) => c.kind)).toEqual(['TASK', 'EXPERIMENT'])
    else expect(columns).toBeUndefined()
  })

  test.each(['?pageSize=201', '?pageSize=0', '?page=0', '?page=x'])('%s → 400', async (query) => {
    const res = await get(query)
    expect(res.status).toBe(400)
    expect(res.code).toBeGreaterThan(0)
  })
})

describe('paged overviews: what a page carries', () => {
  test('a page of the grade overview carries the experiments of its own students only', async () => {
    const res = await ctx.api.get(`/courses/${w.course.id}/grades/overview?page=1&pageSize=2`, { token: w.teacher.token })
    expect(res.status).toBe(200)
    const byName = new Map(w.students.map((s, i) => [NAMES[i], s.id]))
    expect(res.data.students.map((s: any) => s.experiments.map((e: any) => e.submissionId))).toEqual([
      [experimentOf[byName.get('Ann')!]],
      [experimentOf[byName.get('Bob')!]],
    ])
    expect(res.data.students.map((s: any) => s.submissionCount)).toEqual([2, 2])
  })

  test('a student sees their own row, total 1, paged or not', async () => {
    const eve = w.students[0]!
    for (const query of ['', '?page=1&pageSize=10']) {
      const res = await ctx.api.get(`/courses/${w.course.id}/learning/overview${query}`, { token: eve.token })
      expect(res.status).toBe(200)
      expect(names(res.data)).toEqual(['Eve'])
      expect(res.data.total).toBe(1)
    }
    const past = await ctx.api.get(`/courses/${w.course.id}/learning/overview?page=2&pageSize=10`, { token: eve.token })
    expect(past.data).toEqual({ students: [], total: 1, page: 2, pageSize: 10 })
  })
})
