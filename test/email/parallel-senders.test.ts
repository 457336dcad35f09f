import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connectExternal, type Database } from '../../src/db/connect.ts'
import { BATCH, sendDueEmails, smtpTransport, type Transport } from '../../src/modules/email/sender.ts'
import { messageIdOf } from '../../src/modules/email/mail.ts'
import { signUp, testApp, type TestContext } from '../support/harness.ts'
import { TestSmtp } from './smtp.ts'

/*
 * Issue 30.2: mails of a batch go out in parallel over pooled connections, and several senders
 * (two instances, each with two runs at once) drain one outbox together. Every row is mailed
 * exactly once, with its notification's Message-ID, and marked sent after one attempt.
 * PostgreSQL only: the embedded database has a single connection, so nothing runs in parallel.
 */
describe.skipIf(!process.env.DATABASE_URL)('parallel e-mail senders', () => {
  const PUBLIC_URL = 'https://learn.example.test'
  const N = BATCH * 3 + 17
  let ctx: TestContext
  let smtp: TestSmtp
  let instances: { db: Database; transport: Transport }[] = []

  beforeAll(async () => {
    smtp = await TestSmtp.start()
    ctx = await testApp()
    for (let i = 0; i < 2; i++) instances.push({ db: await connectExternal(process.env.DATABASE_URL!, 4), transport: smtpTransport(smtp.url, 4) })
  }, 30_000)

  afterAll(async () => {
    for (const i of instances) {
      i.transport.close?.()
      await i.db.close()
    }
    await smtp?.stop()
  })

  test(`${N} queued mails, two instances × two runs at once → ${N} mails, each once`, async () => {
    const sql = ctx.deps.sql
    const students = await Promise.all(Array.from({ length: 5 }, () => signUp(ctx.api)))
    const now = new Date()
    const rows = Array.from({ length: N }, (_, i) => ({
      id: crypto.randomUUID(),
      user_id: students[i % students.length]!.id,
      notification_type: 'ANNOUNCEMENT',
      title: `Parallel ${i}`,
      content: 'Body',
      delivered_at: now,
    }))
    await sql`insert into notifications ${sql(rows)}`
    await sql`
      insert into email_outbox (id, notification_id, user_id, created_at, next_attempt_at)
      select id, id, user_id, delivered_at, delivered_at from notifications where id = any(${rows.map((r) => r.id)}::uuid[])`
    // Notification mail goes to verified addresses only (issue 21).
    await sql`update users set email_verified = true where id = any(${students.map((s) => s.id)}::uuid[])`

    const settings = { publicUrl: PUBLIC_URL, mailFrom: 'Course Learning <no-reply@learn.example.test>', secret: ctx.deps.config.jwtSecret }
    const results = await Promise.all(instances.flatMap((i) => [0, 1].map(() => sendDueEmails(i.db.sql, i.transport, settings, now))))
    const sent = results.reduce((a, r) => a + r.sent, 0)
    expect(results.every((r) => r.failed === 0 && r.retried === 0)).toBe(true)
    expect(sent).toBe(N)

    const ids = smtp.received.map((m) => m.header('Message-ID'))
    expect(ids).toHaveLength(N)
    expect(new Set(ids).size).toBe(N)
    expect(new Set(ids)).toEqual(new Set(rows.map((r) => messageIdOf(r.id, PUBLIC_URL))))
    const [state] = await sql<{ open: number; sent: number; retried: number }[]>`
      select count(*) filter (where sent_at is null)::int as open, count(*) filter (where sent_at is not null)::int as sent,
             count(*) filter (where attempts <> 1)::int as retried
        from email_outbox where notification_id = any(${rows.map((r) => r.id)}::uuid[])`
    expect(state).toEqual({ open: 0, sent: N, retried: 0 })
  }, 60_000)
})
