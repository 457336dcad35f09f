import { afterEach, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import * as hooks from '../../src/modules/reminders/hooks.ts'
import { insertSubmission } from '../support/fixtures.ts'
import { ManualClock } from '../support/harness.ts'
import { BIG, choice, createTask, HOSTILE, insertResource, pointIn, shortAnswer, textTask, world, type World } from './helpers.ts'


const NOW = '2026-11-22T08:00:00.000Z'
const clock = new ManualClock(NOW)
let w: World
let pointId: string
let fileResource: string
let linkResource: string
let foreignFile: string

beforeAll(async () => {
  w = await world({ clock })
  pointId = (await pointIn(w)).point.id
  fileResource = await insertResource(w.deps.sql, w.course.id, w.teacher.id, 'FILE')
  linkResource = await insertResource(w.deps.sql, w.course.id, w.teacher.id, 'LINK')
  foreignFile = await insertResource(w.deps.sql, w.otherCourse.id, w.otherTeacher.id, 'FILE')
})

let spies: { mockRestore(): void }[] = []
afterEach(() => {
  for (const s of spies) s.mockRestore()
  spies = []
  clock.set(NOW)
})
const spyHook = (hook: 'homeworkScheduleChanged' | 'homeworkCreated' = 'homeworkScheduleChanged') => {
  const s = spyOn(hooks, hook)
  spies.push(s)
  return s
}

const post = (json: unknown) => w.api.post(`${w.base}/points/${pointId}/tasks`, { token: w.teacher.token, json })
const patch = (taskId: string, json: unknown, token = w.teacher.token) => w.api.patch(`${w.base}/tasks/${taskId}`, { token, json })

describe('creating tasks', () => {
  test('TEXT material: rich text sanitised, defaults filled, appended last', async () => {
    const r = await post({ title: 'Read', taskType: 'MEDIA', materialType: 'TEXT', content: `<h2>Intro</h2>${HOSTILE}` })
    expect(r.status).toBe(201)
    expect(r.code).toBe(0)
    expect(r.data).toMatchObject({
      pointId,
      courseId: w.course.id,
      title: 'Read',
      taskKind: 'LEARNING',
      taskType: 'MEDIA',
      materialType: 'TEXT',
      url: null,
      resourceId: null,
      questions: [],
      startAt: null,
      dueAt: null,
      notifyOnStart: true,
      notifyBeforeDue24h: true,
      notifyOnDue: true,
      createdAt: NOW,
    })
    expect(r.data.content).toStartWith('<h2>Intro</h2><p>Hi ')
    for (const bad of ['script', 'onclick', 'onerror', 'javascript:', 'iframe', '<img']) expect(r.data.content).not.toContain(bad)
    const next = await post({ ...textTask, title: 'Next' })
    expect(next.data.sortOrder).toBe(r.data.sortOrder + 1)
  })

  test('LINK material: http(s) url parsed and normalised', async () => {
    const r = await post({ title: 'Watch', taskType: 'MEDIA', materialType: 'LINK', url: 'HTTPS://Example.test/a b?x=1', content: 'See <b>this</b>' })
    expect(r.status).toBe(201)
    expect(r.data).toMatchObject({ materialType: 'LINK', url: 'https://example.test/a%20b?x=1', content: 'See <b>this</b>' })
  })

  test('FILE material: a FILE resource of this course only', async () => {
    const r = await post({ title: 'Slides', taskType: 'MEDIA', materialType: 'FILE', resourceId: fileResource })
    expect(r.status).toBe(201)
    expect(r.data).toMatchObject({ materialType: 'FILE', resourceId: fileResource, url: null })
    for (const resourceId of [linkResource, foreignFile, '01900000-0000-7000-8000-000000000000']) {
      const bad = await post({ title: 'Slides', taskType: 'MEDIA', materialType: 'FILE', resourceId })
      expect(bad.status).toBe(400)
      expect(bad.data.fields).toEqual([{ field: 'resourceId', message: 'must be a FILE resource of this course' }])
    }
  })

  test('QUIZ: questions get ids, points default to 1, correct options kept for the teacher', async () => {
    const r = await post({
      title: 'Quiz',
      taskType: 'QUIZ',
      content: '<p>Answer all</p>',
      questions: [choice('SINGLE_CHOICE', [1]), choice('MULTIPLE_CHOICE', [3, 0], 2.5), shortAnswer(4)],
    })
    expect(r.status).toBe(201)
    const qs = r.data.questions
    expect(qs).toHaveLength(3)
    for (const q of qs) expect(q.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(new Set(qs.map((q: any) => q.id)).size).toBe(3)
    expect(qs.map((q: any) => [q.type, q.points, q.correctOptions, q.options.length])).toEqual([
      ['SINGLE_CHOICE', 1, [1], 4],
      ['MULTIPLE_CHOICE', 2.5, [0, 3], 4],
      ['SHORT_ANSWER', 4, [], 0],
    ])
    expect(r.data.materialType).toBeNull()
  })

  test('HOMEWORK: startAt defaults to now, switches default on, reminders hook called in the transaction', async () => {
    const spy = spyHook('homeworkCreated')
    const r = await post({ ...textTask, title: 'HW', taskKind: 'HOMEWORK', dueAt: '2026-11-29T16:00:00+08:00' })
    expect(r.status).toBe(201)
    expect(r.data).toMatchObject({ taskKind: 'HOMEWORK', startAt: NOW, dueAt: '2026-11-29T08:00:00.000Z', notifyOnStart: true })
    expect(spy).toHaveBeenCalledTimes(1)
    expect(spy.mock.calls[0]![1]).toBe(r.data.id)
    expect(spy.mock.calls[0]![2]).toEqual(new Date(NOW))

    const off = await post({
      ...textTask,
      title: 'HW2',
      taskKind: 'HOMEWORK',
      startAt: '2026-11-23T00:00:00Z',
      dueAt: '2026-11-24T00:00:00Z',
      notifyOnStart: false,
      notifyBeforeDue24h: false,
      notifyOnDue: true,
    })
    expect(off.status).toBe(201)
    expect(off.data).toMatchObject({ startAt: '2026-11-23T00:00:00.000Z', notifyOnStart: false, notifyBeforeDue24h: false, notifyOnDue: true })
    expect(spy).toHaveBeenCalledTimes(2)
  })

  test('a LEARNING task does not touch reminders', async () => {
    const spy = spyHook()
    const created = spyHook('homeworkCreated')
    expect((await post({ title: 'L', ...textTask })).status).toBe(201)
    expect(spy).not.toHaveBeenCalled()
    expect(created).not.toHaveBeenCalled()
  })

  const invalid: [string, Record<string, unknown>, string][] = [
    ['missing title', { ...textTask, title: undefined }, 'title'],
    ['200 KB title', { ...textTask, title: BIG }, 'title'],
    ['200 KB content', { ...textTask, content: BIG }, 'content'],
    ['missing taskType', { title: 'x', materialType: 'TEXT', content: 'x' }, 'taskType'],
    ['unknown taskType', { ...textTask, taskType: 'VIDEO' }, 'taskType'],
    ['unknown taskKind', { ...textTask, taskKind: 'EXAM' }, 'taskKind'],
    ['unknown materialType', { ...textTask, materialType: 'PDF' }, 'materialType'],
    ['MEDIA without materialType', { taskType: 'MEDIA', content: 'x' }, 'materialType'],
    ['TEXT without content', { taskType: 'MEDIA', materialType: 'TEXT' }, 'content'],
    ['TEXT that sanitises to nothing', { taskType: 'MEDIA', materialType: 'TEXT', content: '<script>alert(1)</script>' }, 'content'],
    ['LINK without url', { taskType: 'MEDIA', materialType: 'LINK' }, 'url'],
    ['LINK with javascript: url', { taskType: 'MEDIA', materialType: 'LINK', url: 'javascript:alert(1)' }, 'url'],
    ['LINK with ftp url', { taskType: 'MEDIA', materialType: 'LINK', url: 'ftp://example.test/x' }, 'url'],
    ['LINK with relative url', { taskType: 'MEDIA', materialType: 'LINK', url: '/etc/passwd' }, 'url'],
    ['LINK with data: url', { taskType: 'MEDIA', materialType: 'LINK', url: 'data:text/html,<script>1</script>' }, 'url'],
    ['LINK with 200 KB url', { taskType: 'MEDIA', materialType: 'LINK', url: `https://x.test/${BIG}` }, 'url'],
    ['url on TEXT', { ...textTask, url: 'https://example.test' }, 'url'],
    ['FILE without resourceId', { taskType: 'MEDIA', materialType: 'FILE' }, 'resourceId'],
    ['FILE with non-UUID resourceId', { taskType: 'MEDIA', materialType: 'FILE', resourceId: 'abc' }, 'resourceId'],
    ['questions on MEDIA', { ...textTask, questions: [choice('SINGLE_CHOICE', [0])] }, 'questions'],
    ['QUIZ without questions', { taskType: 'QUIZ' }, 'questions'],
    ['QUIZ with empty questions', { taskType: 'QUIZ', questions: [] }, 'questions'],
    ['QUIZ with materialType', { taskType: 'QUIZ', materialType: 'TEXT', questions: [shortAnswer()] }, 'materialType'],
    ['unknown question type', { taskType: 'QUIZ', questions: [{ type: 'ESSAY', stem: 'x' }] }, 'questions.0.type'],
    ['empty stem', { taskType: 'QUIZ', questions: [{ ...shortAnswer(), stem: '' }] }, 'questions.0.stem'],
    ['200 KB stem', { taskType: 'QUIZ', questions: [{ ...shortAnswer(), stem: BIG }] }, 'questions.0.stem'],
    ['one option', { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 1, ['only'])] }, 'questions.0.options'],
    ['21 options', { taskType: 'QUIZ', questions: [choice('MULTIPLE_CHOICE', [0], 1, Array.from({ length: 21 }, (_, i) => `o${i}`))] }, 'questions.0.options'],
    ['empty option', { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 1, ['a', ''])] }, 'questions.0.options.1'],
    ['200 KB option', { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 1, ['a', BIG])] }, 'questions.0.options.1'],
    ['single choice with two answers', { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0, 1])] }, 'questions.0.correctOptions'],
    ['single choice with no answer', { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [])] }, 'questions.0.correctOptions'],
    ['multiple choice with no answer', { taskType: 'QUIZ', questions: [choice('MULTIPLE_CHOICE', [])] }, 'questions.0.correctOptions'],
    ['correct option out of range', { taskType: 'QUIZ', questions: [choice('MULTIPLE_CHOICE', [0, 4])] }, 'questions.0.correctOptions'],
    ['negative correct option', { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [-1])] }, 'questions.0.correctOptions.0'],
    ['fractional correct option', { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0.5])] }, 'questions.0.correctOptions.0'],
    ['repeated correct option', { taskType: 'QUIZ', questions: [choice('MULTIPLE_CHOICE', [1, 1])] }, 'questions.0.correctOptions'],
    ['options on short answer', { taskType: 'QUIZ', questions: [{ ...shortAnswer(), options: ['a', 'b'] }] }, 'questions.0.options'],
    ['zero points', { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], 0)] }, 'questions.0.points'],
    ['negative points', { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0], -2)] }, 'questions.0.points'],
    ['string points', { taskType: 'QUIZ', questions: [{ ...choice('SINGLE_CHOICE', [0]), points: '3' }] }, 'questions.0.points'],
    ['homework without dueAt', { ...textTask, taskKind: 'HOMEWORK' }, 'dueAt'],
    ['homework due before start', { ...textTask, taskKind: 'HOMEWORK', startAt: '2026-12-02T00:00:00Z', dueAt: '2026-12-01T00:00:00Z' }, 'dueAt'],
    ['homework due at start', { ...textTask, taskKind: 'HOMEWORK', startAt: '2026-12-01T00:00:00Z', dueAt: '2026-12-01T00:00:00Z' }, 'dueAt'],
    ['homework due before the default start (now)', { ...textTask, taskKind: 'HOMEWORK', dueAt: '2026-11-21T00:00:00Z' }, 'dueAt'],
    ['dueAt without offset', { ...textTask, taskKind: 'HOMEWORK', dueAt: '2026-12-01T00:00:00' }, 'dueAt'],
    ['dueAt not a date', { ...textTask, taskKind: 'HOMEWORK', dueAt: 'next friday' }, 'dueAt'],
    ['dueAt on a LEARNING task', { ...textTask, dueAt: '2026-12-01T00:00:00Z' }, 'dueAt'],
    ['notify switch not a boolean', { ...textTask, taskKind: 'HOMEWORK', dueAt: '2026-12-01T00:00:00Z', notifyOnDue: 'yes' }, 'notifyOnDue'],
  ]
  test.each(invalid)('400: %s', async (_name, body, field) => {
    const spy = spyHook()
    const r = await post({ title: 'x', ...body })
    expect(r.status).toBe(400)
    expect(r.code).toBe(40001)
    expect(r.data.fields.map((f: any) => f.field)).toContain(field)
    expect(spy).not.toHaveBeenCalled()
  })

  test('a body that is not an object → 400', async () => {
    for (const json of [null, [], 'task', 5]) {
      const r = await post(json)
      expect(r.status).toBe(400)
    }
  })
})

describe('reading one task', () => {
  test('the teacher sees the answer key, students never do', async () => {
    const quiz = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [2]), shortAnswer()] })
    const t = await w.api.get(`${w.base}/tasks/${quiz.id}`, { token: w.teacher.token })
    expect(t.status).toBe(200)
    expect(t.data.questions[0].correctOptions).toEqual([2])
    const s = await w.api.get(`${w.base}/tasks/${quiz.id}`, { token: w.student.token })
    expect(s.status).toBe(200)
    expect(s.data.id).toBe(quiz.id)
    expect(JSON.stringify(s.body)).not.toContain('correctOptions')
    expect(s.data.questions[0]).toEqual({ id: quiz.questions[0].id, type: 'SINGLE_CHOICE', stem: 'SINGLE_CHOICE question', options: ['A', 'B', 'C', 'D'], points: 1 })
  })
})

describe('editing tasks', () => {
  test('title and content change; everything else stays', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Before', ...textTask })
    const r = await patch(t.id, { title: 'After', content: `<p>new</p>${HOSTILE}` })
    expect(r.status).toBe(200)
    expect(r.data).toMatchObject({ id: t.id, title: 'After', materialType: 'TEXT', sortOrder: t.sortOrder, createdAt: t.createdAt })
    expect(r.data.content).toStartWith('<p>new</p>')
    expect(r.data.content).not.toContain('script')
  })

  test('switching material drops fields that no longer apply; sending one that does not fit is a 400', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'MEDIA', materialType: 'LINK', url: 'https://a.test/' })
    const r = await patch(t.id, { materialType: 'TEXT', content: '<p>now text</p>' })
    expect(r.status).toBe(200)
    expect(r.data).toMatchObject({ materialType: 'TEXT', url: null })
    const bad = await patch(t.id, { url: 'https://b.test/' })
    expect(bad.status).toBe(400)
    expect(bad.data.fields[0].field).toBe('url')
    const toFile = await patch(t.id, { materialType: 'FILE', resourceId: fileResource })
    expect(toFile.data).toMatchObject({ materialType: 'FILE', resourceId: fileResource })
    const foreign = await patch(t.id, { resourceId: foreignFile })
    expect(foreign.status).toBe(400)
    const toQuiz = await patch(t.id, { taskType: 'QUIZ', questions: [shortAnswer()] })
    expect(toQuiz.status).toBe(200)
    expect(toQuiz.data).toMatchObject({ taskType: 'QUIZ', materialType: null, resourceId: null })
    const emptyQuiz = await patch(t.id, { questions: [] })
    expect(emptyQuiz.status).toBe(400)
  })

  test('questions are replaced; a question keeps its id when the request names it', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0]), shortAnswer()] })
    const [q1, q2] = t.questions
    const r = await patch(t.id, {
      questions: [
        { ...choice('SINGLE_CHOICE', [1]), id: q1.id },
        { ...shortAnswer(), id: '01900000-0000-7000-8000-000000000000' },
        { ...choice('MULTIPLE_CHOICE', [0, 1]), id: q1.id },
      ],
    })
    expect(r.status).toBe(200)
    const ids = r.data.questions.map((q: any) => q.id)
    expect(ids[0]).toBe(q1.id)
    expect(ids[1]).not.toBe('01900000-0000-7000-8000-000000000000')
    expect(ids).not.toContain(q2.id)
    expect(new Set(ids).size).toBe(3)
    expect(r.data.questions[0].correctOptions).toEqual([1])
  })

  test('homework times, switches and kind go through the reminders hook; other edits do not', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, taskKind: 'HOMEWORK', dueAt: '2026-12-01T00:00:00Z' })
    const spy = spyHook()
    clock.set('2026-11-23T00:00:00.000Z')
    expect((await patch(t.id, { title: 'Renamed', content: '<p>x</p>' })).status).toBe(200)
    expect(spy).toHaveBeenCalledTimes(0)
    expect((await patch(t.id, { dueAt: '2026-12-01T00:00:00.000Z' })).status).toBe(200) // same instant: no change
    expect(spy).toHaveBeenCalledTimes(0)
    const moved = await patch(t.id, { dueAt: '2026-12-03T00:00:00Z' })
    expect(moved.data).toMatchObject({ dueAt: '2026-12-03T00:00:00.000Z', startAt: NOW })
    expect(spy).toHaveBeenCalledTimes(1)
    expect(spy.mock.calls[0]![1]).toBe(t.id)
    expect(spy.mock.calls[0]![2]).toEqual(new Date('2026-11-23T00:00:00.000Z'))
    expect((await patch(t.id, { notifyBeforeDue24h: false })).data.notifyBeforeDue24h).toBe(false)
    expect(spy).toHaveBeenCalledTimes(2)
    expect((await patch(t.id, { startAt: '2026-11-25T00:00:00Z' })).status).toBe(200)
    expect(spy).toHaveBeenCalledTimes(3)
    const late = await patch(t.id, { startAt: '2026-12-05T00:00:00Z' })
    expect(late.status).toBe(400)
    expect(late.data.fields[0].field).toBe('dueAt')
    expect(spy).toHaveBeenCalledTimes(3)
    const learning = await patch(t.id, { taskKind: 'LEARNING' })
    expect(learning.data).toMatchObject({ taskKind: 'LEARNING', startAt: null, dueAt: null })
    expect(spy).toHaveBeenCalledTimes(4)
    const noDue = await patch(t.id, { taskKind: 'HOMEWORK' })
    expect(noDue.status).toBe(400)
    const back = await patch(t.id, { taskKind: 'HOMEWORK', dueAt: '2026-12-10T00:00:00Z' })
    expect(back.data).toMatchObject({ taskKind: 'HOMEWORK', startAt: '2026-11-23T00:00:00.000Z', dueAt: '2026-12-10T00:00:00.000Z' })
    expect(spy).toHaveBeenCalledTimes(5)
  })

  test('taskType cannot change once there are submissions (other edits still can)', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, textTask)
    await insertSubmission(w.deps.sql, t.id, w.course.id, w.student.id, new Date(NOW))
    const r = await patch(t.id, { taskType: 'QUIZ', questions: [shortAnswer()] })
    expect(r.status).toBe(409)
    expect(r.code).toBe(40904)
    expect((await patch(t.id, { title: 'Fixed typo' })).status).toBe(200)
  })

  test('bad patches → 400', async () => {
    const t = await createTask(w.api, w.base, w.teacher, pointId, textTask)
    for (const json of [{}, { title: '' }, { title: BIG }, { taskType: 'VIDEO' }, { content: BIG }, { materialType: null }, { notifyOnDue: 1 }, { dueAt: '2026-12-01T00:00:00Z' }]) {
      const r = await patch(t.id, json)
      expect([JSON.stringify(json).slice(0, 60), r.status]).toEqual([JSON.stringify(json).slice(0, 60), 400])
      expect(r.code).toBe(40001)
    }
  })
})
