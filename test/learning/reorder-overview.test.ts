import { beforeAll, describe, expect, test } from 'bun:test'
import { usingExternalDb } from '../support/harness.ts'
import { BIG, choice, createTask, NOT_A_UUID, pointIn, shortAnswer, textTask, world, type World } from './helpers.ts'


let w: World
beforeAll(async () => {
  w = await world()
})

async function pointWithTasks(n: number) {
  const { point } = await pointIn(w)
  const ids: string[] = []
  for (let i = 0; i < n; i++) ids.push((await createTask(w.api, w.base, w.teacher, point.id, { ...textTask, title: `T${i}` })).id)
  return { pointId: point.id, ids }
}

const orderOf = async (pointId: string) => {
  const rows = await w.deps.sql<{ id: string; sort_order: number }[]>`
    select id, sort_order from learning_tasks where point_id = ${pointId} order by sort_order, id`
  return rows
}

describe('reordering tasks', () => {
  const path = (pointId: string) => `${w.base}/points/${pointId}/tasks/order`

  test('writes sortOrder 1..n in the requested order and returns the tasks', async () => {
    const { pointId, ids } = await pointWithTasks(4)
    const wanted = [ids[2]!, ids[0]!, ids[3]!, ids[1]!]
    const r = await w.api.patch(path(pointId), { token: w.teacher.token, json: { orderedTaskIds: wanted } })
    expect(r.status).toBe(200)
    expect(r.code).toBe(0)
    expect(r.data.map((t: any) => [t.id, t.sortOrder])).toEqual(wanted.map((id, i) => [id, i + 1]))
    expect((await orderOf(pointId)).map((x) => x.id)).toEqual(wanted)
    const tree = await w.api.get(w.base, { token: w.student.token })
    const point = tree.data.units.flatMap((u: any) => u.points).find((p: any) => p.id === pointId)
    expect(point.tasks.map((t: any) => t.id)).toEqual(wanted)
    // A new task still goes last.
    const added = await createTask(w.api, w.base, w.teacher, pointId, textTask)
    expect(added.sortOrder).toBe(5)
  })

  test('an empty point takes an empty list', async () => {
    const { pointId } = await pointWithTasks(0)
    const r = await w.api.patch(path(pointId), { token: w.teacher.token, json: { orderedTaskIds: [] } })
    expect(r.status).toBe(200)
    expect(r.data).toEqual([])
  })

  test('400 unless the list is exactly the point’s tasks, each once', async () => {
    const { pointId, ids } = await pointWithTasks(3)
    const other = await pointWithTasks(1)
    const cases: [string, unknown][] = [
      ['missing one', { orderedTaskIds: [ids[0], ids[1]] }],
      ['duplicate', { orderedTaskIds: [ids[0], ids[1], ids[1]] }],
      ['duplicate replacing one', { orderedTaskIds: [ids[0], ids[0], ids[1]] }],
      ['extra', { orderedTaskIds: [...ids, other.ids[0]] }],
      ['foreign swapped in', { orderedTaskIds: [ids[0], ids[1], other.ids[0]] }],
      ['empty', { orderedTaskIds: [] }],
      ['missing field', {}],
      ['not an array', { orderedTaskIds: ids[0] }],
      ['non-UUID', { orderedTaskIds: [ids[0], ids[1], 'nope'] }],
      ['200 KB id', { orderedTaskIds: [BIG] }],
    ]
    for (const [name, json] of cases) {
      const r = await w.api.patch(path(pointId), { token: w.teacher.token, json })
      expect([name, r.status, r.code]).toEqual([name, 400, 40001])
    }
    expect((await orderOf(pointId)).map((x) => x.id)).toEqual(ids)
  })

  test('401, 403, 404', async () => {
    const { pointId, ids } = await pointWithTasks(2)
    const json = { orderedTaskIds: [ids[1], ids[0]] }
    expect((await w.api.patch(path(pointId), { json })).status).toBe(401)
    for (const who of [w.student, w.outsider, w.otherTeacher]) expect((await w.api.patch(path(pointId), { token: who.token, json })).status).toBe(403)
    const foreign = await pointIn({ api: w.api, base: w.otherBase, teacher: w.otherTeacher })
    const r = await w.api.patch(`${w.base}/points/${foreign.point.id}/tasks/order`, { token: w.teacher.token, json: { orderedTaskIds: [] } })
    expect(r.status).toBe(404)
    expect(r.code).toBe(40403)
    expect((await w.api.patch(path(NOT_A_UUID), { token: w.teacher.token, json })).status).toBe(400)
    expect((await orderOf(pointId)).map((x) => x.id)).toEqual(ids)
  })

  test.skipIf(!usingExternalDb())('concurrent reorders serialise: the result is always one requested order', async () => {
    for (let round = 0; round < 5; round++) {
      const { pointId, ids } = await pointWithTasks(6)
      const orders = Array.from({ length: 8 }, (_, k) => {
        const o = [...ids]
        for (let i = o.length - 1; i > 0; i--) {
          const j = (i * 7 + k * 13 + round) % (i + 1)
          ;[o[i], o[j]] = [o[j]!, o[i]!]
        }
        return o
      })
      const results = await Promise.all(
        orders.map((orderedTaskIds) => w.api.patch(path(pointId), { token: w.teacher.token, json: { orderedTaskIds } })),
      )
      for (const r of results) expect(r.status).toBe(200)
      const final = await orderOf(pointId)
      expect(final.map((x) => x.sort_order)).toEqual([1, 2, 3, 4, 5, 6])
      expect(orders.map((o) => o.join())).toContain(final.map((x) => x.id).join())
      // Each response is itself one coherent order (the one that request wrote).
      for (const [i, r] of results.entries()) expect(r.data.map((t: any) => t.id)).toEqual(orders[i])
    }
  })

  test.skipIf(!usingExternalDb())('tasks created during concurrent reorders get distinct positions', async () => {
    const { pointId, ids } = await pointWithTasks(3)
    const reorders = Array.from({ length: 4 }, (_, k) => (k % 2 ? [...ids].reverse() : ids))
    const results = await Promise.all([
      ...reorders.map((orderedTaskIds) => w.api.patch(path(pointId), { token: w.teacher.token, json: { orderedTaskIds } })),
      ...Array.from({ length: 4 }, () => w.api.post(`${w.base}/points/${pointId}/tasks`, { token: w.teacher.token, json: { title: 'new', ...textTask } })),
    ])
    for (const r of results) expect([200, 201, 400]).toContain(r.status)
    const final = await orderOf(pointId)
    expect(final).toHaveLength(7)
    expect(new Set(final.map((x) => x.sort_order)).size).toBe(7)
  })
})

describe('learning overview', () => {
  test('per student totals, newest submission per task, teacher sees all, a student only their row', async () => {
    const ctx = await world()
    const { point } = await pointIn(ctx)
    const quiz = await createTask(ctx.api, ctx.base, ctx.teacher, point.id, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0])] })
    // Homework, not reading material: material is no task of the totals (issue 29.5, test/grades/one-total.test.ts).
    const homeworkText = { ...textTask, taskKind: 'HOMEWORK', dueAt: '2099-01-01T00:00:00.000Z' }
    const essay = await createTask(ctx.api, ctx.base, ctx.teacher, point.id, homeworkText)
    const mixed = await createTask(ctx.api, ctx.base, ctx.teacher, point.id, { taskType: 'QUIZ', questions: [shortAnswer()] })
    await createTask(ctx.api, ctx.base, ctx.teacher, point.id, homeworkText) // nobody submits this one
    const submit = (taskId: string, who: typeof ctx.student, json: unknown) =>
      ctx.api.post(`${ctx.base}/tasks/${taskId}/submissions`, { token: who.token, json })
    const q = quiz.questions[0].id

    // Alice: quiz right (auto 100), then a newer wrong attempt (auto 0) → newest counts: 0.
    await submit(quiz.id, ctx.student, { answers: [{ questionId: q, selectedOptions: [0] }] })
    await Bun.sleep(5) // the scenario: the next attempt is submitted later (newest counts)
    await submit(quiz.id, ctx.student, { answers: [{ questionId: q, selectedOptions: [1] }] })
    // Alice: essay graded 90.
    const essaySub = (await submit(essay.id, ctx.student, { content: 'essay' })).data
    await ctx.api.patch(`${ctx.base}/submissions/${essaySub.id}/grade`, { token: ctx.teacher.token, json: { score: 90 } })
    // Alice: short answer submitted, not graded.
    await submit(mixed.id, ctx.student, { answers: [{ questionId: mixed.questions[0].id, text: 'x' }] })
    // Bob: essay graded 75.5, then resubmitted (newest not graded yet).
    const bobFirst = (await submit(essay.id, ctx.student2, { content: 'v1' })).data
    await ctx.api.patch(`${ctx.base}/submissions/${bobFirst.id}/grade`, { token: ctx.teacher.token, json: { score: 75.5 } })
    await Bun.sleep(5) // the scenario: the resubmission is later than the graded one
    await submit(essay.id, ctx.student2, { content: 'v2' })

    const teacherView = await ctx.api.get(`${ctx.base}/overview`, { token: ctx.teacher.token })
    expect(teacherView.status).toBe(200)
    expect(teacherView.code).toBe(0)
    expect(teacherView.data.students).toEqual([
      { userId: ctx.student.id, username: ctx.student.username, displayName: 'Alice', totalTasks: 4, submittedTasks: 3, gradedTasks: 2, averageScore: 45 },
      { userId: ctx.student2.id, username: ctx.student2.username, displayName: 'Bob', totalTasks: 4, submittedTasks: 1, gradedTasks: 0, averageScore: null },
    ])
    const aliceView = await ctx.api.get(`${ctx.base}/overview`, { token: ctx.student.token })
    expect(aliceView.data.students).toEqual([teacherView.data.students[0]])
    const bobView = await ctx.api.get(`${ctx.base}/overview`, { token: ctx.student2.token })
    expect(bobView.data.students).toEqual([teacherView.data.students[1]])
  })

  test('a course without students or tasks', async () => {
    const ctx = await world()
    const r = await ctx.api.get(`${ctx.otherBase}/overview`, { token: ctx.otherTeacher.token })
    expect(r.status).toBe(200)
    expect(r.data.students).toEqual([{ userId: ctx.outsider.id, username: ctx.outsider.username, displayName: 'Outsider', totalTasks: 0, submittedTasks: 0, gradedTasks: 0, averageScore: null }])
  })

  test('401, 403, 400, 404', async () => {
    const path = `${w.base}/overview`
    expect((await w.api.get(path)).status).toBe(401)
    for (const who of [w.outsider, w.otherTeacher]) expect((await w.api.get(path, { token: who.token })).status).toBe(403)
    expect((await w.api.get(`/courses/${NOT_A_UUID}/learning/overview`, { token: w.teacher.token })).status).toBe(400)
    const unknown = await w.api.get('/courses/01900000-0000-7000-8000-000000000000/learning/overview', { token: w.teacher.token })
    expect(unknown.status).toBe(404)
    expect(unknown.code).toBe(40401)
  })
})
