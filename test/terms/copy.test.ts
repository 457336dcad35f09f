import { afterAll, describe, expect, test } from 'bun:test'
import { signUp, type Account, type Client, type TestContext } from '../support/harness.ts'
import { appOn, BACKENDS, discardStorage } from '../storage/helpers.ts'
import { formOf } from '../security/world.ts'

/**
 * POST /courses/{courseId}/copy: structure, content, quizzes with their keys, homework and
 * experiment times moved, resources whose files outlive the original's, workspace modules; no
 * people, posts or work. On local disk and on S3.
 */
const DAY = 86400_000
const SHIFT = 182
const UNKNOWN = '01900000-0000-7000-8000-000000000000'

const contexts: TestContext[] = []
afterAll(async () => {
  for (const c of contexts) await discardStorage(c.deps.storage)
})

interface Original {
  teacher: Account
  student: Account
  courseId: string
  inviteCode: string
  homeworkStart: string
  homeworkDue: string
  experimentDue: string
  slidesId: string
  handoutId: string
}

const must = <T extends { status: number; body: unknown }>(r: T, status: number, what: string): T => {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`)
  return r
}

async function buildOriginal(api: Client): Promise<Original> {
  const teacher = await signUp(api, 'TEACHER', 'Prof. Autumn')
  const student = await signUp(api, 'STUDENT', 'Sam Autumn')
  const t = { token: teacher.token }
  const c = must(await api.post('/courses', { ...t, json: { title: 'Operating Systems', description: 'Autumn term.' } }), 201, 'course')
  const courseId = c.data.id as string
  const base = `/courses/${courseId}`
  must(await api.post('/courses/join', { token: student.token, json: { inviteCode: c.data.inviteCode } }), 200, 'join')
  const slides = must(
    await api.post(`${base}/resources`, {
      ...t,
      form: formOf({ name: 'Slides', type: 'FILE', category: 'lectures', file: new File(['slides of week 1'], 'week1.txt', { type: 'text/plain' }) }),
    }),
    201,
    'slides',
  )
  const handout = must(
    await api.post(`${base}/resources`, {
      ...t,
      form: formOf({ name: 'Handout', type: 'FILE', file: new File(['the handout'], 'handout.txt', { type: 'text/plain' }) }),
    }),
    201,
    'handout',
  )
  must(await api.post(`${base}/resources`, { ...t, form: formOf({ name: 'Manual', type: 'LINK', externalUrl: 'https://example.test/man' }) }), 201, 'link')
  const u1 = must(await api.post(`${base}/learning/units`, { ...t, json: { title: 'Processes', description: 'Unit one' } }), 201, 'unit')
  must(await api.post(`${base}/learning/units`, { ...t, json: { title: 'Memory' } }), 201, 'unit 2')
  const p1 = must(await api.post(`${base}/learning/units/${u1.data.id}/points`, { ...t, json: { title: 'Scheduling' } }), 201, 'point')
  const tasks = `${base}/learning/points/${p1.data.id}/tasks`
  must(await api.post(tasks, { ...t, json: { title: 'Read', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>Chapter 2</p>' } }), 201, 'text')
  must(await api.post(tasks, { ...t, json: { title: 'Slides', taskType: 'MEDIA', materialType: 'FILE', resourceId: slides.data.id } }), 201, 'file task')
  must(
    await api.post(tasks, {
      ...t,
      json: {
        title: 'Quiz 1',
        taskType: 'QUIZ',
        questions: [
          { type: 'SINGLE_CHOICE', stem: 'Pick B', options: ['A', 'B', 'C'], correctOptions: [1], points: 3 },
          { type: 'MULTIPLE_CHOICE', stem: 'Pick A and C', options: ['A', 'B', 'C'], correctOptions: [0, 2], points: 2 },
          { type: 'SHORT_ANSWER', stem: 'Why?' },
        ],
      },
    }),
    201,
    'quiz',
  )
  const now = Date.now()
  const hw = must(
    await api.post(tasks, {
      ...t,
      json: {
        title: 'Homework 1',
        taskKind: 'HOMEWORK',
        taskType: 'MEDIA',
        materialType: 'TEXT',
        content: '<p>Write a scheduler</p>',
        startAt: new Date(now - DAY).toISOString(),
        dueAt: new Date(now + 7 * DAY).toISOString(),
        notifyOnDue: false,
      },
    }),
    201,
    'homework',
  )
  const exp = must(
    await api.post(`${base}/experiments`, { ...t, json: { title: 'Lab 1', description: '<p>Fork</p>', dueAt: new Date(now + 14 * DAY).toISOString() } }),
    201,
    'experiment',
  )
  must(
    await api.put(`${base}/workspace/modules`, {
      ...t,
      json: { modules: [{ moduleKey: 'ANNOUNCEMENTS', enabled: false, sortOrder: 1 }, { moduleKey: 'LEARNING', enabled: true, sortOrder: 2 }] },
    }),
    200,
    'modules',
  )
  must(await api.post(`${base}/announcements`, { ...t, json: { title: 'Welcome', content: '<p>Hi</p>' } }), 201, 'announcement')
  must(
    await api.post(`/experiments/${exp.data.id}/submissions`, { token: student.token, form: formOf({ file: new File(['report'], 'r.txt') }) }),
    201,
    'submission',
  )
  return {
    teacher,
    student,
    courseId,
    inviteCode: c.data.inviteCode,
    homeworkStart: hw.data.startAt,
    homeworkDue: hw.data.dueAt,
    experimentDue: exp.data.dueAt,
    slidesId: slides.data.id,
    handoutId: handout.data.id,
  }
}

const shifted = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY).toISOString()

/** The learning tree without ids and times, for comparing an original with its copy. */
function shape(tree: any) {
  return tree.units.map((u: any) => ({
    title: u.title,
    description: u.description,
    sortOrder: u.sortOrder,
    points: u.points.map((p: any) => ({
      title: p.title,
      sortOrder: p.sortOrder,
      tasks: p.tasks.map((t: any) => ({
        title: t.title,
        taskKind: t.taskKind,
        taskType: t.taskType,
        materialType: t.materialType,
        content: t.content,
        url: t.url,
        hasResource: t.resourceId !== null,
        questions: t.questions.map(({ id: _id, ...q }: any) => q),
        notify: [t.notifyOnStart, t.notifyBeforeDue24h, t.notifyOnDue],
        sortOrder: t.sortOrder,
      })),
    })),
  }))
}

describe.each(BACKENDS)('copying a course (%s storage)', (backend) => {
  let ctx: TestContext
  let api: Client
  let o: Original
  let copy: any

  test('201: a new course of the caller with a fresh invite code, no members', async () => {
    ctx = await appOn(backend)
    contexts.push(ctx)
    api = ctx.api
    o = await buildOriginal(api)
    const res = await api.post(`/courses/${o.courseId}/copy`, { token: o.teacher.token, json: { title: 'Operating Systems (spring)', shiftDays: SHIFT } })
    expect([res.status, res.code]).toEqual([201, 0])
    copy = res.data
    expect(copy.id).not.toBe(o.courseId)
    expect(copy).toMatchObject({
      title: 'Operating Systems (spring)',
      description: 'Autumn term.',
      teacher: { id: o.teacher.id },
      memberCount: 1,
      joiningOpen: true,
      archived: false,
      myRole: 'TEACHER',
    })
    expect(copy.inviteCode).not.toBe(o.inviteCode)
  })

  test('structure, content and quizzes with their keys and points are copied; homework and experiment times move', async () => {
    const t = { token: o.teacher.token }
    const [before, after] = await Promise.all([api.get(`/courses/${o.courseId}/learning`, t), api.get(`/courses/${copy.id}/learning`, t)])
    expect(shape(after.data)).toEqual(shape(before.data))
    const quiz = after.data.units[0].points[0].tasks.find((x: any) => x.title === 'Quiz 1')
    expect(quiz.questions.slice(0, 2).map((q: any) => [q.correctOptions, q.points])).toEqual([
      [[1], 3],
      [[0, 2], 2],
    ])
    const origQuiz = before.data.units[0].points[0].tasks.find((x: any) => x.title === 'Quiz 1')
    expect(quiz.questions.map((q: any) => q.correctOptions)).toEqual(origQuiz.questions.map((q: any) => q.correctOptions))
    expect(origQuiz.questions[0].correctOptions).toEqual([1])

    const hw = after.data.units[0].points[0].tasks.find((x: any) => x.title === 'Homework 1')
    expect([hw.startAt, hw.dueAt]).toEqual([shifted(o.homeworkStart, SHIFT), shifted(o.homeworkDue, SHIFT)])
    expect(hw.courseId).toBe(copy.id)
    const exps = await api.get(`/courses/${copy.id}/experiments`, t)
    expect(exps.data.map((e: any) => [e.title, e.description, e.dueAt])).toEqual([['Lab 1', '<p>Fork</p>', shifted(o.experimentDue, SHIFT)]])
    const modules = await api.get(`/courses/${copy.id}/workspace/modules`, t)
    expect(modules.data).toEqual((await api.get(`/courses/${o.courseId}/workspace/modules`, t)).data)
  })

  test('no people, posts or work; the file task points at the copy of its resource', async () => {
    const t = { token: o.teacher.token }
    expect((await api.get(`/courses/${copy.id}/announcements`, t)).data.items ?? []).toEqual([])
    const members = await api.get(`/courses/${copy.id}/members`, t)
    expect(members.data.items.map((m: any) => m.userId)).toEqual([o.teacher.id])
    const labs = (await api.get(`/courses/${copy.id}/experiments`, t)).data
    const subs = await api.get(`/experiments/${labs[0].id}/submissions`, t)
    expect(subs.data.total).toBe(0)
    const res = await api.get(`/courses/${copy.id}/resources`, t)
    const copied = res.data.items.map((r: any) => [r.name, r.type, r.fileName, r.externalUrl]).sort()
    expect(copied).toEqual([
      ['Handout', 'FILE', 'handout.txt', null],
      ['Manual', 'LINK', null, 'https://example.test/man'],
      ['Slides', 'FILE', 'week1.txt', null],
    ])
    const slides = res.data.items.find((r: any) => r.name === 'Slides')
    const tree = await api.get(`/courses/${copy.id}/learning`, t)
    const fileTask = tree.data.units[0].points[0].tasks.find((x: any) => x.materialType === 'FILE')
    expect(fileTask.resourceId).toBe(slides.id)
    // No reminders: the new course has no students yet; a student who joins gets the ones ahead.
    const [{ n }] = await ctx.deps.sql<[{ n: number }]>`
      select count(*)::int as n from homework_reminder_events e join learning_tasks k on k.id = e.task_id where k.course_id = ${copy.id}`
    expect(n).toBe(0)
    const newcomer = await signUp(api, 'STUDENT')
    must(await api.post('/courses/join', { token: newcomer.token, json: { inviteCode: copy.inviteCode } }), 200, 'join copy')
    const hw = tree.data.units[0].points[0].tasks.find((x: any) => x.title === 'Homework 1')
    const events = await api.get(`/courses/${copy.id}/homeworks/${hw.id}/reminders`, t)
    expect(events.data.map((e: any) => e.triggerType).sort()).toEqual(['BEFORE_DUE_24H', 'START'])
  })

  test("the copied files stay downloadable after the original's are deleted", async () => {
    const t = { token: o.teacher.token }
    const copied = (await api.get(`/courses/${copy.id}/resources`, t)).data.items
    const handout = copied.find((r: any) => r.name === 'Handout')
    must(await api.del(`/courses/${o.courseId}/resources/${o.handoutId}`, t), 200, 'delete original')
    expect((await api.get(`/resources/${o.handoutId}/file`, t)).status).toBe(404)
    const file = await api.get(`/resources/${handout.id}/file`, t)
    expect([file.status, file.body]).toEqual([200, 'the handout'])
    // And the other way round: deleting the copy leaves the original's file.
    const slides = copied.find((r: any) => r.name === 'Slides')
    expect(slides.id).not.toBe(o.slidesId)
    const orig = await api.get(`/resources/${o.slidesId}/file`, t)
    expect([orig.status, orig.body]).toEqual([200, 'slides of week 1'])
  })

  test('an archived course can be copied; its copy is active', async () => {
    must(await api.patch(`/courses/${o.courseId}`, { token: o.teacher.token, json: { archived: true } }), 200, 'archive')
    const res = await api.post(`/courses/${o.courseId}/copy`, {
      token: o.teacher.token,
      json: { title: 'Operating Systems (next autumn)', description: 'New text.', shiftDays: -3 },
    })
    expect([res.status, res.data.archived, res.data.description]).toEqual([201, false, 'New text.'])
    const hw = (await api.get(`/courses/${res.data.id}/homeworks`, { token: o.teacher.token })).data.items[0]
    expect(hw.dueAt).toBe(shifted(o.homeworkDue, -3))
  })

  test('401 anonymous, 403 a student or another teacher, 404 unknown course, 400 bad input', async () => {
    const path = `/courses/${o.courseId}/copy`
    const json = { title: 'X', shiftDays: 0 }
    const anon = await api.post(path, { json })
    expect([anon.status, anon.code]).toEqual([401, 40100])
    const student = await api.post(path, { token: o.student.token, json })
    expect([student.status, student.code]).toEqual([403, 40300])
    const other = await signUp(api, 'TEACHER')
    expect((await api.post(path, { token: other.token, json })).status).toBe(403)
    const unknown = await api.post(`/courses/${UNKNOWN}/copy`, { token: o.teacher.token, json })
    expect([unknown.status, unknown.code]).toEqual([404, 40401])
    expect((await api.post('/courses/not-a-uuid/copy', { token: o.teacher.token, json })).status).toBe(400)
    for (const bad of [
      { title: 'X', shiftDays: 3651 },
      { title: 'X', shiftDays: -3651 },
      { title: 'X', shiftDays: 1.5 },
      { title: 'X', shiftDays: '7' },
      { title: 'X' },
      { title: '', shiftDays: 0 },
      { shiftDays: 0 },
    ]) {
      const r = await api.post(path, { token: o.teacher.token, json: bad })
      expect([r.status, r.code, JSON.stringify(bad)]).toEqual([400, 40001, JSON.stringify(bad)])
    }
  })
})
