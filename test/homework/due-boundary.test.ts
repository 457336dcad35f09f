import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rm } from 'node:fs/promises'
import { dueStatus, isLate, nextDueChange, remainingSeconds } from '../../src/lib/due.ts'
import type { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { choice, createTask, pointIn, world, type World } from '../learning/helpers.ts'
import { formOf, sampleBytes } from '../storage/helpers.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { ManualClock, signUp } from '../support/harness.ts'

/**
 * The one due-time rule (src/lib/due.ts, docs/api.md "Deadlines"): at exactly dueAt work is on
 * time; from dueAt + 1 ms it is late / overdue. Issue 28 found the experiment list calling
 * `now == dueAt` OVERDUE while a submission at that instant was on time.
 */
const DUE = '2026-11-22T10:00:00.000Z'
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let w: World
let homework: any
let experimentId: string

beforeAll(async () => {
  w = await world({ clock })
  const pointId = (await pointIn(w)).point.id
  homework = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Due at ten',
    taskKind: 'HOMEWORK',
    taskType: 'QUIZ',
    questions: [choice('SINGLE_CHOICE', [0], 1)],
    startAt: '2026-11-22T07:00:00.000Z',
    dueAt: DUE,
  })
  const exp = await w.api.post(`/courses/${w.course.id}/experiments`, { token: w.teacher.token, json: { title: 'Lab at ten', description: '', dueAt: DUE } })
  expect(exp.status).toBe(201)
  experimentId = exp.data.id
}, 60_000)
afterAll(async () => {
  await rm((w.deps.storage as LocalDiskStorage).root, { recursive: true, force: true })
})

const homeworkOf = async (token: string) => (await w.api.get(`/homeworks/mine?courseId=${w.course.id}`, { token })).data.items.find((i: any) => i.taskId === homework.id)
const experimentOf = async (token: string) => (await w.api.get(`/experiments/mine?courseId=${w.course.id}`, { token })).data.items.find((i: any) => i.experimentId === experimentId)
const sheet = (token: string) => w.api.post(`${w.base}/tasks/${homework.id}/submissions`, { token, json: { answers: [{ questionId: homework.questions[0].id, selectedOptions: [0] }] } })
const lab = (token: string) =>
  w.api.post(`/experiments/${experimentId}/submissions`, { token, form: formOf({ file: new File([sampleBytes(100)], 'r.pdf', { type: 'application/pdf' }) }) })

describe('the deadline instant, on every route', () => {
  test('at exactly dueAt: homework IN_PROGRESS, experiment OPEN, both submissions on time', async () => {
    clock.set(DUE)
    expect(await homeworkOf(w.student.token)).toMatchObject({ status: 'IN_PROGRESS', remainingSeconds: 0 })
    expect(await experimentOf(w.student.token)).toMatchObject({ status: 'OPEN', remainingSeconds: 0 })
    const teacherView = await homeworkOf(w.teacher.token)
    expect(teacherView.status).toBe('IN_PROGRESS')
    const s = await sheet(w.student.token)
    expect([s.status, s.data.late]).toEqual([201, false])
    const l = await lab(w.student.token)
    expect([l.status, l.data.late]).toEqual([201, false])
  })

  test('at exactly dueAt, reminders agree: a student joining then gets START now, which says "due now" (not "passed"), and the homework is open for them', async () => {
    clock.set(DUE)
    const late = await signUp(w.api, 'STUDENT', 'Carol')
    const join = await w.api.post('/courses/join', { json: { inviteCode: w.course.inviteCode }, token: late.token })
    expect(join.status).toBe(200)
    const evs = await w.api.get(`/courses/${w.course.id}/homeworks/${homework.id}/reminders`, { token: w.teacher.token })
    expect(evs.status).toBe(200)
    const mine = evs.data.filter((e: any) => e.targetUserId === late.id)
    expect(mine.map((e: any) => [e.triggerType, e.scheduledAt])).toEqual([['START', DUE]])
    await dispatch(w.deps.sql, new Date(DUE))
    const inbox = await w.api.get('/notifications', { token: late.token })
    expect(inbox.status).toBe(200)
    const start = inbox.data.items.filter((n: any) => n.type === 'HOMEWORK_REMINDER')
    expect(start).toHaveLength(1)
    expect(start[0].content).toContain('It is due now')
    expect(start[0].content).not.toContain('passed')
    expect(await homeworkOf(late.token)).toMatchObject({ status: 'IN_PROGRESS', remainingSeconds: 0 })
    // Read a millisecond later, the same notification says the deadline has passed.
    clock.set(new Date(Date.parse(DUE) + 1))
    const after = await w.api.get('/notifications', { token: late.token })
    expect(after.data.items.find((n: any) => n.id === start[0].id).content).toContain('Its deadline has passed')
  })

  test('one millisecond later: OVERDUE everywhere, submissions late', async () => {
    clock.set(new Date(Date.parse(DUE) + 1))
    expect(await homeworkOf(w.student2.token)).toMatchObject({ status: 'OVERDUE', remainingSeconds: 0 })
    expect(await experimentOf(w.student2.token)).toMatchObject({ status: 'OVERDUE' })
    expect((await homeworkOf(w.teacher.token)).status).toBe('OVERDUE')
    const s = await sheet(w.student2.token)
    expect([s.status, s.data.late]).toEqual([201, true])
    const l = await lab(w.student2.token)
    expect([l.status, l.data.late]).toEqual([201, true])
  })
})

test('the module: on time at dueAt, overdue after; the next change is at dueAt + 1 ms', () => {
  const due = Date.parse(DUE)
  expect([isLate(due, due), isLate(due + 1, due), isLate(due + 1, null)]).toEqual([false, true, false])
  expect([dueStatus(due - 10, due - 5, due), dueStatus(due, due - 5, due), dueStatus(due + 1, null, due)]).toEqual(['NOT_STARTED', 'OPEN', 'OVERDUE'])
  expect([remainingSeconds(due - 1999, due), remainingSeconds(due + 5000, due)]).toEqual([1, 0])
  expect([nextDueChange(due - 10, due - 5, due), nextDueChange(due - 1000, null, due), nextDueChange(due + 1, null, due)]).toEqual([5, 1001, null])
})
