import type { Sql } from '../../db/connect.ts'

const DAY_MS = 86_400_000
/** Rows deleted per statement: short transactions, short row locks. */
export const RETENTION_BATCH = 5000
/** Statements per run (the next run continues): a run ends, so shutdown never waits long. */
const ROUNDS = 200

/**
 * NOTIFICATION_RETENTION_DAYS: deletes read notifications delivered more than `days` before `now`,
 * oldest first, in batches (sql/037's index finds them). Unread ones are kept whatever their age.
 * Safe on several instances at once: a batch takes its rows FOR UPDATE SKIP LOCKED, so two runs
 * never wait on or delete the same rows, and a row marked unread meanwhile is re-checked and kept.
 * The counters of sql/012 follow through the delete trigger, in the same transaction; the
 * e-mail outbox rows of deleted notifications go by the delete trigger of sql/048 that replaced their foreign key (src/db/dropped-foreign-keys.ts).
 */
export async function purgeReadNotifications(sql: Sql, now: Date, days: number, batch = RETENTION_BATCH): Promise<number> {
  if (days <= 0) return 0
  const cutoff = new Date(now.getTime() - days * DAY_MS)
  let deleted = 0
  for (let round = 0; round < ROUNDS; round++) {
    const res = await sql`
      delete from notifications
       where id in (select id from notifications
                     where read_at is not null and delivered_at < ${cutoff}
                     order by delivered_at
                     limit ${batch}
                       for update skip locked)`
    deleted += res.count
    if (res.count < batch) break
  }
  return deleted
}
