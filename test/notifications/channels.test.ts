import { beforeAll, describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { CHANNELS } from '../../src/services/channels.ts'
import type { Sql } from '../../src/db/connect.ts'
import type { Channel } from '../../src/modules/notifications/channel.ts'
import { decodeSignal, encodeSignal, localSignals, type Signal } from '../../src/modules/notifications/bus.ts'
import { preferencesOf, savePreferences } from '../../src/modules/notifications/preferences.ts'
import { notificationRoutes } from '../../src/modules/notifications/routes.ts'
import { publish } from '../../src/modules/announcements/service.ts'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse, insertPoint } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, type Account, type TestContext } from '../support/harness.ts'
import { HOUR, DAY, createHomework, plus } from '../support/reminders.ts'

/*
 * Issue 28: a channel is one file implementing `Channel` plus its entry in a channel list. This
 * test adds one (a pigeon post, its outbox a table of the test's own) without touching anything
 * else: the reminder scan and an announcement fan out to it, for exactly the recipients who
 * switched it on (a channel no type names is off by default), in the notification's transaction;
 * the preferences API offers it, in the same shape as `email`.
 */
const T0 = new Date('2032-05-03T08:00:00.000Z')
const clock = new ManualClock(T0)
let ctx: TestContext
let sql: Sql
let teacher: Account, keen: Account, quiet: Account
let courseId: string, pointId: string

const pigeon: Channel = {
  name: 'pigeon',
  enabled: () => true,
  fanOut: (tx, wants) => tx`
    insert into test_pigeon_outbox (notification_id, user_id, notification_type)
    select w.id, w.user_id, w.notification_type from written w where ${wants}`,
}

const posted = (userId: string) =>
  sql<{ notification_type: string; kind: string }[]>`
    select o.notification_type, n.params->>'kind' as kind
      from test_pigeon_outbox o join notifications n on n.id = o.notification_id
     where o.user_id = ${userId} order by n.delivered_at, n.id`

beforeAll(async () => {
  ctx = await testApp({ clock })
  sql = ctx.deps.sql
  await sql`create table if not exists test_pigeon_outbox (
              notification_id uuid primary key references notifications (id) on delete cascade,
              user_id uuid not null, notification_type text not null)`
  ;[teacher, keen, quiet] = await Promise.all([signUp(ctx.api, 'TEACHER'), signUp(ctx.api), signUp(ctx.api)])
  courseId = (await insertCourse(sql, teacher.id, 'Pigeon course')).id
  await addStudent(sql, courseId, keen.id)
  await addStudent(sql, courseId, quiet.id)
  pointId = (await insertPoint(sql, courseId)).pointId
  await savePreferences(sql, keen.id, { pigeon: { HOMEWORK_REMINDER: true, ANNOUNCEMENT: true, SUBMISSION_RECEIVED: false } }, T0)
}, 60_000)

describe('a channel added in a test', () => {
  test('off by default for every type; a user turns it on per type (rows, no column)', async () => {
    expect((await preferencesOf(sql, quiet.id, ['pigeon'])).pigeon).toEqual({ HOMEWORK_REMINDER: false, SUBMISSION_GRADED: false, ANNOUNCEMENT: false, SUBMISSION_RECEIVED: false, COMMENT_REPLY: false, PRIVATE_COMMENT: false })
    expect((await preferencesOf(sql, keen.id, ['pigeon', 'email'])).pigeon).toEqual({ HOMEWORK_REMINDER: true, SUBMISSION_GRADED: false, ANNOUNCEMENT: true, SUBMISSION_RECEIVED: false, COMMENT_REPLY: false, PRIVATE_COMMENT: false })
  })

  test('the reminder scan fans out to it, only to whoever switched it on, with the notification', async () => {
    await createHomework(sql, courseId, pointId, { title: 'Carrier', startAt: plus(T0, HOUR), dueAt: plus(T0, 3 * DAY) }, T0)
    const r = await dispatch(sql, plus(T0, HOUR), { channels: [...ctx.deps.channels, pigeon] })
    expect(r.sent).toBeGreaterThanOrEqual(2)
    expect([...(await posted(keen.id))]).toEqual([{ notification_type: 'HOMEWORK_REMINDER', kind: 'HOMEWORK_REMINDER' }])
    expect((await posted(quiet.id)).length).toBe(0)
  })

  test('an announcement (recipients resolved in the database) fans out to it too; a rolled-back one leaves nothing', async () => {
    await publish(sql, courseId, { id: teacher.id } as never, { title: 'Birds', content: '<p>Coo</p>' }, plus(T0, 2 * HOUR), [pigeon])
    expect((await posted(keen.id)).map((p) => p.kind)).toEqual(['HOMEWORK_REMINDER', 'ANNOUNCEMENT'])
    expect((await posted(quiet.id)).length).toBe(0)
    // The channel's rows commit or roll back with the notifications.
    const failing: Channel = { ...pigeon, fanOut: (tx) => tx`insert into test_pigeon_outbox (notification_id, user_id, notification_type) select w.id, null, '' from written w` }
    const err = await publish(sql, courseId, { id: teacher.id } as never, { title: 'Lost', content: '<p>x</p>' }, plus(T0, 3 * HOUR), [failing]).catch((e) => e)
    expect(err).toBeInstanceOf(Error)
    const [lost] = await sql<{ n: number }[]>`select count(*)::int as n from notifications where user_id = ${keen.id} and params->>'announcementTitle' = 'Lost'`
    expect(lost!.n).toBe(0)
  })

  test('the preferences API offers a switch per type for each listed channel, same shape as email', async () => {
    const app = new Elysia({ prefix: '/api/v1' }).use(notificationRoutes(ctx.deps, [...CHANNELS, pigeon]))
    const res = await app.handle(new Request('http://localhost/api/v1/me/notification-preferences', { headers: { authorization: `Bearer ${keen.token}` } }))
    expect(res.status).toBe(200)
    const body = (await res.json()) as { data: Record<string, unknown> }
    expect(body.data).toEqual({
      email: { HOMEWORK_REMINDER: true, SUBMISSION_GRADED: true, ANNOUNCEMENT: false, SUBMISSION_RECEIVED: false, COMMENT_REPLY: false, PRIVATE_COMMENT: true },
      pigeon: { HOMEWORK_REMINDER: true, SUBMISSION_GRADED: false, ANNOUNCEMENT: true, SUBMISSION_RECEIVED: false, COMMENT_REPLY: false, PRIVATE_COMMENT: false },
      // Not a channel: hand-ins as one digest per task (issue 54).
      handInDigest: true,
    })
  })

  test('issue 30.5: a fan-out to a whole course signals the streams with one payload and no id list', async () => {
    const seen: Signal[] = []
    const h = (sig: Signal) => seen.push(sig)
    localSignals.on('signal', h)
    try {
      await publish(sql, courseId, { id: teacher.id } as never, { title: 'Quiet', content: '<p>Shh</p>' }, plus(T0, 4 * HOUR), [])
    } finally {
      localSignals.off('signal', h)
    }
    expect(seen).toEqual([{ kind: 'at', at: plus(T0, 4 * HOUR).toISOString(), userIds: null }])
    const payloads = encodeSignal(seen[0]!)
    expect(payloads).toEqual([`a|${plus(T0, 4 * HOUR).toISOString()}|`])
    expect(decodeSignal(payloads[0]!)).toEqual(seen[0]!)
    // Listed users (a grading, a dispatch batch) travel with the instant, chunked under 8000 bytes.
    const many = Array.from({ length: 300 }, (_, i) => `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`)
    const chunks = encodeSignal({ kind: 'at', at: T0.toISOString(), userIds: many })
    expect(chunks.length).toBeGreaterThan(1)
    expect(chunks.every((c) => c.length < 8000)).toBe(true)
    expect(chunks.flatMap((c) => (decodeSignal(c) as { userIds: string[] }).userIds)).toEqual(many)
  })
})
