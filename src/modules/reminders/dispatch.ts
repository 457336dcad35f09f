import type { Sql } from '../../db/connect.ts'
import { afterNotificationsWritten } from '../notifications/written.ts'
import { cancelObsolete, claimDue, insertReminderNotifications, markSent } from './queries.ts'

export const DEFAULT_BATCH_SIZE = 200

export interface DispatchResult {
  sent: number
  canceled: number
}

/**
 * Delivers every reminder event due at `now` (scheduled_at <= now, not sent, not canceled),
 * including events that came due while no instance was running.
 *
 * Each batch is one transaction: claim rows with FOR UPDATE SKIP LOCKED, cancel the ones that
 * must not be sent, write the notifications (unique per event), set sent_at. Several
 * dispatchers (threads, instances) can run at once: each row is locked by exactly one of
 * them, and a failure rolls its whole batch back so the next run delivers it.
 * Set-based: four statements per batch, whatever its size.
 */
export async function dispatch(sql: Sql, now: Date, opts: { batchSize?: number } = {}): Promise<DispatchResult> {
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE
  const total: DispatchResult = { sent: 0, canceled: 0 }
  for (;;) {
    const batch = await sql.begin(async (tx) => {
      const ids = await claimDue(tx, now, batchSize)
      if (ids.length === 0) return { claimed: 0, sent: 0, canceled: 0 }
      const canceled = await cancelObsolete(tx, ids)
      const written = await insertReminderNotifications(tx, ids, now)
      const sent = await markSent(tx, ids, now)
      await afterNotificationsWritten(tx, written)
      return { claimed: ids.length, sent, canceled }
    })
    total.sent += batch.sent
    total.canceled += batch.canceled
    // A short batch means nothing due is left, or the rest is locked by another dispatcher
    // (which delivers it, or rolls back and leaves it to the next run).
    if (batch.claimed < batchSize) return total
  }
}
