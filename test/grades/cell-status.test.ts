import { beforeAll, describe, expect, test } from 'bun:test'
import { choice, createTask, pointIn, textTask, world, type World } from '../learning/helpers.ts'
import { download, formOf } from '../storage/helpers.ts'
import { addStudent } from '../support/fixtures.ts'
import { ManualClock, signUp, type Account } from '../support/harness.ts'

/*
 * Issue 29.6: "—" in the gradebook meant both "nothing handed in" and "not graded yet", and late
 * work was not marked. The overview says per cell why there is no score (NOT_GRADED, MISSING at
 * request time) and which newest submissions came after the due time (src/lib/due.ts: exactly
 * at the due time is on time); the CSV has a status column per gradebook column after the
 * earlier ones; columns say which kind of task they are (issue 27.9).
 */
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const DUE = '2026-11-22T09:00:00.000Z'
const LAB_DUE = '2026-11-22T10:00:00.000Z'
let w: World
let carol: Account
let homework: any, quiz: any, homeworkQuiz: any, experimentId: string

const overview = async () => {
  const r = await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })
  expect([r.status, r.code]).toEqual([200, 0])
  return r.data
}
const row = (data: any, name: string) => data.students.find((s: any) => s.displayName === name)
const at = (iso: string, ms = 0) => clock.set(new Date(Date.parse(iso) + ms))

beforeAll(async () => {
  w = await world({ clock })
  carol = await signUp(w.api, 'STUDENT', 'Carol')
  await addStudent(w.deps.sql, w.course.id, carol.id)
  const pointId = (await pointIn(w)).point.id
  homework = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay', ...textTask, taskKind: 'HOMEWORK', startAt: '2026-11-21T00:00:00Z', dueAt: DUE })
  quiz = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Check', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0])] })
  homeworkQuiz = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Test',
    taskType: 'QUIZ',
    taskKind: 'HOMEWORK',
    questions: [choice('SINGLE_CHOICE', [0])],
    startAt: '2026-11-21T00:00:00Z',
    dueAt: '2026-12-22T00:00:00Z',
  })
  experimentId = (await w.api.post(`/courses/${w.course.id}/experiments`, { token: w.teacher.token, json: { title: 'Lab', description: '', dueAt: LAB_DUE } })).data.id
}, 60_000)

describe('gradebook cell status', () => {
  test('columns say homework, quiz or experiment', async () => {
    const d = await overview()
    expect(d.columns.map((c: any) => [c.title, c.kind, c.taskKind, c.taskType])).toEqual([
      ['Essay', 'TASK', 'HOMEWORK', 'MEDIA'],
      ['Check', 'TASK', 'LEARNING', 'QUIZ'],
      ['Test', 'TASK', 'HOMEWORK', 'QUIZ'],
      ['Lab', 'EXPERIMENT', null, null],
    ])
  })

  test('before the due time nothing is missing; handed in without a score is NOT_GRADED', async () => {
    // Alice hands the essay in exactly at the due time: on time.
    at(DUE)
    const essay = await w.api.post(`${w.base}/tasks/${homework.id}/submissions`, { token: w.student.token, json: { content: 'essay' } })
    expect(essay.status).toBe(201)
    const d = await overview()
    expect(row(d, 'Alice')).toMatchObject({ status: { [homework.id]: 'NOT_GRADED' }, late: [] })
    expect(row(d, 'Carol')).toMatchObject({ cells: {}, status: {}, late: [] })
    // Graded: the score is the cell, no status.
    const g = await w.api.patch(`${w.base}/submissions/${essay.data.id}/grade`, { token: w.teacher.token, json: { score: 80 } })
    expect(g.status).toBe(200)
    expect(row(await overview(), 'Alice')).toMatchObject({ cells: { [homework.id]: 80 }, status: {}, late: [] })
  })

  test('one millisecond after the due time: MISSING for nothing handed in, late for what comes now', async () => {
    // The same gradebook version as the last read: the cache must not answer from before the due time.
    at(DUE, 1)
    let d = await overview()
    expect(row(d, 'Carol').status).toEqual({ [homework.id]: 'MISSING' })
    expect(row(d, 'Bob').status).toEqual({ [homework.id]: 'MISSING' })
    // Bob hands in late: NOT_GRADED and late; graded, still late.
    const late = await w.api.post(`${w.base}/tasks/${homework.id}/submissions`, { token: w.student2.token, json: { content: 'late essay' } })
    expect([late.status, late.data.late]).toEqual([201, true])
    d = await overview()
    expect(row(d, 'Bob')).toMatchObject({ status: { [homework.id]: 'NOT_GRADED' }, late: [homework.id] })
    await w.api.patch(`${w.base}/submissions/${late.data.id}/grade`, { token: w.teacher.token, json: { score: 50 } })
    d = await overview()
    expect(row(d, 'Bob')).toMatchObject({ cells: { [homework.id]: 50 }, status: {}, late: [homework.id] })
    // A quiz without a due time is never missing.
    expect(row(d, 'Carol').status[quiz.id]).toBeUndefined()
  })

  test('experiments: late hand-in and MISSING after the lab is due', async () => {
    at(LAB_DUE, 60_000)
    const sub = await w.api.post(`/experiments/${experimentId}/submissions`, {
      token: w.student.token,
      form: formOf({ file: new File(['report'], 'report.txt', { type: 'text/plain' }) }),
    })
    expect(sub.status).toBe(201)
    const d = await overview()
    expect(row(d, 'Alice')).toMatchObject({ status: { [experimentId]: 'NOT_GRADED' }, late: [experimentId] })
    expect(row(d, 'Carol').status).toEqual({ [homework.id]: 'MISSING', [experimentId]: 'MISSING' })
    // A page of students says the same.
    const page = await w.api.get(`/courses/${w.course.id}/grades/overview?page=1&pageSize=2`, { token: w.teacher.token })
    expect(page.data.students[0]).toEqual(row(d, page.data.students[0].displayName))
  })

  // The grading lists (the `late` of each submission) and the gradebook follow one rule: late is
  // judged against the current due time, so a moved deadline relabels both.
  const lateInList = async (path: string, id: string) => {
    const r = await w.api.get(path, { token: w.teacher.token })
    expect([r.status, r.code]).toEqual([200, 0])
    return r.data.items.filter((s: any) => s.student.id === id).map((s: any) => s.late)
  }
  const bobsEssays = () => lateInList(`${w.base}/tasks/${homework.id}/submissions?pageSize=50`, w.student2.id)
  const alicesLabs = () => lateInList(`/experiments/${experimentId}/submissions?pageSize=50`, w.student.id)

  test('moving the due time later makes a late hand-in on time and a missing cell not due', async () => {
    expect(await bobsEssays()).toEqual([true])
    const r = await w.api.patch(`${w.base}/tasks/${homework.id}`, { token: w.teacher.token, json: { dueAt: '2026-12-01T00:00:00Z' } })
    expect(r.status).toBe(200)
    const d = await overview()
    expect(row(d, 'Bob').late).toEqual([])
    expect(row(d, 'Carol').status).toEqual({ [experimentId]: 'MISSING' })
    expect(await bobsEssays()).toEqual([false])
    await w.api.patch(`${w.base}/tasks/${homework.id}`, { token: w.teacher.token, json: { dueAt: DUE } })
    expect(await bobsEssays()).toEqual([true])
  })

  test('moving the due time of an experiment relabels its submissions as the gradebook does', async () => {
    expect(await alicesLabs()).toEqual([true])
    const later = await w.api.patch(`/courses/${w.course.id}/experiments/${experimentId}`, { token: w.teacher.token, json: { dueAt: '2026-12-01T00:00:00Z' } })
    expect(later.status).toBe(200)
    expect(await alicesLabs()).toEqual([false])
    expect(row(await overview(), 'Alice').late).toEqual([])
    const back = await w.api.patch(`/courses/${w.course.id}/experiments/${experimentId}`, { token: w.teacher.token, json: { dueAt: LAB_DUE } })
    expect(back.status).toBe(200)
    expect(await alicesLabs()).toEqual([true])
    expect(row(await overview(), 'Alice').late).toEqual([experimentId])
  })

  test('the CSV keeps its columns and adds one status column per gradebook column at the end', async () => {
    const res = await download(w, `/courses/${w.course.id}/grades/overview.csv`, w.teacher.token)
    expect(res.status).toBe(200)
    const lines = new TextDecoder().decode(res.bytes).replace(/^\uFEFF/, '').split('\r\n')
    expect(lines[0]).toBe(
      'User ID,Username,Display name,Submissions,Graded,Average score,Essay: score,Check: score,Test: score,Lab: score,Lab: submitted at,' +
        'Essay: status,Check: status,Test: status,Lab: status',
    )
    const bob = lines.find((l) => l.startsWith(w.student2.id))!
    expect(bob.endsWith(',"Graded, late",,,Missing')).toBe(true)
    const alice = lines.find((l) => l.startsWith(w.student.id))!
    expect(alice.endsWith(',Graded,,,"Not graded, late"')).toBe(true)
    const c = lines.find((l) => l.startsWith(carol.id))!
    expect(c.endsWith(',Missing,,,Missing')).toBe(true)
  })

  test('401, 403 and 404', async () => {
    const path = `/courses/${w.course.id}/grades/overview`
    expect((await w.api.get(path)).status).toBe(401)
    for (const who of [w.student, w.otherTeacher]) expect((await w.api.get(path, { token: who.token })).code).toBe(40300)
    expect((await w.api.get(`/courses/01a20000-0000-7000-8000-000000000000/grades/overview`, { token: w.teacher.token })).status).toBe(404)
  })
})
