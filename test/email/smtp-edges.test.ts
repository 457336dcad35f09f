import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { createLogger } from '../../src/lib/log.ts'
import { LEASE_MS, sendDueEmails, smtpTransport, type Transport } from '../../src/modules/email/sender.ts'
import { signUp, testApp, type TestContext } from '../support/harness.ts'
import { TestSmtp } from './smtp.ts'

/*
 * Issue 49, e-mail: a temporary SMTP failure (451, a refused connection) wrote no log line; and a
 * server that took longer than the socket timeout to answer the end of a mail's data, then accepted
 * it, got the mail twice (the sender gave up, and its retry sent it again). Now the temporary
 * failure is a warn line with the server's reply, and the end of data is awaited for half the
 * lease: the late 250 marks the row sent, and nothing is sent again. A real SMTP server
 * (smtp-server) with a short socket timeout, so the test takes a second.
 */
let ctx: TestContext
let sql: Sql
let smtp: TestSmtp
const transports: Transport[] = []
beforeAll(async () => {
  ctx = await testApp()
  sql = ctx.deps.sql
  smtp = await TestSmtp.start()
})
afterAll(async () => {
  for (const t of transports) t.close?.()
  await smtp.stop()
})

const settings = () => ({ publicUrl: 'https://learn.example.test', mailFrom: 'Course Learning <no-reply@learn.example.test>', secret: ctx.deps.config.jwtSecret })

/** One queued notification mail to a verified student, due at `at` (long before other tests' rows). */
async function queueMail(at: Date) {
  const student = await signUp(ctx.api)
  await sql`update users set email_verified = true where id = ${student.id}`
  const id = crypto.randomUUID()
  await sql`insert into notifications (id, user_id, notification_type, title, content, delivered_at) values (${id}, ${student.id}, 'ANNOUNCEMENT', 'Edge', 'Body', ${at})`
  await sql`insert into email_outbox (id, notification_id, user_id, created_at, next_attempt_at) values (${id}, ${id}, ${student.id}, ${at}, ${at})`
  return id
}

describe('SMTP edges', () => {
  test('a temporary 451 is logged (warn, with the reply) and retried later', async () => {
    const lines: string[] = []
    const log = createLogger('info', (l) => lines.push(l))
    const t0 = new Date('2002-03-01T08:00:00.000Z')
    const id = await queueMail(t0)
    smtp.tempFail = 451
    const transport = smtpTransport(smtp.url, 1, { socketTimeoutMs: 2_000 })
    transports.push(transport)
    try {
      const result = await sendDueEmails(sql, transport, settings(), t0, log)
      expect(result).toMatchObject({ sent: 0, retried: 1, failed: 0 })
    } finally {
      smtp.tempFail = null
    }
    const warn = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'e-mail not sent; will retry')
    expect(warn).toMatchObject({ level: 'warn', outboxId: id, responseCode: 451, attempts: 1 })
    expect(warn.reply).toContain('451')
    expect(warn.stack).toBeUndefined()
    const [row] = await sql<{ sent_at: Date | null; next_attempt_at: Date }[]>`select sent_at, next_attempt_at from email_outbox where id = ${id}`
    expect(row!.sent_at).toBeNull()
    expect(row!.next_attempt_at.getTime()).toBeGreaterThan(t0.getTime())
    // The retry goes out once the server is well again.
    const later = await sendDueEmails(sql, transport, settings(), new Date(row!.next_attempt_at.getTime() + 1))
    expect(later.sent).toBeGreaterThanOrEqual(1)
  }, 20_000)

  test('a server that stalls past the socket timeout and then accepts receives the mail once', async () => {
    const t0 = new Date('2002-04-01T08:00:00.000Z')
    const id = await queueMail(t0)
    const before = smtp.received.length
    smtp.stallDataMs = 1_000
    const transport = smtpTransport(smtp.url, 1, { socketTimeoutMs: 300 })
    transports.push(transport)
    try {
      const first = await sendDueEmails(sql, transport, settings(), t0)
      expect(first).toMatchObject({ sent: 1, retried: 0, failed: 0 })
    } finally {
      smtp.stallDataMs = 0
    }
    // A later run (past any retry time) finds nothing to send again.
    const again = await sendDueEmails(sql, transport, settings(), new Date(t0.getTime() + 3 * 60 * 60_000))
    expect(again.sent).toBe(0)
    const mine = smtp.received.slice(before).filter((m) => m.header('Message-ID')?.includes(id))
    expect(mine).toHaveLength(1)
    const [row] = await sql<{ sent_at: Date | null; attempts: number }[]>`select sent_at, attempts from email_outbox where id = ${id}`
    expect(row!.sent_at).not.toBeNull()
    expect(row!.attempts).toBe(1)
  }, 20_000)

  test('no answer to the end of data at all: the row keeps the attempt, its retry waits for the lease and keeps the Message-ID', async () => {
    const t0 = new Date('2002-05-01T08:00:00.000Z')
    const id = await queueMail(t0)
    const before = smtp.received.length
    smtp.stallDataMs = 1_000
    // The end of data waits 300 ms here (60 s in the service): the server answers too late.
    const transport = smtpTransport(smtp.url, 1, { socketTimeoutMs: 200, replyTimeoutMs: 300 })
    transports.push(transport)
    try {
      expect(await sendDueEmails(sql, transport, settings(), t0)).toMatchObject({ sent: 0, retried: 1 })
    } finally {
      smtp.stallDataMs = 0
    }
    const [row] = await sql<{ sent_at: Date | null; attempts: number; last_error: string; next_attempt_at: Date }[]>`
      select sent_at, attempts, last_error, next_attempt_at from email_outbox where id = ${id}`
    expect(row!.sent_at).toBeNull()
    expect(row!.attempts).toBe(1)
    expect(row!.last_error).toContain('the server may have it')
    expect(row!.next_attempt_at.getTime()).toBeGreaterThanOrEqual(t0.getTime() + LEASE_MS)
    // After the ordinary backoff (30 s) but inside the lease: not sent again yet.
    expect((await sendDueEmails(sql, transport, settings(), new Date(t0.getTime() + 90_000))).sent).toBe(0)
    // Past the lease: sent again, with the same Message-ID (the server had the first copy).
    expect((await sendDueEmails(sql, transport, settings(), new Date(t0.getTime() + LEASE_MS + 1_000))).sent).toBe(1)
    const mine = smtp.received.slice(before).filter((m) => m.header('Message-ID')?.includes(id))
    expect(mine).toHaveLength(2)
    expect(new Set(mine.map((m) => m.header('Message-ID'))).size).toBe(1)
  }, 20_000)
})
