import { beforeAll, describe, expect, test } from 'bun:test'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { ManualClock, testApp, type TestContext } from '../support/harness.ts'
import { NOT_A_UUID, UNKNOWN_ID, world, type World } from './world.ts'

let ctx: TestContext
let w: World
const clock = new ManualClock('2026-11-22T08:00:00.000Z')

beforeAll(async () => {
  ctx = await testApp({ clock })
  w = await world(ctx)
}, 60_000)

const base = () => `/courses/${w.course.id}/experiments`
const create = (json: unknown, token = w.teacher.token, courseId = w.course.id) =>
  ctx.api.post(`/courses/${courseId}/experiments`, { json, token })
const valid = { title: 'Ohm’s law', description: '<p>Measure <b>R</b></p>', dueAt: '2026-12-01T23:59:00+08:00' }

describe('POST /courses/{courseId}/experiments', () => {
  test('the course teacher creates an experiment; rich text is sanitised, times are UTC', async () => {
    const res = await create({
      title: '  Pendulum  ',
      description: '<h2>Goal</h2><p onclick="x()">Time it<script>alert(1)</script></p><img src=x onerror=alert(1)><a href="javascript:alert(1)">a</a>',
      dueAt: '2026-12-01T23:59:00+08:00',
    })
    expect(res.status).toBe(201)
    expect(res.code).toBe(0)
    expect(res.data).toEqual({
      id: expect.any(String),
      courseId: w.course.id,
      title: 'Pendulum',
      description: '<h2>Goal</h2><p>Time it</p><a rel="noopener noreferrer nofollow">a</a>',
      dueAt: '2026-12-01T15:59:00.000Z',
      createdAt: '2026-11-22T08:00:00.000Z',
      updatedAt: null,
      gradeRelease: 'AUTOMATIC',
      rubric: null,
    })
  })

  test('also under /core/api/v1', async () => {
    const res = await ctx.api.post(`//core/api/v1/courses/${w.course.id}/experiments`, { json: valid, token: w.teacher.token })
    expect(res.status).toBe(201)
  })

  test.each([
    ['no credentials', () => create(valid, ''), 401, 40100],
    ['a student of the course', () => create(valid, w.students[0]!.token), 403, 40300],
    ['a teacher of another course', () => create(valid, w.otherTeacher.token), 403, 40300],
    ['an outsider student', () => create(valid, w.outsider.token), 403, 40300],
    ['an unknown course', () => create(valid, w.teacher.token, UNKNOWN_ID), 404, 40401],
    ['a non-UUID course id', () => create(valid, w.teacher.token, NOT_A_UUID), 400, 40001],
  ])('%s → %i', async (_, call, status, code) => {
    const res = await call()
    expect(res.status).toBe(status)
    expect(res.code).toBe(code)
  })

  test.each([
    ['missing title', { description: 'd', dueAt: valid.dueAt }, 'title'],
    ['blank title', { ...valid, title: '   ' }, 'title'],
    ['200 KB title', { ...valid, title: 'x'.repeat(200_000) }, 'title'],
    ['200 KB description', { ...valid, description: 'x'.repeat(200_000) }, 'description'],
    ['missing description', { title: 't', dueAt: valid.dueAt }, 'description'],
    ['title of the wrong type', { ...valid, title: 42 }, 'title'],
    ['dueAt not a date', { ...valid, dueAt: 'tomorrow' }, 'dueAt'],
    ['dueAt without an offset', { ...valid, dueAt: '2026-12-01T23:59:00' }, 'dueAt'],
    ['dueAt as a number', { ...valid, dueAt: 1764633540000 }, 'dueAt'],
    ['missing dueAt', { title: 't', description: 'd' }, 'dueAt'],
  ])('400 for %s', async (_, json, field) => {
    const res = await create(json)
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
    expect(res.data.fields.map((f: any) => f.field)).toContain(field)
  })

  test('malformed JSON → 400', async () => {
    const res = await ctx.api.post(base(), { raw: '{"title":', headers: { 'content-type': 'application/json' }, token: w.teacher.token })
    expect(res.status).toBe(400)
  })
})

describe('GET experiments (list and detail)', () => {
  let listCourse: string
  let later: string
  let sooner: string
  let foreign: string
  beforeAll(async () => {
    const c = await insertCourse(ctx.deps.sql, w.teacher.id, 'List course')
    await addStudent(ctx.deps.sql, c.id, w.students[0]!.id)
    listCourse = c.id
    later = (await create({ ...valid, title: 'Later', dueAt: '2026-12-20T00:00:00Z' }, w.teacher.token, c.id)).data.id
    sooner = (await create({ ...valid, title: 'Sooner', dueAt: '2026-12-10T00:00:00Z' }, w.teacher.token, c.id)).data.id
    foreign = (await create({ ...valid, title: 'Foreign' }, w.otherTeacher.token, w.otherCourse.id)).data.id
  })

  test('members list the experiments of the course ordered by dueAt', async () => {
    for (const token of [w.teacher.token, w.students[0]!.token]) {
      const res = await ctx.api.get(`/courses/${listCourse}/experiments`, { token })
      expect(res.status).toBe(200)
      expect(res.data.map((e: any) => e.id)).toEqual([sooner, later])
      expect(res.data[0]).toMatchObject({ title: 'Sooner', dueAt: '2026-12-10T00:00:00.000Z', courseId: listCourse })
    }
  })

  test.each([
    ['no credentials', '', 401],
    ['a non-member student', 'outsider', 403],
    ['a student of another course of the same teacher', 'student1', 403],
  ])('list: %s → %i', async (_, who, status) => {
    const token = who === 'outsider' ? w.outsider.token : who === 'student1' ? w.students[1]!.token : ''
    const res = await ctx.api.get(`/courses/${listCourse}/experiments`, { token })
    expect(res.status).toBe(status)
  })

  test('detail: a teacher gets the experiment without mySubmission; a student gets mySubmission null', async () => {
    const t = await ctx.api.get(`/courses/${listCourse}/experiments/${sooner}`, { token: w.teacher.token })
    expect(t.status).toBe(200)
    expect(t.data.id).toBe(sooner)
    expect('mySubmission' in t.data).toBe(false)
    const s = await ctx.api.get(`/courses/${listCourse}/experiments/${sooner}`, { token: w.students[0]!.token })
    expect(s.status).toBe(200)
    expect(s.data.mySubmission).toBeNull()
  })

  const detailCases: [string, () => string, () => string, number, number][] = [
    ['an experiment of another course', () => `/courses/${listCourse}/experiments/${foreign}`, () => w.teacher.token, 404, 40406],
    ['an unknown experiment', () => `/courses/${listCourse}/experiments/${UNKNOWN_ID}`, () => w.teacher.token, 404, 40406],
    ['a non-UUID experiment id', () => `/courses/${listCourse}/experiments/${NOT_A_UUID}`, () => w.teacher.token, 400, 40001],
    ['no credentials', () => `/courses/${listCourse}/experiments/${sooner}`, () => '', 401, 40100],
    ['a non-member', () => `/courses/${listCourse}/experiments/${sooner}`, () => w.outsider.token, 403, 40300],
  ]
  test.each(detailCases)('detail: %s', async (_, path, token, status, code) => {
    const res = await ctx.api.get(path(), { token: token() })
    expect(res.status).toBe(status)
    expect(res.code).toBe(code)
  })
})

describe('PATCH /courses/{courseId}/experiments/{experimentId}', () => {
  let id: string
  beforeAll(async () => {
    id = (await create(valid)).data.id
  })
  const patch = (json: unknown, token = w.teacher.token, experimentId = id, courseId = w.course.id) =>
    ctx.api.patch(`/courses/${courseId}/experiments/${experimentId}`, { json, token })

  test('the teacher edits title, description and dueAt', async () => {
    clock.advance(60_000)
    const res = await patch({ title: 'Ohm v2', description: '<p>new<iframe src="x"></iframe></p>', dueAt: '2026-12-05T10:00:00Z' })
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({
      id,
      title: 'Ohm v2',
      description: '<p>new</p>',
      dueAt: '2026-12-05T10:00:00.000Z',
      updatedAt: '2026-11-22T08:01:00.000Z',
    })
    const one = await patch({ title: 'Only the title' })
    expect(one.data).toMatchObject({ title: 'Only the title', description: '<p>new</p>', dueAt: '2026-12-05T10:00:00.000Z' })
  })

  test.each([
    ['no credentials', () => patch({ title: 'x' }, ''), 401],
    ['a student', () => patch({ title: 'x' }, w.students[0]!.token), 403],
    ['another teacher', () => patch({ title: 'x' }, w.otherTeacher.token), 403],
    ['an empty body', () => patch({}), 400],
    ['a 200 KB description', () => patch({ description: 'x'.repeat(200_000) }), 400],
    ['a bad dueAt', () => patch({ dueAt: '2026-13-45' }), 400],
    ['an unknown experiment', () => patch({ title: 'x' }, w.teacher.token, UNKNOWN_ID), 404],
    ['a non-UUID experiment', () => patch({ title: 'x' }, w.teacher.token, NOT_A_UUID), 400],
  ])('%s → %i', async (_, call, status) => {
    expect((await call()).status).toBe(status)
  })

  test('an experiment of another course cannot be edited through this course', async () => {
    const foreign = (await create(valid, w.otherTeacher.token, w.otherCourse.id)).data.id
    const res = await patch({ title: 'hijack' }, w.teacher.token, foreign)
    expect(res.status).toBe(404)
    expect(res.code).toBe(40406)
  })
})
