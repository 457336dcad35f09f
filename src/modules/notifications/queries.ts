import type { Sql, TxSql } from '../../db/connect.ts'
import { newId } from '../../lib/ids.ts'
import { countNotifications as countCreated } from '../../metrics.ts'

export type NotificationType = 'HOMEWORK_REMINDER' | 'SUBMISSION_GRADED' | 'ANNOUNCEMENT'

export interface NewNotification {
  userId: string
  type: NotificationType
  title: string
  content: string
  actionPath: string | null
}

/** Writes many notifications in one statement (fan-out is set-based, never a loop of inserts). */
export async function insertNotifications(sql: Sql | TxSql, rows: NewNotification[], now: Date) {
  if (rows.length === 0) return 0
  const values = rows.map((r) => ({
    id: newId(),
    user_id: r.userId,
    notification_type: r.type,
    title: r.title,
    content: r.content,
    action_path: r.actionPath,
    delivered_at: now,
  }))
  const res = await sql`
    insert into notifications ${sql(values, 'id', 'user_id', 'notification_type', 'title', 'content', 'action_path', 'delivered_at')}`
  for (const type of new Set(rows.map((r) => r.type))) countCreated(type, rows.filter((r) => r.type === type).length)
  return res.count
}

/** Notifies every student of a course in one INSERT … SELECT (announcements). */
export async function notifyCourseStudents(
  sql: Sql | TxSql,
  courseId: string,
  n: Omit<NewNotification, 'userId'>,
  now: Date,
) {
  // Ids generated per row in SQL: gen_uuid_v7() (sql/004) keeps them time-ordered like newId().
  const res = await sql`
    insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at)
    select gen_uuid_v7(), m.user_id, ${n.type}, ${n.title}, ${n.content}, ${n.actionPath}, ${now}
      from course_members m
     where m.course_id = ${courseId}`
  countCreated(n.type, res.count)
  return res.count
}

export interface NotificationRow {
  id: string
  notification_type: NotificationType
  title: string
  content: string
  action_path: string | null
  read_at: Date | null
  delivered_at: Date
}

/** One page of a user's inbox, newest first. */
export async function listNotifications(sql: Sql, userId: string, unreadOnly: boolean, limit: number, offset: number) {
  return sql<NotificationRow[]>`
    select id, notification_type, title, content, action_path, read_at, delivered_at
      from notifications
     where user_id = ${userId} and (not ${unreadOnly} or read_at is null)
     order by delivered_at desc, id desc
     limit ${limit} offset ${offset}`
}

export async function countNotifications(sql: Sql, userId: string) {
  const [row] = await sql<{ total: number; unread: number }[]>`
    select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread
      from notifications
     where user_id = ${userId}`
  return row!
}

/** Marks one read; repeating it keeps the first read_at. Null when it is not this user's. */
export async function markRead(sql: Sql, userId: string, id: string, now: Date) {
  const [row] = await sql<NotificationRow[]>`
    update notifications
       set read_at = coalesce(read_at, ${now})
     where id = ${id} and user_id = ${userId}
    returning id, notification_type, title, content, action_path, read_at, delivered_at`
  return row ?? null
}

export async function markAllRead(sql: Sql, userId: string, now: Date) {
  const res = await sql`update notifications set read_at = ${now} where user_id = ${userId} and read_at is null`
  return res.count
}
