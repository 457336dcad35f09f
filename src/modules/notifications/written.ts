import type { TxSql } from '../../db/connect.ts'
import { queueForNotifications } from '../email/outbox.ts'
import { announceNew } from './bus.ts'

/**
 * Called in the transaction that wrote notifications (a request, the reminder scan, an
 * announcement), with the written rows: tells every instance's streams (NOTIFY, delivered on
 * commit) and queues their e-mails in the same transaction.
 */
export async function afterNotificationsWritten(tx: TxSql, written: readonly { id: string; user_id: string }[]) {
  if (written.length === 0) return
  await queueForNotifications(tx, written.map((w) => w.id))
  await announceNew(tx, written)
}
