import type { Sql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import { offsetOf } from '../../http/pagination.ts'
import type { InboxQuery, Notification } from './model.ts'
import * as q from './queries.ts'

/** The one row → API mapping of notifications. */
export const toNotification = (r: q.NotificationRow): Notification => ({
  id: r.id,
  type: r.notification_type,
  title: r.title,
  content: r.content,
  actionPath: r.action_path,
  readAt: iso(r.read_at),
  deliveredAt: iso(r.delivered_at)!,
})

export async function inbox(sql: Sql, userId: string, query: InboxQuery) {
  const [rows, counts] = await Promise.all([
    q.listNotifications(sql, userId, query.unreadOnly, query.pageSize, offsetOf(query)),
    q.countNotifications(sql, userId),
  ])
  return {
    items: rows.map(toNotification),
    unreadCount: counts.unread,
    total: query.unreadOnly ? counts.unread : counts.total,
    page: query.page,
    pageSize: query.pageSize,
  }
}

export async function readOne(sql: Sql, userId: string, id: string, now: Date) {
  const row = await q.markRead(sql, userId, id, now)
  if (!row) throw notFound('NOTIFICATION_NOT_FOUND', 'There is no such notification in your inbox.')
  return toNotification(row)
}

export async function readAll(sql: Sql, userId: string, now: Date) {
  return { updated: await q.markAllRead(sql, userId, now) }
}
