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
  publish_state: 'DRAFT' | 'SCHEDULED' | 'PUBLISHED'
  publish_at: Date | null
  published_at: Date | null
}

export interface Publication {
  state: 'DRAFT' | 'SCHEDULED' | 'PUBLISHED'
  publishAt: Date | null
}

export async function insertAnnouncement(
  sql: Db,
  a: { id: string; courseId: string; authorId: string; title: string; content: string; now: Date } & Publication,
) {
  const publishedAt = a.state === 'PUBLISHED' ? a.now : null
  await sql`
    insert into announcements (id, course_id, author_id, title, content, created_at, updated_at, publish_state, publish_at, published_at)
    values (${a.id}, ${a.courseId}, ${a.authorId}, ${a.title}, ${a.content}, ${a.now}, ${a.now}, ${a.state}, ${a.publishAt}, ${publishedAt})`
}

/** The row locked for an edit (its publication decides what the edit may do). */
export async function lockAnnouncement(sql: Db, courseId: string, id: string) {
  const [row] = await sql<{ publish_state: Publication['state']; publish_at: Date | null }[]>`
    select publish_state, publish_at from announcements where id = ${id} and course_id = ${courseId} for no key update`
  return row ?? null
}

/**
 * Sets the publication of an unpublished announcement; PUBLISHED stamps published_at. False when
 * it was published meanwhile (by the publisher job): it is published once.
 */
export async function setPublication(sql: Db, id: string, p: Publication, now: Date) {
  const res = await sql`
    update announcements
       set publish_state = ${p.state}, publish_at = ${p.publishAt},
           published_at = case when ${p.state} = 'PUBLISHED' then ${now}::timestamptz end, updated_at = ${now}
     where id = ${id} and publish_state <> 'PUBLISHED'`
  return res.count === 1
}

/** Scheduled announcements whose time has come, claimed (SKIP LOCKED) and published; archived courses wait. */
export async function publishDueAnnouncements(sql: Db, now: Date, limit: number) {
  return sql<{ id: string; course_id: string; title: string; content: string }[]>`
    update announcements a
       set publish_state = 'PUBLISHED', publish_at = null, published_at = ${now}
      from (select x.id from announcements x join courses c on c.id = x.course_id and not c.archived
             where x.publish_state = 'SCHEDULED' and x.publish_at <= ${now}
             order by x.publish_at, x.id
             limit ${limit}
               for update of x skip locked) due
     where a.id = due.id
    returning a.id, a.course_id, a.title, a.content`
}

export async function findAnnouncement(sql: Db, courseId: string, id: string) {
  const [row] = await sql<AnnouncementRow[]>`
    select a.id, a.course_id, a.title, a.content, a.author_id, u.display_name as author_display_name,
           a.created_at, a.updated_at, a.publish_state, a.publish_at, a.published_at
      from announcements a
      join users u on u.id = a.author_id
     where a.id = ${id} and a.course_id = ${courseId}`
  return row ?? null
}

/** Every announcement for the course's teachers, newest first; the id breaks ties of one millisecond. */
export async function listAnnouncements(sql: Db, courseId: string, limit: number, offset: number) {
  return sql<AnnouncementRow[]>`
    select a.id, a.course_id, a.title, a.content, a.author_id, u.display_name as author_display_name,
           a.created_at, a.updated_at, a.publish_state, a.publish_at, a.published_at
      from announcements a
      join users u on u.id = a.author_id
     where a.course_id = ${courseId}
     order by a.created_at desc, a.id desc
     limit ${limit} offset ${offset}`
}

/** The published ones (what students see), newest publication first. */
export async function listPublishedAnnouncements(sql: Db, courseId: string, limit: number, offset: number) {
  return sql<AnnouncementRow[]>`
    select a.id, a.course_id, a.title, a.content, a.author_id, u.display_name as author_display_name,
           a.created_at, a.updated_at, a.publish_state, a.publish_at, a.published_at
      from announcements a
      join users u on u.id = a.author_id
     where a.course_id = ${courseId} and a.publish_state = 'PUBLISHED'
     order by a.published_at desc, a.id desc
     limit ${limit} offset ${offset}`
}

/**
 * The course's announcement count, kept by triggers (sql/025): one keyed read, whatever the
 * history. `published` leaves out the drafts and scheduled ones (few, sql/053's partial index).
 */
export async function countAnnouncements(sql: Db, courseId: string, published = false) {
  const [row] = await sql<{ total: number }[]>`
    select coalesce((select announcements from course_counters where course_id = ${courseId}), 0)
         - ${published ? sql`(select count(*)::int from announcements where course_id = ${courseId} and publish_state <> 'PUBLISHED')` : sql`0`} as total`
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
