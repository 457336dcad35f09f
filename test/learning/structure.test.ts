import { beforeAll, describe, expect, test } from 'bun:test'
import { insertSubmission } from '../support/fixtures.ts'
import { testApp } from '../support/harness.ts'
import {
  BIG,
  choice,
  countingSql,
  createPoint,
  createTask,
  createUnit,
  HOSTILE,
  NOT_A_UUID,
  pointIn,
  textTask,
  world,
  type World,
} from './helpers.ts'


let w: World
beforeAll(async () => {
  w = await world()
})

describe('units', () => {
  test('create appends last, with description default and trimmed title', async () => {
    const a = await w.api.post(`${w.base}/units`, { token: w.teacher.token, json: { title: '  Intro  ', description: 'First steps' } })
    expect(a.status).toBe(201)
    expect(a.code).toBe(0)
    expect(a.data).toMatchObject({ courseId: w.course.id, title: 'Intro', description: 'First steps' })
    const b = await w.api.post(`${w.base}/units`, { token: w.teacher.token, json: { title: 'Second' } })
    expect(b.status).toBe(201)
    expect(b.data.description).toBe('')
    expect(b.data.sortOrder).toBe(a.data.sortOrder + 1)
  })

  test('is also served under /core/api/v1', async () => {
    const res = await w.app.handle(
      new Request(`http://localhost/core/api/v1${w.base}/units`, {
        method: 'POST',
        headers: { authorization: `Bearer ${w.teacher.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Core' }),
      }),
    )
    expect(res.status).toBe(201)
  })

  test('patch changes title and description', async () => {
    const u = await createUnit(w.api, w.base, w.teacher, 'Old')
    const r = await w.api.patch(`${w.base}/units/${u.id}`, { token: w.teacher.token, json: { title: 'New', description: 'd' } })
    expect(r.status).toBe(200)
    expect(r.data).toMatchObject({ id: u.id, title: 'New', description: 'd', sortOrder: u.sortOrder })
    const only = await w.api.patch(`${w.base}/units/${u.id}`, { token: w.teacher.token, json: { description: '' } })
    expect(only.data).toMatchObject({ title: 'New', description: '' })
  })

  test('delete removes the unit with its points and tasks', async () => {
    const { unit, point } = await pointIn(w)
    const task = await createTask(w.api, w.base, w.teacher, point.id, textTask)
    const r = await w.api.del(`${w.base}/units/${unit.id}`, { token: w.teacher.token })
    expect(r.status).toBe(200)
    expect(r.data).toEqual({ id: unit.id })
    const gone = await w.api.get(`${w.base}/tasks/${task.id}`, { token: w.teacher.token })
    expect(gone.status).toBe(404)
    expect(gone.code).toBe(40404)
    const again = await w.api.del(`${w.base}/units/${unit.id}`, { token: w.teacher.token })
    expect(again.status).toBe(404)
    expect(again.code).toBe(40402)
  })

  test('delete is refused with 409 once a submission exists underneath', async () => {
    const { unit, point } = await pointIn(w)
    const task = await createTask(w.api, w.base, w.teacher, point.id, textTask)
    await insertSubmission(w.deps.sql, task.id, w.course.id, w.student.id, new Date())
    for (const path of [`/units/${unit.id}`, `/points/${point.id}`, `/tasks/${task.id}`]) {
      const r = await w.api.del(`${w.base}${path}`, { token: w.teacher.token })
      expect(r.status).toBe(409)
      expect(r.code).toBe(40904)
      expect(r.message).toContain('submitted')
    }
    const still = await w.api.get(`${w.base}/tasks/${task.id}`, { token: w.teacher.token })
    expect(still.status).toBe(200)
  })

  test('bad bodies → 400 with field list', async () => {
    const cases: [unknown, string][] = [
      [{}, 'title'],
      [{ title: '' }, 'title'],
      [{ title: '   ' }, 'title'],
      [{ title: 42 }, 'title'],
      [{ title: BIG }, 'title'],
      [{ title: 'ok', description: BIG }, 'description'],
      [{ title: 'ok', description: 7 }, 'description'],
    ]
    for (const [json, field] of cases) {
      const r = await w.api.post(`${w.base}/units`, { token: w.teacher.token, json })
      expect(r.status).toBe(400)
      expect(r.code).toBe(40001)
      expect(r.data.fields.map((f: any) => f.field)).toContain(field)
    }
    const u = await createUnit(w.api, w.base, w.teacher)
    const empty = await w.api.patch(`${w.base}/units/${u.id}`, { token: w.teacher.token, json: {} })
    expect(empty.status).toBe(400)
    const malformed = await w.api.post(`${w.base}/units`, {
      token: w.teacher.token,
      raw: '{"title":',
      headers: { 'content-type': 'application/json' },
    })
    expect(malformed.status).toBe(400)
  })

  test('titles are plain text: stored verbatim, returned as JSON strings', async () => {
    const r = await w.api.post(`${w.base}/units`, { token: w.teacher.token, json: { title: '<b>Bold</b> & more' } })
    expect(r.status).toBe(201)
    expect(r.data.title).toBe('<b>Bold</b> & more')
  })
})

describe('points', () => {
  test('create under a unit appends last; patch and delete', async () => {
    const u = await createUnit(w.api, w.base, w.teacher)
    const a = await w.api.post(`${w.base}/units/${u.id}/points`, { token: w.teacher.token, json: { title: 'P1', description: 'x' } })
    expect(a.status).toBe(201)
    expect(a.data).toMatchObject({ unitId: u.id, title: 'P1', description: 'x', sortOrder: 1 })
    const b = await createPoint(w.api, w.base, w.teacher, u.id, 'P2')
    expect(b.sortOrder).toBe(2)
    const p = await w.api.patch(`${w.base}/points/${a.data.id}`, { token: w.teacher.token, json: { title: 'P1b' } })
    expect(p.status).toBe(200)
    expect(p.data).toMatchObject({ id: a.data.id, title: 'P1b', description: 'x' })
    const d = await w.api.del(`${w.base}/points/${b.id}`, { token: w.teacher.token })
    expect(d.status).toBe(200)
    const tree = await w.api.get(w.base, { token: w.teacher.token })
    const unit = tree.data.units.find((x: any) => x.id === u.id)
    expect(unit.points.map((x: any) => x.id)).toEqual([a.data.id])
  })

  test('a unit of another course → 404 UNIT_NOT_FOUND', async () => {
    const foreign = await createUnit(w.api, w.otherBase, w.otherTeacher)
    const r = await w.api.post(`${w.base}/units/${foreign.id}/points`, { token: w.teacher.token, json: { title: 'P' } })
    expect(r.status).toBe(404)
    expect(r.code).toBe(40402)
  })

  test('bad bodies → 400', async () => {
    const u = await createUnit(w.api, w.base, w.teacher)
    for (const json of [{}, { title: BIG }, { title: null }, { title: 'x', description: BIG }]) {
      const r = await w.api.post(`${w.base}/units/${u.id}/points`, { token: w.teacher.token, json })
      expect(r.status).toBe(400)
      expect(r.code).toBe(40001)
    }
  })
})

describe('the learning tree', () => {
  test('nested and ordered by sortOrder at every level, answer key hidden from students', async () => {
    const ctx = await world()
    const u1 = await createUnit(ctx.api, ctx.base, ctx.teacher, 'U1')
    const u2 = await createUnit(ctx.api, ctx.base, ctx.teacher, 'U2')
    const p21 = await createPoint(ctx.api, ctx.base, ctx.teacher, u2.id, 'P2.1')
    const p11 = await createPoint(ctx.api, ctx.base, ctx.teacher, u1.id, 'P1.1')
    const p12 = await createPoint(ctx.api, ctx.base, ctx.teacher, u1.id, 'P1.2')
    const t1 = await createTask(ctx.api, ctx.base, ctx.teacher, p11.id, { ...textTask, title: 'T1' })
    const t2 = await createTask(ctx.api, ctx.base, ctx.teacher, p11.id, {
      title: 'T2',
      taskType: 'QUIZ',
      questions: [choice('SINGLE_CHOICE', [2]), choice('MULTIPLE_CHOICE', [0, 3])],
    })
    const t3 = await createTask(ctx.api, ctx.base, ctx.teacher, p12.id, { ...textTask, title: 'T3' })
    // Reorder so that sortOrder differs from creation order.
    await ctx.api.patch(`${ctx.base}/points/${p11.id}/tasks/order`, { token: ctx.teacher.token, json: { orderedTaskIds: [t2.id, t1.id] } })

    const teacherTree = await ctx.api.get(ctx.base, { token: ctx.teacher.token })
    expect(teacherTree.status).toBe(200)
    const shape = teacherTree.data.units.map((u: any) => ({
      title: u.title,
      points: u.points.map((p: any) => ({ title: p.title, tasks: p.tasks.map((t: any) => t.title) })),
    }))
    expect(shape).toEqual([
      { title: 'U1', points: [{ title: 'P1.1', tasks: ['T2', 'T1'] }, { title: 'P1.2', tasks: ['T3'] }] },
      { title: 'U2', points: [{ title: 'P2.1', tasks: [] }] },
    ])
    const teacherQuiz = teacherTree.data.units[0].points[0].tasks[0]
    expect(teacherQuiz.questions.map((q: any) => q.correctOptions)).toEqual([[2], [0, 3]])

    for (const viewer of [ctx.student, ctx.student2]) {
      const tree = await ctx.api.get(ctx.base, { token: viewer.token })
      expect(tree.status).toBe(200)
      expect(JSON.stringify(tree.body)).not.toContain('correctOptions')
      const quiz = tree.data.units[0].points[0].tasks[0]
      expect(quiz.id).toBe(t2.id)
      expect(quiz.questions[0]).toEqual({ id: t2.questions[0].id, type: 'SINGLE_CHOICE', stem: 'SINGLE_CHOICE question', options: ['A', 'B', 'C', 'D'], points: 1 })
    }
    expect(p21.id).toBeString()
    expect(t3.sortOrder).toBe(1)
  })

  test('an empty course has no units', async () => {
    const ctx = await world()
    const r = await ctx.api.get(ctx.base, { token: ctx.student.token })
    expect(r.status).toBe(200)
    expect(r.data).toEqual({ units: [] })
  })

  test('a fixed number of queries whatever the size of the course', async () => {
    const small = await world()
    const big = await world()
    await pointIn(small)
    for (let u = 0; u < 3; u++) {
      const unit = await createUnit(big.api, big.base, big.teacher)
      for (let p = 0; p < 3; p++) {
        const point = await createPoint(big.api, big.base, big.teacher, unit.id)
        for (let t = 0; t < 3; t++) await createTask(big.api, big.base, big.teacher, point.id, textTask)
      }
    }
    const counts: number[] = []
    for (const ctx of [small, big]) {
      const { sql, counter } = countingSql(ctx.deps.sql)
      const { api } = await testApp({ deps: { sql } })
      const r = await api.get(ctx.base, { token: ctx.teacher.token })
      expect(r.status).toBe(200)
      counts.push(counter.n)
    }
    const bigTree = await big.api.get(big.base, { token: big.teacher.token })
    expect(bigTree.data.units.flatMap((u: any) => u.points.flatMap((p: any) => p.tasks))).toHaveLength(27)
    expect(counts[0]).toBe(counts[1]!)
    expect(counts[1]).toBeLessThanOrEqual(5) // session + course guard + units, points, tasks
  })
})

describe('permissions and ids', () => {
  const routes = (w: World, ids: { unitId: string; pointId: string; taskId: string }) => ({
    teacherOnly: [
      ['POST', `${w.base}/units`, { title: 'x' }],
      ['PATCH', `${w.base}/units/${ids.unitId}`, { title: 'x' }],
      ['DELETE', `${w.base}/units/${ids.unitId}`, undefined],
      ['POST', `${w.base}/units/${ids.unitId}/points`, { title: 'x' }],
      ['PATCH', `${w.base}/points/${ids.pointId}`, { title: 'x' }],
      ['DELETE', `${w.base}/points/${ids.pointId}`, undefined],
      ['POST', `${w.base}/points/${ids.pointId}/tasks`, { title: 'x', ...textTask }],
      ['PATCH', `${w.base}/tasks/${ids.taskId}`, { title: 'x' }],
      ['DELETE', `${w.base}/tasks/${ids.taskId}`, undefined],
      ['PATCH', `${w.base}/points/${ids.pointId}/tasks/order`, { orderedTaskIds: [ids.taskId] }],
    ] as [string, string, unknown][],
    memberReads: [
      ['GET', w.base, undefined],
      ['GET', `${w.base}/tasks/${ids.taskId}`, undefined],
    ] as [string, string, unknown][],
  })

  test('401 without credentials, 403 for students / other teachers / non-members', async () => {
    const { unit, point } = await pointIn(w)
    const task = await createTask(w.api, w.base, w.teacher, point.id, textTask)
    const r = routes(w, { unitId: unit.id, pointId: point.id, taskId: task.id })
    for (const [method, path, json] of [...r.teacherOnly, ...r.memberReads]) {
      const anon = await w.api.call(method, path, { json })
      expect(anon.status).toBe(401)
      expect(anon.code).toBe(40100)
      const bad = await w.api.call(method, path, { json, token: 'garbage' })
      expect(bad.status).toBe(401)
      for (const who of [w.outsider, w.otherTeacher]) {
        const res = await w.api.call(method, path, { json, token: who.token })
        expect([method, path, res.status]).toEqual([method, path, 403])
        expect(res.code).toBe(40300)
      }
    }
    for (const [method, path, json] of r.teacherOnly) {
      const res = await w.api.call(method, path, { json, token: w.student.token })
      expect([method, path, res.status]).toEqual([method, path, 403])
    }
    for (const [method, path] of r.memberReads) {
      expect((await w.api.call(method, path, { token: w.student.token })).status).toBe(200)
    }
  })

  test('non-UUID ids → 400, unknown course → 404', async () => {
    const { unit, point } = await pointIn(w)
    const task = await createTask(w.api, w.base, w.teacher, point.id, textTask)
    const r = routes(w, { unitId: NOT_A_UUID, pointId: NOT_A_UUID, taskId: NOT_A_UUID })
    for (const [method, path, json] of [...r.teacherOnly.filter(([, p]) => p !== `${w.base}/units`), r.memberReads[1]!]) {
      const res = await w.api.call(method, path, { json, token: w.teacher.token })
      expect([method, path, res.status]).toEqual([method, path, 400])
    }
    const badCourse = await w.api.get(`/courses/${NOT_A_UUID}/learning`, { token: w.teacher.token })
    expect(badCourse.status).toBe(400)
    const missing = '01900000-0000-7000-8000-000000000000'
    const unknownCourse = routes({ ...w, base: `/courses/${missing}/learning` }, { unitId: unit.id, pointId: point.id, taskId: task.id })
    for (const [method, path, json] of [...unknownCourse.teacherOnly, ...unknownCourse.memberReads]) {
      const res = await w.api.call(method, path, { json, token: w.teacher.token })
      expect([method, path, res.status, res.code]).toEqual([method, path, 404, 40401])
    }
  })

  test('ids of another course or unknown ids → 404 with the specific code', async () => {
    const foreign = await pointIn({ api: w.api, base: w.otherBase, teacher: w.otherTeacher })
    const foreignTask = await createTask(w.api, w.otherBase, w.otherTeacher, foreign.point.id, textTask)
    const missing = '01900000-0000-7000-8000-000000000000'
    const cases: [string, string, unknown, number][] = []
    for (const [unitId, pointId, taskId] of [
      [foreign.unit.id, foreign.point.id, foreignTask.id],
      [missing, missing, missing],
    ] as const) {
      cases.push(
        ['PATCH', `${w.base}/units/${unitId}`, { title: 'x' }, 40402],
        ['DELETE', `${w.base}/units/${unitId}`, undefined, 40402],
        ['POST', `${w.base}/units/${unitId}/points`, { title: 'x' }, 40402],
        ['PATCH', `${w.base}/points/${pointId}`, { title: 'x' }, 40403],
        ['DELETE', `${w.base}/points/${pointId}`, undefined, 40403],
        ['POST', `${w.base}/points/${pointId}/tasks`, { title: 'x', ...textTask }, 40403],
        ['PATCH', `${w.base}/points/${pointId}/tasks/order`, { orderedTaskIds: [] }, 40403],
        ['GET', `${w.base}/tasks/${taskId}`, undefined, 40404],
        ['PATCH', `${w.base}/tasks/${taskId}`, { title: 'x' }, 40404],
        ['DELETE', `${w.base}/tasks/${taskId}`, undefined, 40404],
      )
    }
    for (const [method, path, json, code] of cases) {
      const res = await w.api.call(method, path, { json, token: w.teacher.token })
      expect([method, path, res.status, res.code]).toEqual([method, path, 404, code])
    }
    // And nothing of the other course changed.
    const theirs = await w.api.get(w.otherBase, { token: w.otherTeacher.token })
    const unit = theirs.data.units.find((u: any) => u.id === foreign.unit.id)
    expect(unit.title).toBe('Unit')
    expect(unit.points[0].tasks[0].title).toBe('Task')
  })

  test('unit and point descriptions are stored as given (plain text)', async () => {
    const r = await w.api.post(`${w.base}/units`, { token: w.teacher.token, json: { title: 'x', description: HOSTILE } })
    expect(r.status).toBe(201)
    expect(r.data.description).toBe(HOSTILE)
  })
})
