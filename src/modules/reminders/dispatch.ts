import type { Sql } from '../../db/connect.ts'
import type { Channel } from '../notifications/channel.ts'
import { deliverDue } from './delivery.ts'

/** Events per batch (one transaction, one statement): large enough that per-batch costs vanish. */
export const DEFAULT_BATCH_SIZE = 2000
/** Batches in flight at once on PostgreSQL (each its own connection); the embedded database has one connection. */
export const DEFAULT_WORKERS = 2

export interface DispatchResult {
  sent: number
  canceled: number
}

/**
 * Delivers every reminder event due at `now` (scheduled_at <= now, not sent, not canceled),
 * including events that came due while no instance was running.
 *
 * Each batch is one transaction of two statements: one claims rows with FOR UPDATE SKIP LOCKED,
 * cancels the ones that must not be sent, sets sent_at and writes the notifications (unique per
 * event) with the `channels`' outbox rows (delivery.ts, notifications/notify.ts); the other is
 * the stream announcement (NOTIFY, sent on commit). Several
 * dispatchers (the `workers` of this call, other instances) can run at once: each row is
 * locked by exactly one of them, and a failure rolls its whole batch back so the next run
 * delivers it. After a failure the other workers stop at their next batch; the first error is
 * thrown once they have.
 */
export async function dispatch(
  sql: Sql,
  now: Date,
  opts: { batchSize?: number; workers?: number; maxConnections?: number; channels?: readonly Channel[] } = {},
): Promise<DispatchResult> {
  const channels = opts.channels ?? []
  const batchSize = opts.batchSize ?? DEFAULT_BATCH_SIZE
  // Never more batches in flight than the database has connections (the embedded one has one).
  const workers = opts.workers ?? Math.min(DEFAULT_WORKERS, opts.maxConnections ?? DEFAULT_WORKERS)
  const total: DispatchResult = { sent: 0, canceled: 0 }
  let failed = false
  const worker = async () => {
    while (!failed) {
      const batch = await sql.begin(async (tx) => {
        const { claimed, canceled } = await deliverDue(tx, now, batchSize, channels)
        return { claimed, sent: claimed - canceled, canceled }
      }).catch((e) => {
        failed = true
        throw e
      })
      total.sent += batch.sent
      total.canceled += batch.canceled
      // A short batch means nothing due is left, or the rest is locked by another dispatcher
      // (which delivers it, or rolls back and leaves it to the next run).
      if (batch.claimed < batchSize) return
    }
  }
  const runs = await Promise.allSettled(Array.from({ length: Math.max(1, workers) }, worker))
  const failure = runs.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  if (failure) throw failure.reason
  return total
}
