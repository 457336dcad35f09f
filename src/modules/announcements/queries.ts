import type { Sql, TxSql } from '../../db/connect.ts'

type Db = Sql | TxSql

export interface AnnouncementRow {
  id: string
  course_id: string
  title: string
  content: string
  author_id: string
  author_display_name: string
  created_at: Date
  updated_at: Date
}

export async function insertAnnouncement(
  sql: Db,
  a: { id: string; courseId: string; authorId: string; title: string; content: string; now: Date },
) {
  await sql`
    insert into announcements (id, course_id, author_id, title, content, created_at, updated_at)
    values (${a.id}, ${a.courseId}, ${a.authorId}, ${a.title}, ${a.content}, ${a.now}, ${a.now})`
}

export async function findAnnouncement(sql: Db, courseId: string, id: string) {
  const [row] = await sql<AnnouncementRow[]>`
    select a.id, a.course_id, a.title, a.content, a.author_id, u.display_name as author_display_name,
           a.created_at, a.updated_at
      from announcements a
      join users u on u.id = a.author_id
     where a.id = ${id} and a.course_id = ${courseId}`
  return row ?? null
}

/** Newest first; the id breaks ties between announcements of the same millisecond. */
export async function listAnnouncements(sql: Db, courseId: string, limit: number, offset: number) {
  return sql<AnnouncementRow[]>`
    select a.id, a.course_id, a.title, a.content, a.author_id, u.display_name as author_display_name,
           a.created_at, a.updated_at
      from announcements a
      join users u on u.id = a.author_id
     where a.course_id = ${courseId}
     order by a.created_at desc, a.id desc
     limit ${limit} offset ${offset}`
}

/** The course's announcement count, kept by triggers (sql/025): one keyed read, whatever the history. */
export async function countAnnouncements(sql: Db, courseId: string) {
  const [row] = await sql<{ total: number }[]>`select announcements as total from course_counters where course_id = ${courseId}`
  return row?.total ?? 0
}

/** False when no announcement with this id belongs to the course. */
export async function updateAnnouncement(
  sql: Db,
  courseId: string,
  id: string,
  patch: { title?: string; content?: string },
  now: Date,
) {
  const res = await sql`
    update announcements
       set title = coalesce(${patch.title ?? null}::text, title),
           content = coalesce(${patch.content ?? null}::text, content),
           updated_at = ${now}
     where id = ${id} and course_id = ${courseId}`
  return res.count === 1
}

export async function deleteAnnouncement(sql: Db, courseId: string, id: string) {
  const res = await sql`delete from announcements where id = ${id} and course_id = ${courseId}`
  return res.count === 1
}

/** Rewrites the notifications of an announcement after an edit (title, excerpt, and their params). */
export async function rewriteNotifications(sql: Db, announcementId: string, title: string, excerpt: string) {
  await sql`
    update notifications
       set title = ${title}, content = ${excerpt},
           params = params || jsonb_build_object('announcementTitle', ${title}::text, 'excerpt', ${excerpt}::text)
     where notification_type = 'ANNOUNCEMENT' and params ->> 'announcementId' = ${announcementId}
       and (title is distinct from ${title} or content is distinct from ${excerpt})`
}

/** Retracts the notifications of a deleted announcement; returns whose inboxes changed. */
export async function retractNotifications(sql: Db, announcementId: string) {
  const rows = await sql<{ user_id: string }[]>`
    delete from notifications
     where notification_type = 'ANNOUNCEMENT' and params ->> 'announcementId' = ${announcementId}
    returning user_id`
  return [...new Set(rows.map((r) => r.user_id))]
}
