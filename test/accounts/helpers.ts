import { decodeQp, type Received, type TestSmtp } from '../email/smtp.ts'

/** The link token in a mail's plain-text part (the first link to `page`). */
export function tokenIn(mail: Received, page: '/verify-email' | '/reset-password') {
  const m = new RegExp(`${page}\\?token=([A-Za-z0-9_-]+)`).exec(decodeQp(mail.raw))
  if (!m) throw new Error(`no ${page} link in the mail:\n${decodeQp(mail.raw)}`)
  return m[1]!
}

export const mailsTo = (smtp: TestSmtp, address: string) => smtp.received.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase()))

/** A client address no other test (or earlier run against the same database) uses, for the per-address limits. */
export const freshIp = () => `fd00::${Date.now().toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`
