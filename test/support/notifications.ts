import type { Sql, TxSql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import type { NotificationParams } from '../../src/modules/notifications/texts.ts'
import type { NotificationType } from '../../src/modules/notifications/types.ts'

/** A notification row as tests write it directly (the service's `NewNotification` is notify.ts's). */
export interface RawNotification {
  userId: string
  type: NotificationType
  /** The English text, kept for readers of the raw row; what readers see is rendered from params. */
  title: string
  content: string
  actionPath: string | null
  /** The structure the text is rendered from (texts.ts). `courseTitle` is filled in from courseId. */
  params?: NotificationParams | null
}

/**
 * Raw rows, for tests and benches (and rows shaped as before sql/011: stored text, no params):
 * no channel, no stream announcement, no metric. The service writes notifications through
 * src/modules/notifications/notify.ts only (its `NewNotification`); these writers moved here from
 * notifications/queries.ts in issue 50. References are checked by statement triggers
 * (src/db/dropped-foreign-keys.ts).
 * Many in one statement; a params object naming a course without its title gets the course's
 * current title.
 */
export async function insertNotifications(sql: Sql | TxSql, rows: RawNotification[], now: Date) {
  if (rows.length === 0) return [] as { id: string; user_id: string }[]
  const values = rows.map((r) => ({
    id: newId(),
    user_id: r.userId,
    type: r.type,
    title: r.title,
    content: r.content,
    action_path: r.actionPath,
    params: r.params ?? null,
  }))
  const inserted = await sql<{ id: string; user_id: string }[]>`
    insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at, params)
    select x.id, x.user_id, x.type, x.title, x.content, x.action_path, ${now},
           case when x.params ? 'courseId' and coalesce(x.params->>'courseTitle', '') = ''
                then x.params || jsonb_build_object('courseTitle', c.title)
                else x.params end
      from jsonb_to_recordset(${sql.json(values as any)}::jsonb)
           as x (id uuid, user_id uuid, type text, title text, content text, action_path text, params jsonb)
      left join courses c on c.id = (x.params->>'courseId')::uuid
    returning id, user_id`
  return inserted
}

/** Raw rows for every student of a course in one INSERT … SELECT (tests; the service uses notify.ts). */
export async function notifyCourseStudents(
  sql: Sql | TxSql,
  courseId: string,
  n: Omit<RawNotification, 'userId'>,
  now: Date,
) {
  // Ids generated per row in SQL: gen_uuid_v7() (sql/004) keeps them time-ordered like newId().
  const inserted = await sql<{ id: string; user_id: string }[]>`
    insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at, params)
    select gen_uuid_v7(), m.user_id, ${n.type}, ${n.title}, ${n.content}, ${n.actionPath}, ${now},
           case when ${n.params ? 1 : 0} = 1 then ${sql.json((n.params ?? {}) as any)}::jsonb || jsonb_build_object('courseTitle', c.title) end
      from course_members m
      join courses c on c.id = m.course_id
     where m.course_id = ${courseId}
    returning id, user_id`
  return inserted
}
