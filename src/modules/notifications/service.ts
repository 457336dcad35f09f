import type { Sql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import { offsetOf } from '../../http/pagination.ts'
import { resolveLocale, type Locale } from '../../i18n/locale.ts'
import { announceCounts } from './bus.ts'
import type { InboxQuery, Notification } from './model.ts'
import * as q from './queries.ts'
import { renderNotification } from './texts.ts'

/** Who reads, for rendering: their language and the time. */
export interface Reader {
  locale: Locale
  now: Date
}

/** The one row → API mapping of notifications, rendered for its reader. */
export const toNotification = (r: q.NotificationRow, reader: Reader): Notification => ({
  id: r.id,
  type: r.notification_type,
  ...renderNotification({ title: r.title, content: r.content }, r.params, reader.locale, reader.now),
  actionPath: r.action_path,
  readAt: iso(r.read_at),
  deliveredAt: iso(r.delivered_at)!,
  params: (r.params ?? null) as Record<string, unknown> | null,
})

export async function inbox(sql: Sql, userId: string, query: InboxQuery, acceptLanguage: string | undefined, now: Date) {
  const [rows, counts] = await Promise.all([
    q.listNotifications(sql, userId, query.unreadOnly, query.pageSize, offsetOf(query)),
    q.countersOf(sql, userId),
  ])
  const reader = { locale: resolveLocale(counts.locale, acceptLanguage), now }
  return {
    items: rows.map((r) => toNotification(r, reader)),
    unreadCount: counts.unread,
    total: query.unreadOnly ? counts.unread : counts.total,
    page: query.page,
    pageSize: query.pageSize,
  }
}

export async function readerOf(sql: Sql, userId: string, acceptLanguage: string | undefined, now: Date): Promise<Reader> {
  const counts = await q.countersOf(sql, userId)
  return { locale: resolveLocale(counts.locale, acceptLanguage), now }
}

export async function readOne(sql: Sql, userId: string, id: string, acceptLanguage: string | undefined, now: Date) {
  const row = await q.markRead(sql, userId, id, now)
  if (!row) throw notFound('NOTIFICATION_NOT_FOUND', 'There is no such notification in your inbox.')
  await announceCounts(sql, userId)
  return toNotification(row, await readerOf(sql, userId, acceptLanguage, now))
}

export async function readAll(sql: Sql, userId: string, now: Date) {
  const updated = await q.markAllRead(sql, userId, now)
  if (updated > 0) await announceCounts(sql, userId)
  return { updated }
}
