import type { Sql, TxSql } from '../../db/connect.ts'
import { queueEmails } from './queries.ts'

/*
 * Whether this process writes outbox rows: only when SMTP_URL is set (set once when the app is
 * built). Unset, nothing is queued and nothing else changes.
 */
let enabled = false
export function setEmailEnabled(on: boolean) {
  enabled = on
}
export const emailEnabled = () => enabled

export async function queueForNotifications(tx: Sql | TxSql, ids: string[]) {
  if (!enabled || ids.length === 0) return 0
  return queueEmails(tx, ids)
}
