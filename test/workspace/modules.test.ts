import { beforeAll, describe, expect, test } from 'bun:test'
import { MODULE_KEYS } from '../../src/modules/workspace/model.ts'
import { resolveModules } from '../../src/modules/workspace/service.ts'
import { client, testApp, type Client, type TestContext } from '../support/harness.ts'
import { BIG, createCourse, makeWorld, type World } from '../courses/world.ts'


let ctx: TestContext
let api: Client
let w: World

beforeAll(async () => {
  ctx = await testApp()
  api = ctx.api
  w = await makeWorld(api)
})

const DEFAULTS = MODULE_KEYS.map((moduleKey, i) => ({ moduleKey, enabled: true, sortOrder: i + 1 }))
const path = (courseId: string) => `/courses/${courseId}/workspace/modules`
const put = (courseId: string, modules: unknown, token = w.teacher.token) => api.put(path(courseId), { json: { modules }, token })
const savedRows = async (courseId: string) =>
  (await ctx.deps.sql<{ n: number }[]>`select count(*)::int as n from workspace_modules where course_id = ${courseId}`)[0]!.n

describe('GET /courses/{courseId}/workspace/modules', () => {
  test('a course that never saved a configuration: all eight enabled, in key order', async () => {
    const c = await createCourse(api, w.teacher)
    const res = await api.get(path(c.id), { token: w.teacher.token })
    expect(res.status).toBe(200)
    expect(res.code).toBe(0)
    expect(res.data).toEqual({ modules: DEFAULTS })
    expect((await api.get(path(w.course.id), { token: w.student.token })).data.modules).toHaveLength(8)
  })
})

describe('PUT /courses/{courseId}/workspace/modules', () => {
  test('saves the listed modules; the rest keep defaults; the response has all keys by sortOrder', async () => {
    const c = await createCourse(api, w.teacher)
    const res = await put(c.id, [
      { moduleKey: 'ANNOUNCEMENTS', enabled: true, sortOrder: 0 },
      { moduleKey: 'QUIZ', enabled: false, sortOrder: 20 },
    ])
    expect(res.status).toBe(200)
    expect(res.code).toBe(0)
    expect(res.data.modules).toEqual([
      { moduleKey: 'ANNOUNCEMENTS', enabled: true, sortOrder: 0 },
      { moduleKey: 'OVERVIEW', enabled: true, sortOrder: 1 },
      { moduleKey: 'LEARNING', enabled: true, sortOrder: 2 },
      { moduleKey: 'HOMEWORK', enabled: true, sortOrder: 3 },
      { moduleKey: 'GRADES', enabled: true, sortOrder: 5 },
      { moduleKey: 'EXPERIMENTS', enabled: true, sortOrder: 6 },
      { moduleKey: 'RESOURCES', enabled: true, sortOrder: 7 },
      { moduleKey: 'QUIZ', enabled: false, sortOrder: 20 },
    ])
    expect((await api.get(path(c.id), { token: w.teacher.token })).data).toEqual(res.data)
    expect(await savedRows(c.id)).toBe(2)
  })

  test('saving again updates in place: one row per course and key', async () => {
    const c = await createCourse(api, w.teacher)
    await put(c.id, [{ moduleKey: 'GRADES', enabled: false, sortOrder: 1 }])
    const res = await put(c.id, [
      { moduleKey: 'GRADES', enabled: true, sortOrder: 9 },
      { moduleKey: 'OVERVIEW', enabled: false, sortOrder: 1 },
    ])
    expect(res.data.modules.find((m: any) => m.moduleKey === 'GRADES')).toEqual({ moduleKey: 'GRADES', enabled: true, sortOrder: 9 })
    expect(res.data.modules.find((m: any) => m.moduleKey === 'OVERVIEW')).toEqual({ moduleKey: 'OVERVIEW', enabled: false, sortOrder: 1 })
    // GRADES at 1 moved OVERVIEW, LEARNING, HOMEWORK and QUIZ one place on (saved as rows);
    // the second save updates rows in place.
    expect(await savedRows(c.id)).toBe(5)
    expect(res.data.modules.at(-1).moduleKey).toBe('GRADES')
  })

  test('saving a subset leaves no tied sortOrder: unlisted modules in the way move after it (issue 17)', async () => {
    const c = await createCourse(api, w.teacher)
    const res = await put(c.id, [{ moduleKey: 'QUIZ', enabled: true, sortOrder: 1 }])
    expect(res.data.modules.map((m: any) => [m.moduleKey, m.sortOrder])).toEqual([
      ['QUIZ', 1],
      ['OVERVIEW', 2],
      ['LEARNING', 3],
      ['HOMEWORK', 4],
      ['GRADES', 5],
      ['EXPERIMENTS', 6],
      ['RESOURCES', 7],
      ['ANNOUNCEMENTS', 8],
    ])
    const again = await put(c.id, [
      { moduleKey: 'RESOURCES', enabled: true, sortOrder: 2 },
      { moduleKey: 'GRADES', enabled: false, sortOrder: 3 },
    ])
    const orders = again.data.modules.map((m: any) => m.sortOrder)
    expect(new Set(orders).size).toBe(8)
    expect(again.data.modules.slice(0, 3).map((m: any) => m.moduleKey)).toEqual(['QUIZ', 'RESOURCES', 'GRADES'])
    expect((await api.get(path(c.id), { token: w.teacher.token })).data).toEqual(again.data)
  })

  test('parallel subset saves never leave tied sortOrder values', async () => {
    const c = await createCourse(api, w.teacher)
    await Promise.all(MODULE_KEYS.map((moduleKey) => put(c.id, [{ moduleKey, enabled: true, sortOrder: 1 }])))
    const after = await api.get(path(c.id), { token: w.teacher.token })
    expect(new Set(after.data.modules.map((m: any) => m.sortOrder)).size).toBe(8)
  })

  test('a full configuration in a new order; equal sortOrders keep the default order', async () => {
    const c = await createCourse(api, w.teacher)
    const reversed = [...MODULE_KEYS].reverse().map((moduleKey, i) => ({ moduleKey, enabled: i % 2 === 0, sortOrder: i + 1 }))
    const res = await put(c.id, reversed)
    expect(res.data.modules).toEqual(reversed)
    const tied = await put(c.id, MODULE_KEYS.map((moduleKey) => ({ moduleKey, enabled: true, sortOrder: 5 })))
    expect(tied.data.modules.map((m: any) => m.moduleKey)).toEqual([...MODULE_KEYS])
    expect(await savedRows(c.id)).toBe(8)
  })

  test('students see what the teacher saved; other courses are unaffected', async () => {
    await put(w.course.id, [{ moduleKey: 'EXPERIMENTS', enabled: false, sortOrder: 100 }])
    const seen = await api.get(path(w.course.id), { token: w.student.token })
    expect(seen.data.modules.at(-1)).toEqual({ moduleKey: 'EXPERIMENTS', enabled: false, sortOrder: 100 })
    const other = await api.get(path(w.otherCourse.id), { token: w.otherTeacher.token })
    expect(other.data.modules.find((m: any) => m.moduleKey === 'EXPERIMENTS')).toEqual({ moduleKey: 'EXPERIMENTS', enabled: true, sortOrder: 6 })
  })

  test('works under /core/api/v1', async () => {
    const core = client(ctx.app, '/core/api/v1')
    const res = await core.put(path(w.course.id), { json: { modules: [{ moduleKey: 'LEARNING', enabled: true, sortOrder: 2 }] }, token: w.teacher.token })
    expect(res.status).toBe(200)
    expect(res.data.modules).toHaveLength(8)
  })

  const m = (moduleKey: unknown, enabled: unknown = true, sortOrder: unknown = 1) => ({ moduleKey, enabled, sortOrder })
  const INVALID: [name: string, body: unknown, field: string][] = [
    ['unknown key', { modules: [m('OVERVIEW'), m('CHAT')] }, 'modules.1.moduleKey'],
    ['lower-case key', { modules: [m('overview')] }, 'modules.0.moduleKey'],
    ['repeated key', { modules: [m('QUIZ'), m('LEARNING'), m('QUIZ', false, 3)] }, 'modules.2.moduleKey'],
    ['missing modules', {}, 'modules'],
    ['modules not an array', { modules: 'OVERVIEW' }, 'modules'],
    ['empty list', { modules: [] }, 'modules'],
    ['enabled not a boolean', { modules: [m('QUIZ', 'yes')] }, 'modules.0.enabled'],
    ['sortOrder a string', { modules: [m('QUIZ', true, '1')] }, 'modules.0.sortOrder'],
    ['sortOrder a fraction', { modules: [m('QUIZ', true, 1.5)] }, 'modules.0.sortOrder'],
    ['sortOrder negative', { modules: [m('QUIZ', true, -1)] }, 'modules.0.sortOrder'],
    ['sortOrder too large', { modules: [m('QUIZ', true, 1001)] }, 'modules.0.sortOrder'],
    ['missing sortOrder', { modules: [{ moduleKey: 'QUIZ', enabled: true }] }, 'modules.0.sortOrder'],
    ['200 KB key', { modules: [m(BIG)] }, 'modules.0.moduleKey'],
    ['more entries than keys', { modules: [...MODULE_KEYS, 'OVERVIEW'].map((k) => m(k)) }, 'modules'],
  ]
  test.each(INVALID)('%s → 400 naming %s; nothing saved', async (_name, body, field) => {
    const c = await createCourse(api, w.teacher)
    const res = await api.put(path(c.id), { json: body, token: w.teacher.token })
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
    expect(res.data.fields.map((f: { field: string }) => f.field)).toContain(field)
    expect(await savedRows(c.id)).toBe(0)
  })
})

describe('resolveModules', () => {
  test('saved rows override defaults; ties by default order', () => {
    expect(resolveModules([])).toEqual(DEFAULTS)
    const out = resolveModules([
      { module_key: 'RESOURCES', enabled: false, sort_order: 1 },
      { module_key: 'OVERVIEW', enabled: true, sort_order: 1 },
    ])
    expect(out.slice(0, 3)).toEqual([
      { moduleKey: 'OVERVIEW', enabled: true, sortOrder: 1 },
      { moduleKey: 'RESOURCES', enabled: false, sortOrder: 1 },
      { moduleKey: 'LEARNING', enabled: true, sortOrder: 2 },
    ])
    expect(out).toHaveLength(8)
  })
})
