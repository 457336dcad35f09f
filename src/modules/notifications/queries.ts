import type { Sql, TxSql } from '../../db/connect.ts'
import type { NotificationParams } from './texts.ts'

import type { NotificationType } from './types.ts'
export type { NotificationType }

export interface NotificationRow {
  id: string
  notification_type: NotificationType
  title: string
  content: string
  action_path: string | null
  read_at: Date | null
  delivered_at: Date
  params: NotificationParams | null
}

const COLUMNS = 'id, notification_type, title, content, action_path, read_at, delivered_at, params'

/**
 * One page of a user's inbox, newest first: an index range scan of notifications_user_idx
 * (user_id, delivered_at desc, id desc), or its unread twin (sql/012), that stops after
 * LIMIT + OFFSET rows. Not async: the statement is returned unsent, so it can also be
 * embedded as a fragment (bench/probe-history.ts explains it at 10 million rows).
 */
export function listNotifications(sql: Sql, userId: string, unreadOnly: boolean, limit: number, offset: number) {
  // Two statements, not `(not $unreadOnly or read_at is null)`: each matches its index exactly.
  return unreadOnly
    ? sql<NotificationRow[]>`
        select ${sql.unsafe(COLUMNS)}
          from notifications
         where user_id = ${userId} and read_at is null
         order by delivered_at desc, id desc
         limit ${limit} offset ${offset}`
    : sql<NotificationRow[]>`
        select ${sql.unsafe(COLUMNS)}
          from notifications
         where user_id = ${userId}
         order by delivered_at desc, id desc
         limit ${limit} offset ${offset}`
}

export interface Counters {
  total: number
  unread: number
  unread_reminders: number
  locale: string | null
}

/**
 * The user's counters (sql/012, kept by triggers) and language in one keyed read: no counting
 * of the inbox per request. A user who never had a notification has no counter row (zeros).
 */
export async function countersOf(sql: Sql | TxSql, userId: string) {
  const [row] = await sql<Counters[]>`
    select coalesce(c.total, 0) as total, coalesce(c.unread, 0) as unread,
           coalesce(c.unread_reminders, 0) as unread_reminders, u.locale
      from users u
      left join notification_counters c on c.user_id = u.id
     where u.id = ${userId}`
  return row ?? { total: 0, unread: 0, unread_reminders: 0, locale: null }
}

/** Notifications by id, for one user (the stream's fan-out). */
export async function notificationsByIds(sql: Sql, userId: string, ids: string[]) {
  return sql<NotificationRow[]>`
    select ${sql.unsafe(COLUMNS)}
      from notifications
     where id = any(${ids}::uuid[]) and user_id = ${userId}
     order by delivered_at, id`
}

/** Notifications newer than `afterId` (UUIDv7, time-ordered), oldest first: the stream's replay. */
export async function notificationsAfter(sql: Sql, userId: string, afterId: string, limit: number) {
  return sql<NotificationRow[]>`
    select ${sql.unsafe(COLUMNS)}
      from notifications n
     where n.user_id = ${userId}
       and (n.delivered_at, n.id) > (select a.delivered_at, a.id from notifications a where a.id = ${afterId} and a.user_id = ${userId})
     order by n.delivered_at, n.id
     limit ${limit}`
}

/** Marks one read; repeating it keeps the first read_at. Null when it is not this user's. */
export async function markRead(sql: Sql, userId: string, id: string, now: Date) {
  const [row] = await sql<NotificationRow[]>`
    update notifications
       set read_at = coalesce(read_at, ${now})
     where id = ${id} and user_id = ${userId}
    returning ${sql.unsafe(COLUMNS)}`
  return row ?? null
}

/**
 * Marks every unread notification of user $1 read at $2. The newest `unread` entries of the
 * unread index are exactly the unread rows (the counter is kept in the same transactions as the
 * rows and read in the same snapshot), so the scan stops there: entries left behind by earlier
 * reads (dead row versions that only VACUUM removes) are never visited, and the cost does not
 * grow with the inbox's history. Rows that arrive after the statement's snapshot stay unread.
 * (No counter row means no notifications; LIMIT NULL would then scan them all, still correct.)
 * A constant, so tests can EXPLAIN exactly this statement.
 */
export const MARK_ALL_READ = `
  update notifications set read_at = $2
   where id in (select n.id
                  from notifications n
                 where n.user_id = $1 and n.read_at is null
                 order by n.delivered_at desc, n.id desc
                 limit (select c.unread from notification_counters c where c.user_id = $1))
     and read_at is null`

export async function markAllRead(sql: Sql, userId: string, now: Date) {
  // Prepared like every tagged-template statement (named, described once): an unprepared
  // statement with parameters goes through postgres.js's describe-first round trip each time.
  const res = await sql.unsafe(MARK_ALL_READ, [userId, now], { prepare: true })
  return res.count
}
