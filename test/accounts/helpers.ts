import { afterAll, beforeAll } from 'bun:test'
import type { Config } from '../../src/config.ts'
import type { Sql } from '../../src/db/connect.ts'
import type { Clock } from '../../src/lib/clock.ts'
import { sendDueEmails, smtpTransport, type Transport } from '../../src/modules/email/sender.ts'
import { decodeQp, TestSmtp, type Received } from '../email/smtp.ts'
import { testApp, type TestContext } from '../support/harness.ts'

/** The link token in a mail's plain-text part (the first link to `page`). */
export function tokenIn(mail: Received, page: '/verify-email' | '/reset-password') {
  const m = new RegExp(`${page}\\?token=([A-Za-z0-9_-]+)`).exec(decodeQp(mail.raw))
  if (!m) throw new Error(`no ${page} link in the mail:\n${decodeQp(mail.raw)}`)
  return m[1]!
}

export const mailsTo = (smtp: TestSmtp, address: string) => smtp.received.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase()))

/** A client address no other test (or earlier run against the same database) uses, for the per-address limits. */
export const freshIp = () => `fd00::${Date.now().toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`

export const MAIL_PUBLIC_URL = 'https://learn.example.test'

/** The app of one test file with e-mail through a real SMTP server, and `send()` for the outbox. */
export interface MailApp {
  ctx: TestContext
  sql: Sql
  smtp: TestSmtp
  /** Runs the outbox once at the clock's time, after the account work in flight has settled. */
  send: () => ReturnType<typeof sendDueEmails>
}

/**
 * Starts the SMTP server and the app before the file's tests (this hook runs before the file's
 * own, registered later) and stops them after; the fields are filled once the hook has run.
 */
export function mailApp(clock: Clock, config: Partial<Config> = {}): MailApp {
  let transport: Transport | undefined
  const m = {
    send: async () => {
      await m.ctx.deps.background.settled()
      const secret = m.ctx.deps.config.jwtSecret
      return sendDueEmails(m.sql, transport!, { publicUrl: MAIL_PUBLIC_URL, mailFrom: 'Course Learning <no-reply@learn.example.test>', secret }, clock.now())
    },
  } as MailApp
  beforeAll(async () => {
    m.smtp = await TestSmtp.start()
    transport = smtpTransport(m.smtp.url)
    m.ctx = await testApp({ clock, config: { smtpUrl: m.smtp.url, publicUrl: MAIL_PUBLIC_URL, trustProxy: true, ...config } })
    m.sql = m.ctx.deps.sql
  }, 30_000)
  afterAll(async () => {
    transport?.close?.()
    await m.smtp?.stop()
  })
  return m
}
