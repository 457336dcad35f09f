import { Readable } from 'node:stream'
import type { ConnectionOptions } from 'node:tls'
import nodemailer from 'nodemailer'
import { toMime, type MailMessage } from './mime.ts'

/**
 * The SMTP client: nodemailer's pooled transport (kept-open connections, STARTTLS, AUTH), sending
 * the message toMime built (one string, no per-mail composer). The outbox batching stays in
 * modules/email/sender.ts: a batch's mails are handed over at once and go out in parallel over
 * the pooled connections. Until issue 50 this was a client of our own that pipelined (reaching
 * 2,000 mails/s into a local sink); no school's relay accepts that rate (SES starts at 14 mails/s),
 * and a protocol client is a security surface, so the well-kept one is used (docs/configuration.md).
 */
export interface Transport {
  sendMail(message: MailMessage): Promise<unknown>
  close?(): void
}

export interface SmtpError extends Error {
  /** The server's reply code; absent when the connection failed (worth a retry). */
  responseCode?: number
  response?: string
  /** The whole mail was handed to the connection and its reply never came: the server may have it. */
  afterData?: boolean
}

export interface SmtpOptions {
  /** Connections at most (MAIL_CONNECTIONS). */
  connections?: number
  /** Mails per connection before it is closed and a fresh one opened. */
  maxMessages?: number
  /** Connecting and the greeting may take this long (SMTP_TIMEOUT_SECONDS). */
  timeoutMs?: number
  /**
   * No reply for this long while one is awaited ends the attempt. It covers the reply to the end
   * of a mail's data, which RFC 5321 4.5.3.2.6 lets take minutes: giving up earlier is what sends
   * a mail twice (the server that accepted it late has it, and the retry sends it again).
   */
  socketTimeoutMs?: number
  /** SMTP_REQUIRE_TLS: an smtp:// server must upgrade with STARTTLS, or nothing is sent. */
  requireTLS?: boolean
  /** TLS options (a private CA for instance). */
  tls?: ConnectionOptions
}

function refused(message: string, responseCode: number): SmtpError {
  return Object.assign(new Error(message) as SmtpError, { responseCode })
}

/** A pool of `connections` SMTP connections to `url` (smtp:// upgrades with STARTTLS when offered, smtps:// is TLS). */
export function smtpTransport(url: string, options: SmtpOptions = {}): Transport {
  const u = new URL(url)
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error(`SMTP_URL must be smtp:// or smtps://, not ${u.protocol}`)
  const timeoutMs = options.timeoutMs ?? 10_000
  const transporter = nodemailer.createTransport({
    pool: true,
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(u.port) || (u.protocol === 'smtps:' ? 465 : 25),
    secure: u.protocol === 'smtps:',
    requireTLS: options.requireTLS ?? false,
    auth: u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : undefined,
    maxConnections: options.connections ?? 8,
    maxMessages: options.maxMessages ?? 1000,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: options.socketTimeoutMs ?? 60_000,
    tls: options.tls,
    logger: false,
  })
  let closed = false
  return {
    sendMail(message: MailMessage) {
      if (closed) return Promise.reject(new Error('SMTP transport closed'))
      const { from, to, raw } = toMime(message)
      // An address that would break the command line it is written into is never sent (for good).
      if (/[\s<>]/.test(from + to) || !to) return Promise.reject(refused(`invalid address: ${JSON.stringify(to)}`, 553))
      // Whether the whole message was read into the connection: a timeout or a cut connection after
      // that may have left the mail with the server (the sender then waits for the lease to retry).
      let handedOver = false
      const body = Readable.from([Buffer.from(raw, 'utf8')], { objectMode: false })
      body.once('end', () => (handedOver = true))
      return transporter.sendMail({ envelope: { from, to }, raw: body }).catch((e: SmtpError & { code?: string; command?: string }) => {
        if (handedOver && !e.responseCode && (e.code === 'ETIMEDOUT' || e.code === 'ECONNECTION')) {
          e.afterData = true
          e.message = `${e.message} (after the whole mail was sent: the server may have it)`
        }
        throw e
      })
    },
    close() {
      closed = true
      transporter.close()
    },
  }
}
