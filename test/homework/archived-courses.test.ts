import { beforeAll, expect, test } from 'bun:test'
import { ManualClock } from '../support/harness.ts'
import { createTask, pointIn, textTask, world, type World } from '../learning/helpers.ts'

/**
 * Issue 56.3: an archived course's homework and experiments leave the homework centre (read-only:
 * nothing to hand in there), for its students and its teacher; asking for that course by id still
 * lists them (its members read everything), and unarchiving brings them back.
 */
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World

beforeAll(async () => {
  w = await world({ clock })
  const pointId = (await pointIn(w)).point.id
  await createTask(w.api, w.base, w.teacher, pointId, { title: 'Archived essay', ...textTask, taskKind: 'HOMEWORK', dueAt: '2026-11-29T08:00:00.000Z' })
  await w.api.post(`/courses/${w.course.id}/experiments`, { token: w.teacher.token, json: { title: 'Archived lab', description: '', dueAt: '2026-11-29T08:00:00.000Z' } })
}, 60_000)

const centre = async (token: string, query = '') => ((await w.api.get(`/homeworks/mine${query}`, { token })).data.items as any[]).map((i) => i.title)
const experiments = async (token: string, query = '') => ((await w.api.get(`/experiments/mine${query}`, { token })).data.items as any[]).map((i) => i.title)
const archive = async (archived: boolean) => expect((await w.api.patch(`/courses/${w.course.id}`, { token: w.teacher.token, json: { archived } })).status).toBe(200)

test('archived courses leave the homework centre; by course id they are still listed', async () => {
  for (const token of [w.student.token, w.teacher.token]) {
    expect(await centre(token)).toEqual(['Archived essay'])
    expect(await experiments(token)).toEqual(['Archived lab'])
  }
  await archive(true)
  for (const token of [w.student.token, w.teacher.token]) {
    expect(await centre(token)).toEqual([])
    expect(await experiments(token)).toEqual([])
    expect(await centre(token, `?courseId=${w.course.id}`)).toEqual(['Archived essay'])
    expect(await experiments(token, `?courseId=${w.course.id}`)).toEqual(['Archived lab'])
    const course = await w.api.get(`/courses/${w.course.id}/homeworks`, { token })
    expect([course.status, course.data.items.map((i: any) => i.title)]).toEqual([200, ['Archived essay']])
  }
  await archive(false)
  expect(await centre(w.student.token)).toEqual(['Archived essay'])
})
