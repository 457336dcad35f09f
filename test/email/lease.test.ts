import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { BATCH, LEASE_MS, sendDueEmails, type Transport } from '../../src/modules/email/sender.ts'
import { signUp, testApp, type TestContext } from '../support/harness.ts'

/*
 * A run of the sender claims batch after batch with the `now` it started with. It leased every
 * claim until that start + LEASE_MS, so a run longer than the lease (a 100,000-mail backlog, a
 * slow server) claimed rows whose lease had already run out: another instance took them again
 * while they were being sent, and they went out twice (the e-mail probe, issue 30.2: 547 of
 * 20,000 twice). A claim's lease counts from the time it is made.
 */
let ctx: TestContext
let sql: Sql
beforeAll(async () => {
  ctx = await testApp()
  sql = ctx.deps.sql
})

const settings = () => ({ publicUrl: 'https://learn.example.test', mailFrom: 'Course Learning <no-reply@learn.example.test>', secret: ctx.deps.config.jwtSecret })

describe('e-mail lease', () => {
  test('a run that outlasts the lease: another instance does not take its later claims again', async () => {
    const student = await signUp(ctx.api)
    // Long before any other test's mail is due: the sender claims every due row of the database,
    // and an earlier test file sharing it may leave a queued mail (due at its own now) behind.
    const t0 = new Date('2001-06-01T08:00:00.000Z')
    const rows = Array.from({ length: BATCH + 5 }, (_, i) => ({
      id: crypto.randomUUID(),
      user_id: student.id,
      notification_type: 'ANNOUNCEMENT',
      title: `Lease ${i}`,
      content: 'Body',
      delivered_at: t0,
    }))
    await sql`insert into notifications ${sql(rows)}`
    await sql`
      insert into email_outbox (id, notification_id, user_id, created_at, next_attempt_at)
      select id, id, user_id, delivered_at, delivered_at from notifications where id = any(${rows.map((r) => r.id)}::uuid[])`
    // Notification mail goes to verified addresses only (issue 21).
    await sql`update users set email_verified = true where id = any(${[student.id]}::uuid[])`

    // Instance A's first batch takes longer than the lease (a slow server); while A sends its
    // second batch, instance B runs, LEASE_MS + 1 min after A started.
    let elapsed = 0
    const sentByA: string[] = []
    const sentByB: string[] = []
    let bResult: Awaited<ReturnType<typeof sendDueEmails>> | undefined
    const b: Transport = { sendMail: async (m) => void sentByB.push(m.messageId) }
    const a: Transport = {
      sendMail: async (m) => {
        sentByA.push(m.messageId)
        if (sentByA.length === BATCH) elapsed = LEASE_MS + 30_000
        if (sentByA.length === BATCH + 1) bResult = await sendDueEmails(sql, b, settings(), new Date(t0.getTime() + LEASE_MS + 60_000))
      },
    }
    const aResult = await sendDueEmails(sql, a, settings(), t0, undefined, () => elapsed)
    expect(aResult.sent).toBe(BATCH + 5)
    expect(sentByA).toHaveLength(BATCH + 5)
    expect(bResult).toEqual({ sent: 0, retried: 0, failed: 0 })
    expect(sentByB).toEqual([])
  })
})
