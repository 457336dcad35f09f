import nodemailer from 'nodemailer'
import type { Sql } from '../../db/connect.ts'
import type { Logger } from '../../lib/log.ts'
import { countEmail } from '../../metrics.ts'
import { composeAccountMail } from './account-mail.ts'
import { composeMail, type MailSettings } from './mail.ts'
import { claimDue, markFailed, markRetry, markSent, type OutboxRow } from './queries.ts'

export const BATCH = 20
export const LEASE_MS = 2 * 60_000
export const GIVE_UP_AFTER_MS = 24 * 60 * 60_000
const FIRST_RETRY_MS = 30_000
const MAX_RETRY_MS = 60 * 60_000

/** 30 s, 1 min, 2 min, … capped at 1 h, after the n-th failed attempt. */
export const backoffMs = (attempts: number) => Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1))

export interface MailMessage {
  from: string
  to: string
  subject: string
  text: string
  html: string
  messageId: string
  headers: Record<string, string>
}

export interface Transport {
  sendMail(message: MailMessage): Promise<unknown>
}

/**
 * The mail of a claimed row, or why it is not sent. A notification goes only to a verified
 * address: checked again here, as the row may have been queued before the address changed.
 */
function compose(item: OutboxRow, settings: MailSettings, now: Date): { mail: MailMessage } | { skip: string } {
  if (item.kind === 'NOTIFICATION') {
    if (!item.email_verified) return { skip: 'the address is not verified' }
    return { mail: composeMail(item, settings, now) }
  }
  return composeAccountMail(item, settings)
}

export function smtpTransport(url: string): Transport {
  // No pool: a run sends a handful of mails; connection and greeting timeouts keep a dead
  // server from holding a run for minutes.
  return nodemailer.createTransport(url + (url.includes('?') ? '&' : '?') + 'connectionTimeout=10000&greetingTimeout=10000&socketTimeout=30000')
}

/** A 5xx reply is permanent (the server refuses this mail); anything else is worth a retry. */
export function isPermanent(e: unknown) {
  const code = (e as { responseCode?: number })?.responseCode
  return typeof code === 'number' && code >= 500 && code < 600
}

export interface SendResult {
  sent: number
  retried: number
  failed: number
}

/**
 * Sends the due outbox rows until none is due: claim a batch (SKIP LOCKED + lease), send each,
 * record the outcome. Safe on every instance at once: a row is claimed by one sender only.
 */
export async function sendDueEmails(sql: Sql, transport: Transport, settings: MailSettings, now: Date, log?: Logger): Promise<SendResult> {
  const result: SendResult = { sent: 0, retried: 0, failed: 0 }
  for (let round = 0; round < 50; round++) {
    const batch = await claimDue(sql, now, BATCH, LEASE_MS)
    for (const item of batch) {
      const composed = compose(item, settings, now)
      if ('skip' in composed) {
        await markFailed(sql, item.id, now, `not sent: ${composed.skip}`)
        result.failed++
        countEmail('failed')
        continue
      }
      try {
        await transport.sendMail(composed.mail)
        await markSent(sql, item.id, now)
        result.sent++
        countEmail('sent')
      } catch (e) {
        const error = String((e as Error)?.message ?? e)
        const next = new Date(now.getTime() + backoffMs(item.attempts))
        if (isPermanent(e) || next.getTime() - item.created_at.getTime() > GIVE_UP_AFTER_MS) {
          await markFailed(sql, item.id, now, error)
          result.failed++
          countEmail('failed')
          log?.warn('e-mail given up', { outboxId: item.id, kind: item.kind, attempts: item.attempts, error })
        } else {
          await markRetry(sql, item.id, next, error)
          result.retried++
          countEmail('retry')
        }
      }
    }
    if (batch.length < BATCH) break
  }
  return result
}
