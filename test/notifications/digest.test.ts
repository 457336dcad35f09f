import { beforeAll, describe, expect, test } from 'bun:test'
import { addStudent } from '../support/fixtures.ts'
import { ManualClock, signUp, type Account } from '../support/harness.ts'
import { createTask, essayTask, pointIn, world, type World } from '../learning/helpers.ts'

/*
 * Hand-ins as one digest per task (issue 54: one homework put 39 notifications in the teacher's
 * inbox): a teacher has at most one unread hand-in notification per task, counted up by each
 * new hand-in and rendered "3 new hand-ins for Essay 3" in the reader's language; reading it
 * lets the next hand-in start a new one. Turned off (handInDigest: false), one per hand-in.
 */
const clock = new ManualClock('2031-06-01T08:00:00.000Z')
let w: World
let coTeacher: Account
let third: Account
let essay: any, other: any

beforeAll(async () => {
  w = await world({ clock })
  coTeacher = await signUp(w.api, 'TEACHER', 'Co Teacher')
  expect((await w.api.post(`/courses/${w.course.id}/teachers`, { token: w.teacher.token, json: { identifier: coTeacher.username } })).status).toBe(201)
  await w.deps.sql`update users set locale = 'zh-CN' where id = ${coTeacher.id}`
  third = await signUp(w.api, 'STUDENT', 'Carol')
  await addStudent(w.deps.sql, w.course.id, third.id)
  const pointId = (await pointIn(w)).point.id
  essay = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay 3', ...essayTask })
  other = await createTask(w.api, w.base, w.teacher, pointId, { title: 'Essay 4', ...essayTask })
}, 60_000)

const inbox = async (who: Account) => {
  const r = await w.api.get('/notifications?pageSize=100', { token: who.token })
  expect([r.status, r.code]).toEqual([200, 0])
  return (r.data.items as any[]).filter((n) => n.type === 'SUBMISSION_RECEIVED')
}
const hand = async (taskId: string, who: Account) => {
  clock.advance(60_000)
  const r = await w.api.post(`${w.base}/tasks/${taskId}/submissions`, { token: who.token, json: { content: '<p>done</p>' } })
  expect(r.status).toBe(201)
  return r.data
}

describe('hand-in digest', () => {
  test('the preference is on by default', async () => {
    const r = await w.api.get('/me/notification-preferences', { token: w.teacher.token })
    expect([r.status, r.data.handInDigest]).toEqual([200, true])
  })

  test('three hand-ins of one task: one unread notification per teacher, counted up, in each reader\'s language', async () => {
    await hand(essay.id, w.student)
    const one = await inbox(w.teacher)
    expect(one).toHaveLength(1)
    expect(one[0]).toMatchObject({ title: 'New submission: Essay 3', params: { count: 1, student: 'Alice' } })
    await hand(essay.id, w.student2)
    const last = await hand(essay.id, third)
    const three = await inbox(w.teacher)
    expect(three).toHaveLength(1)
    expect(three[0]).toMatchObject({
      id: one[0].id,
      title: '3 new hand-ins for Essay 3',
      content: '3 new hand-ins for "Essay 3" in Fixture course; the newest from Carol.',
      params: { count: 3, student: 'Carol', submissionId: last.id },
      deliveredAt: clock.now().toISOString(),
    })
    const zh = await inbox(coTeacher)
    expect(zh).toHaveLength(1)
    expect(zh[0].title).toBe('“Essay 3”有 3 份新提交')
  })

  test('another task has its own digest; a read digest is left alone and the next hand-in starts a new one', async () => {
    await hand(other.id, w.student)
    expect((await inbox(w.teacher)).map((n) => [n.params.title, n.params.count])).toEqual([
      ['Essay 4', 1],
      ['Essay 3', 3],
    ])
    const digest = (await inbox(w.teacher)).find((n) => n.params.title === 'Essay 3')
    expect((await w.api.patch(`/notifications/${digest.id}/read`, { token: w.teacher.token })).status).toBe(200)
    await hand(essay.id, w.student)
    const now = (await inbox(w.teacher)).filter((n) => n.params.title === 'Essay 3')
    expect(now.map((n) => [n.params.count, n.readAt === null])).toEqual([
      [1, true],
      [3, false],
    ])
    // The co-teacher never read theirs: still one, counted up.
    expect((await inbox(coTeacher)).filter((n) => n.params.title === 'Essay 3').map((n) => n.params.count)).toEqual([4])
  })

  test('turned off, a teacher gets one notification per hand-in again', async () => {
    const off = await w.api.put('/me/notification-preferences', { token: coTeacher.token, json: { handInDigest: false } })
    expect([off.status, off.code, off.data.handInDigest]).toEqual([200, 0, false])
    const before = (await inbox(coTeacher)).length
    await hand(other.id, w.student2)
    await hand(other.id, third)
    const after = await inbox(coTeacher)
    expect(after).toHaveLength(before + 2)
    expect(after[0].params.count).toBeUndefined()
    // The teacher who kept it on: Essay 4's digest counted to 3.
    expect((await inbox(w.teacher)).find((n) => n.params.title === 'Essay 4').params.count).toBe(3)
  })

  test('handInDigest must be a boolean: 400', async () => {
    const r = await w.api.put('/me/notification-preferences', { token: w.teacher.token, json: { handInDigest: 'yes' } })
    expect([r.status, r.code]).toEqual([400, 40001])
  })
})
