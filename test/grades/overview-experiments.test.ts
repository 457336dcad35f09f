import { afterAll, beforeAll, expect, test } from 'bun:test'
import { rm } from 'node:fs/promises'
import type { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { world, type World } from '../experiments/world.ts'
import { formOf } from '../storage/helpers.ts'
import { ManualClock, testApp, type Account, type TestContext } from '../support/harness.ts'

// A student's experiments in the grade overview come by experiment due date (not by id or by
// submission), each the newest submission, its score also in the gradebook cell; whole list
// and page alike.
let ctx: TestContext
let w: World
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const ids: Record<string, string> = {}

async function experiment(title: string, dueAt: string) {
  const res = await ctx.api.post(`/courses/${w.course.id}/experiments`, { json: { title, description: '', dueAt }, token: w.teacher.token })
  expect(res.status).toBe(201)
  return res.data.id as string
}
async function submit(experimentId: string, student: Account) {
  clock.advance(60_000)
  const res = await ctx.api.post(`/experiments/${experimentId}/submissions`, { form: formOf({ file: new File(['r'], 'r.txt') }), token: student.token })
  expect(res.status).toBe(201)
  return res.data.id as string
}

beforeAll(async () => {
  ctx = await testApp({ clock })
  w = await world(ctx, { students: 2, names: ['Ann', 'Ben'] })
  // Created latest-due first, so id order is the reverse of due order.
  ids.late = await experiment('Late', '2026-12-30T00:00:00Z')
  ids.mid = await experiment('Mid', '2026-12-15T00:00:00Z')
  ids.early = await experiment('Early', '2026-12-01T00:00:00Z')
  const ann = w.students[0]!
  ids.annLate = await submit(ids.late, ann)
  ids.annEarlyOld = await submit(ids.early, ann)
  ids.annEarly = await submit(ids.early, ann)
  ids.annMid = await submit(ids.mid, ann)
  const graded = await ctx.api.patch(`/submissions/${ids.annMid}/grade`, { json: { score: 75.5, feedback: '<p>Good</p>' }, token: w.teacher.token })
  expect(graded.status).toBe(200)
}, 60_000)
afterAll(async () => {
  await rm((ctx.deps.storage as LocalDiskStorage).root, { recursive: true, force: true })
})

test.each(['', '?page=1&pageSize=1'])('GET …/grades/overview%s: experiments by due date, newest submission each', async (query) => {
  const res = await ctx.api.get(`/courses/${w.course.id}/grades/overview${query}`, { token: w.teacher.token })
  expect(res.status).toBe(200)
  expect(res.code).toBe(0)
  const ann = res.data.students[0]
  expect(ann.displayName).toBe('Ann')
  expect(ann.experiments.map((x: any) => [x.title, x.submissionId, x.score, x.feedback])).toEqual([
    ['Early', ids.annEarly, null, null],
    ['Mid', ids.annMid, 75.5, '<p>Good</p>'],
    ['Late', ids.annLate, null, null],
  ])
  expect(ann.cells).toEqual({ [ids.mid!]: 75.5 })
  expect(res.data.columns.map((c: any) => c.title)).toEqual(['Early', 'Mid', 'Late'])
  if (query) expect(res.data.students).toHaveLength(1)
  else expect(res.data.students[1]).toMatchObject({ displayName: 'Ben', experiments: [], cells: {} })
})
