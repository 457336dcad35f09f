import type { Sql } from '../../db/connect.ts'
import type { Logger } from '../../lib/log.ts'
import { countEmail } from '../../metrics.ts'
import { composeAccountMail } from './account-mail.ts'
import { composeMail, type MailSettings } from './mail.ts'
import type { MailMessage } from '../../infra/mime.ts'
import { smtpTransport as pooledTransport, type SmtpOptions, type Transport } from '../../infra/smtp.ts'
import { claimDue, markFailed, markRetry, markSent, type OutboxRow } from './queries.ts'

export type { MailMessage, Transport }

/** Rows claimed at once; their mails go out in parallel over the pooled connections. */
export const BATCH = 200
/** Claims per run (then the next tick continues): a run ends, so shutdown never waits long. */
const ROUNDS = 50
export const LEASE_MS = 2 * 60_000
export const GIVE_UP_AFTER_MS = 24 * 60 * 60_000
const FIRST_RETRY_MS = 30_000
const MAX_RETRY_MS = 60 * 60_000

/** 30 s, 1 min, 2 min, … capped at 1 h, after the n-th failed attempt. */
export const backoffMs = (attempts: number) => Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1))

/**
 * The mail of a claimed row, or why it is not sent. A notification goes only to a verified
 * address: checked again here, as the row may have been queued before the address changed.
 */
function compose(item: OutboxRow, settings: MailSettings, now: Date): { mail: MailMessage } | { skip: string } {
  if (item.kind === 'NOTIFICATION') {
    if (!item.email_verified) return { skip: 'the address is not verified' }
    return { mail: { ...composeMail(item, settings, now), date: now } }
  }
  const c = composeAccountMail(item, settings)
  return 'skip' in c ? c : { mail: { ...c.mail, date: now } }
}

/**
 * A pool of `connections` SMTP connections kept open between mails (nodemailer's pooled transport,
 * src/infra/smtp.ts). Connecting and the greeting wait `socketTimeoutMs` (SMTP_TIMEOUT_SECONDS), so a
 * dead server does not hold a run for minutes; a reply, the one to the end of a mail's data among
 * them, is awaited at least half the lease: a late 250 still marks the row sent before any other
 * sender may claim it again (LEASE_MS), so a slow server does not get the mail twice.
 */
export function smtpTransport(
  url: string,
  connections = 8,
  options: { socketTimeoutMs?: number; replyTimeoutMs?: number; requireTLS?: boolean; tls?: SmtpOptions['tls'] } = {},
): Transport {
  const timeoutMs = options.socketTimeoutMs ?? 30_000
  return pooledTransport(url, {
    connections,
    timeoutMs,
    socketTimeoutMs: options.replyTimeoutMs ?? Math.max(timeoutMs, LEASE_MS / 2),
    requireTLS: options.requireTLS,
    tls: options.tls,
  })
}

/**
 * A 5xx reply to this mail (its sender, recipient or data) is permanent: the server refuses this
 * mail. Anything else is worth a retry, a refused login or STARTTLS among them (they say nothing
 * about the mail: the configuration or the server is fixed and the mail goes out later).
 */
export function isPermanent(e: unknown) {
  const { responseCode: code, command } = (e ?? {}) as { responseCode?: number; command?: string }
  if (command !== undefined && command !== 'MAIL FROM' && command !== 'RCPT TO' && command !== 'DATA') return false
  return typeof code === 'number' && code >= 500 && code < 600
}

/** Milliseconds since it was made (monotonic). */
const stopwatch = () => {
  const t0 = performance.now()
  return () => performance.now() - t0
}

export interface SendResult {
  sent: number
  retried: number
  failed: number
}

/**
 * Sends the due outbox rows until none is due (each claim at `now` advanced by the run's own
 * duration so far; outcomes are recorded at `now`): claim a batch (SKIP LOCKED + lease), send its mails
 * in parallel (the transport's pool bounds the connections and pipelines), record the outcomes
 * (one statement each for the sent, the retried and the given-up rows of the batch). Safe on every instance at once: a row is claimed by one sender only, and a mail
 * is marked sent only after the server accepted it; the Message-ID stays the notification's.
 */
export async function sendDueEmails(
  sql: Sql,
  transport: Transport,
  settings: MailSettings,
  now: Date,
  log?: Logger,
  elapsedMs: () => number = stopwatch(),
): Promise<SendResult> {
  const result: SendResult = { sent: 0, retried: 0, failed: 0 }
  for (let round = 0; round < ROUNDS; round++) {
    // A claim's lease counts from the moment it is made, not from the start of the run: a long
    // run (a backlog, a slow server) would otherwise claim rows already free for others again.
    const claimedAt = new Date(now.getTime() + elapsedMs())
    const batch = await claimDue(sql, claimedAt, BATCH, LEASE_MS)
    const composed = batch.map((item) => compose(item, settings, now))
    const outcomes = await Promise.all(
      composed.map((c) =>
        'skip' in c
          ? null
          : transport.sendMail(c.mail).then(
              () => null,
              (e: unknown) => e,
            ),
      ),
    )
    const sent = batch.filter((_, i) => outcomes[i] === null && !('skip' in composed[i]!)).map((item) => item.id)
    if (sent.length) await markSent(sql, sent, now)
    result.sent += sent.length
    countEmail('sent', sent.length)
    // The failures of the batch, recorded in one statement each (no await per mail).
    const retry: { id: string; next: Date; error: string }[] = []
    const failed: { id: string; error: string }[] = []
    for (let i = 0; i < batch.length; i++) {
      const item = batch[i]!
      const c = composed[i]!
      if ('skip' in c) {
        failed.push({ id: item.id, error: `not sent: ${c.skip}` })
        continue
      }
      const e = outcomes[i]
      if (e === null) continue
      const error = String((e as Error)?.message ?? e)
      // Sent whole, answer lost: not again before the lease of this attempt would have run out
      // (the row keeps the attempt and its error; the Message-ID stays the same).
      const afterData = (e as { afterData?: boolean })?.afterData === true
      const next = new Date(Math.max(now.getTime() + backoffMs(item.attempts), afterData ? claimedAt.getTime() + LEASE_MS : 0))
      if (isPermanent(e) || next.getTime() - item.created_at.getTime() > GIVE_UP_AFTER_MS) {
        failed.push({ id: item.id, error })
        log?.warn('e-mail given up', { outboxId: item.id, kind: item.kind, attempts: item.attempts, error })
      } else {
        retry.push({ id: item.id, next, error })
        // A temporary failure (a 4xx reply, a refused or cut connection): said, with the server's reply.
        log?.warn('e-mail not sent; will retry', {
          outboxId: item.id,
          kind: item.kind,
          attempts: item.attempts,
          responseCode: (e as { responseCode?: number })?.responseCode,
          reply: (e as { response?: string })?.response,
          error,
          retryAt: next.toISOString(),
        })
      }
    }
    await markFailed(sql, failed, now)
    await markRetry(sql, retry)
    result.failed += failed.length
    result.retried += retry.length
    countEmail('failed', failed.length)
    countEmail('retry', retry.length)
    if (batch.length < BATCH) break
  }
  return result
}
