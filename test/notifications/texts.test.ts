import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { insertNotifications } from '../support/notifications.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse, insertPoint } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, testDatabase, type Account, type Client } from '../support/harness.ts'
import { DAY, HOUR, createHomework, plus } from '../support/reminders.ts'

/*
 * Issue 12.5: texts are rendered when read, in the reader's language (users.locale, else
 * Accept-Language), with relative wording and no clock time in one zone; `params` carries the
 * structure (dueAt as ISO) for clients. Rows written before keep their stored text.
 */

const T0 = new Date('2030-02-01T08:00:00.000Z')
const clock = new ManualClock(T0)
let api: Client
let sql: Sql
let teacher: Account, en: Account, zh: Account, browserZh: Account
let courseId: string, taskId: string
const dueAt = plus(T0, 3 * DAY)

beforeAll(async () => {
  sql = (await testDatabase()).sql
  ;({ api } = await testApp({ clock }))
  ;[teacher, en, zh, browserZh] = await Promise.all([signUp(api, 'TEACHER'), signUp(api), signUp(api), signUp(api)])
  await sql`update users set locale = 'zh-CN' where id = ${zh.id}`
  courseId = (await insertCourse(sql, teacher.id, '操作系统 Operating Systems')).id
  for (const s of [en, zh, browserZh]) await addStudent(sql, courseId, s.id)
  const { pointId } = await insertPoint(sql, courseId)
  taskId = (await createHomework(sql, courseId, pointId, { title: 'Page tables', startAt: plus(T0, HOUR), dueAt }, T0)).id
  await dispatch(sql, dueAt)
}, 30_000)

const items = async (a: Account, headers: Record<string, string> = {}) => {
  const r = await api.get('/notifications', { token: a.token, headers })
  expect(r.status).toBe(200)
  return r.data.items as any[]
}
const byTrigger = (list: any[], t: string) => list.find((n) => n.params?.trigger === t)

describe('homework reminder texts', () => {
  test('English: relative wording, no clock time; params with ISO times for clients', async () => {
    clock.set(plus(T0, HOUR))
    const list = await items(en)
    expect(list).toHaveLength(3)
    const start = byTrigger(list, 'START')
    expect(start.title).toBe('New homework: Page tables')
    expect(start.content).toBe('"Page tables" in 操作系统 Operating Systems is open. It is due in 3 days.')
    expect(start.params).toMatchObject({
      kind: 'HOMEWORK_REMINDER',
      trigger: 'START',
      courseId,
      courseTitle: '操作系统 Operating Systems',
      taskId,
      taskTitle: 'Page tables',
      dueAt: dueAt.toISOString(),
      startAt: plus(T0, HOUR).toISOString(),
    })
    expect(byTrigger(list, 'BEFORE_DUE_24H').title).toBe('Homework due in 24 hours: Page tables')
    expect(byTrigger(list, 'DUE').content).toBe('"Page tables" in 操作系统 Operating Systems is due now. Submissions after the due time are marked late.')
    for (const n of list) expect(n.title + n.content).not.toMatch(/UTC|\d{1,2}:\d{2}/)
  })

  test('the reader\'s saved locale (zh-CN) wins over Accept-Language', async () => {
    clock.set(plus(T0, HOUR))
    const list = await items(zh, { 'accept-language': 'en-US,en;q=0.9' })
    expect(byTrigger(list, 'START')).toMatchObject({
      title: '新作业：Page tables',
      content: '课程“操作系统 Operating Systems”布置了新作业“Page tables”，现在可以开始做了。距离截止还有 3 天。',
    })
    expect(byTrigger(list, 'BEFORE_DUE_24H').title).toBe('作业 24 小时后截止：Page tables')
    expect(byTrigger(list, 'DUE').content).toBe('课程“操作系统 Operating Systems”的作业“Page tables”已到截止时间，此后提交将记为迟交。')
  })

  test('without a saved locale, Accept-Language decides; the same row reads in either language', async () => {
    clock.set(plus(T0, HOUR))
    expect(byTrigger(await items(browserZh, { 'accept-language': 'zh-CN,zh;q=0.9' }), 'START').title).toBe('新作业：Page tables')
    expect(byTrigger(await items(browserZh, { 'accept-language': 'fr' }), 'START').title).toBe('New homework: Page tables')
  })

  test('relative wording follows the time of reading; after the deadline it says so', async () => {
    clock.set(plus(dueAt, -5 * HOUR))
    expect(byTrigger(await items(en), 'START').content).toEndWith('It is due in 5 hours.')
    clock.set(plus(dueAt, HOUR))
    expect(byTrigger(await items(en), 'START').content).toEndWith('Its deadline has passed.')
    expect(byTrigger(await items(zh), 'START').content).toEndWith('截止时间已过。')
  })

  test('marking read returns the rendered text too', async () => {
    const n = byTrigger(await items(zh), 'DUE')
    const r = await api.patch(`/notifications/${n.id}/read`, { token: zh.token })
    expect(r.status).toBe(200)
    expect(r.data.title).toBe('作业已到截止时间：Page tables')
  })
})

describe('other notifications', () => {
  test('an announcement keeps the teacher\'s words and names the course in params', async () => {
    const r = await api.post(`/courses/${courseId}/announcements`, { token: teacher.token, json: { title: 'Exam moved', content: '<p>The exam is next week.</p>' } })
    expect(r.status).toBe(201)
    const n = (await items(zh)).find((x) => x.type === 'ANNOUNCEMENT')
    expect(n).toMatchObject({ title: 'Exam moved', content: 'The exam is next week.' })
    expect(n.params).toMatchObject({ kind: 'ANNOUNCEMENT', courseId, courseTitle: '操作系统 Operating Systems', announcementTitle: 'Exam moved' })
  })

  test('a graded task renders per reader', async () => {
    await insertNotifications(
      sql,
      [
        {
          userId: zh.id,
          type: 'SUBMISSION_GRADED',
          title: 'Graded: Quiz 1',
          content: 'x',
          actionPath: null,
          params: { kind: 'SUBMISSION_GRADED', subject: 'TASK', courseId, courseTitle: null, title: 'Quiz 1', score: 92 },
        },
      ],
      clock.now(),
    )
    const n = (await items(zh)).find((x) => x.type === 'SUBMISSION_GRADED')
    expect(n).toMatchObject({ title: '作业已批改：Quiz 1', content: '你在课程“操作系统 Operating Systems”中“Quiz 1”的答卷已批改，得分 92/100。' })
    expect(n.params.courseTitle).toBe('操作系统 Operating Systems')
  })

  test('a row written before texts were structured (params null) keeps its stored text', async () => {
    await insertNotifications(sql, [{ userId: zh.id, type: 'HOMEWORK_REMINDER', title: 'Homework open: Old', content: 'It is due 2026-11-23 15:08 UTC.', actionPath: null }], clock.now())
    const n = (await items(zh)).find((x) => x.title === 'Homework open: Old')
    expect(n).toMatchObject({ content: 'It is due 2026-11-23 15:08 UTC.', params: null })
  })
})
