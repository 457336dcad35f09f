import { beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { testDatabase } from '../support/harness.ts'
import { bulkStudents } from '../support/reminders.ts'

/**
 * sql/048: an outbox row's notification and user are checked once per statement by triggers
 * instead of two per-row foreign keys. The guarantees are the foreign keys' (no row referring to
 * a missing one: SQLSTATE 23503, the whole statement refused; a notification's or a user's
 * outbox rows go with it; a row keeps its notification and user), and one more: a notification
 * mail is for the notification's own user.
 */
let sql: Sql
beforeAll(async () => {
  sql = (await testDatabase()).sql
}, 30_000)

const T0 = new Date('2027-03-01T08:00:00.000Z')
const sqlstate = (e: unknown) => (e instanceof postgres.PostgresError ? e.code : String(e))

async function notificationOf(userId: string) {
  const id = newId()
  await sql`insert into notifications (id, user_id, notification_type, title, delivered_at) values (${id}, ${userId}, 'ANNOUNCEMENT', 't', ${T0})`
  return id
}

/** Notification mails (notification_id, user_id) in one statement. */
function mail(rows: { notification_id: string; user_id: string }[]) {
  return sql`
    insert into email_outbox ${sql(
      rows.map((r) => ({ id: newId(), ...r, created_at: T0, next_attempt_at: T0 })),
      'id', 'notification_id', 'user_id', 'created_at', 'next_attempt_at',
    )}`
}

/** An account mail (no notification) for `userId`. */
function accountMail(userId: string) {
  return sql`
    insert into email_outbox (id, kind, user_id, to_address, locale, created_at, next_attempt_at)
    values (${newId()}, 'VERIFY_EMAIL', ${userId}, 'someone@example.test', 'en', ${T0}, ${T0})`
}

const outboxOf = async (userIds: string[]) =>
  (await sql<{ user_id: string; notification_id: string | null }[]>`
    select user_id, notification_id from email_outbox where user_id = any(${userIds}::uuid[]) order by user_id, notification_id`)

describe('outbox rows refer to an existing notification and user', () => {
  test('a mail of a missing notification or user, or of another user’s notification, is refused with 23503, the whole statement with it', async () => {
    const [a, b] = await bulkStudents(sql, 2)
    const na = await notificationOf(a!)
    expect(sqlstate(await mail([{ notification_id: newId(), user_id: a! }]).catch((e) => e))).toBe('23503')
    expect(sqlstate(await accountMail(newId()).catch((e) => e))).toBe('23503')
    // a's notification mailed to b.
    expect(sqlstate(await mail([{ notification_id: na, user_id: b! }]).catch((e) => e))).toBe('23503')
    // One bad row among good ones: nothing is written.
    const nb = await notificationOf(b!)
    expect(sqlstate(await mail([{ notification_id: na, user_id: a! }, { notification_id: nb, user_id: a! }]).catch((e) => e))).toBe('23503')
    expect(await outboxOf([a!, b!])).toHaveLength(0)
    await mail([{ notification_id: na, user_id: a! }, { notification_id: nb, user_id: b! }])
    await accountMail(a!)
    expect(await outboxOf([a!, b!])).toHaveLength(3)
  })

  test("deleting a notification deletes its mail; deleting a user deletes all of that user's mails, no one else's", async () => {
    const [a, b] = await bulkStudents(sql, 2)
    const [na1, na2, nb] = [await notificationOf(a!), await notificationOf(a!), await notificationOf(b!)]
    await mail([{ notification_id: na1, user_id: a! }, { notification_id: na2, user_id: a! }, { notification_id: nb, user_id: b! }])
    await accountMail(a!)
    await accountMail(b!)
    await sql`delete from notifications where id = ${na1}`
    expect((await outboxOf([a!])).map((r) => r.notification_id).sort()).toEqual([na2, null].sort())
    await sql`delete from users where id = ${a!}`
    expect(await outboxOf([a!])).toHaveLength(0)
    expect((await outboxOf([b!])).map((r) => r.notification_id).sort()).toEqual([nb, null].sort())
  })

  test('an outbox row keeps its notification and user; sending it still works', async () => {
    const [a, b] = await bulkStudents(sql, 2)
    const na = await notificationOf(a!)
    await mail([{ notification_id: na, user_id: a! }])
    expect(sqlstate(await sql`update email_outbox set user_id = ${b!} where notification_id = ${na}`.catch((e) => e))).toBe('23503')
    expect(sqlstate(await sql`update email_outbox set notification_id = ${await notificationOf(a!)} where notification_id = ${na}`.catch((e) => e))).toBe('23503')
    await sql`update email_outbox set sent_at = ${T0} where notification_id = ${na}`
    expect((await sql`select 1 from email_outbox where notification_id = ${na} and sent_at is not null`).length).toBe(1)
  })
})
