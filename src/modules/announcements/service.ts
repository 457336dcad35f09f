import type { Sql, TxSql } from '../../db/connect.ts'
import type { CourseAccess } from '../../http/guards.ts'
import { iso } from '../../http/envelope.ts'
import { conflict, invalidField, notFound } from '../../http/errors.ts'
import type { CurrentUser } from '../../http/guards.ts'
import { offsetOf, page, type PageQuery } from '../../http/pagination.ts'
import { newId } from '../../lib/ids.ts'
import { sanitizeRichText } from '../../lib/richtext.ts'
import type { Channel } from '../notifications/channel.ts'
import { notify } from '../notifications/notify.ts'
import { announceCounts } from '../notifications/bus.ts'
import type { Fanout } from '../../lib/fanout.ts'
import { studentCount } from '../../db/student-range.ts'
import { announcementNotice, queueAnnouncement } from './fanout.ts'
import type { AnnouncementState, CreateAnnouncementBody, UpdateAnnouncementBody } from './model.ts'
import { excerpt } from './plain-text.ts'
import * as q from './queries.ts'

/** The one row → API mapping for announcements. */
const toAnnouncement = (r: q.AnnouncementRow) => ({
  id: r.id,
  courseId: r.course_id,
  title: r.title,
  content: r.content,
  author: { id: r.author_id, displayName: r.author_display_name },
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
  state: r.publish_state,
  publishAt: iso(r.publish_at),
  publishedAt: iso(r.published_at),
})

/**
 * What a create (`before` null) or an edit asks for → the announcement's publication (issue
 * 56.4, as tasks do it in learning/publishing.ts). Left out: a new announcement is PUBLISHED at
 * once (clients that never heard of drafts are unchanged), an edit keeps the state; `publishAt`
 * alone schedules. A published announcement stays published: its students were notified.
 */
function publication(before: q.Publication | null, state: AnnouncementState | undefined, publishAt: string | null | undefined, now: Date): q.Publication {
  const wanted: AnnouncementState = state ?? (publishAt ? 'SCHEDULED' : (before?.state ?? 'PUBLISHED'))
  if (before?.state === 'PUBLISHED' && wanted !== 'PUBLISHED') {
    throw conflict('CONFLICT', 'This announcement is published and its students were notified; it cannot become a draft or be scheduled again. Delete it to retract it.')
  }
  if (wanted !== 'SCHEDULED') {
    if (publishAt) throw invalidField('publishAt', 'only SCHEDULED announcements have a publish time')
    return { state: wanted, publishAt: null }
  }
  if (publishAt) {
    const at = new Date(publishAt)
    if (at.getTime() <= now.getTime()) throw invalidField('publishAt', 'must be in the future')
    return { state: wanted, publishAt: at }
  }
  // An edit of a scheduled announcement keeps its time.
  if (publishAt === undefined && before?.state === 'SCHEDULED' && before.publishAt) return { state: wanted, publishAt: before.publishAt }
  throw invalidField('publishAt', 'is required to schedule an announcement')
}

/**
 * Notifies every student of the course, in the caller's transaction; in a course of more than
 * FANOUT_INLINE_STUDENTS students the notifications are queued instead and written right after
 * the commit by the background fan-out (src/fanout.ts). True when queued (kick the fan-out).
 */
async function notifyStudents(
  tx: TxSql,
  a: { id: string; courseId: string; title: string; content: string },
  now: Date,
  channels: readonly Channel[],
  fanout?: Fanout,
): Promise<boolean> {
  const students = fanout ? await studentCount(tx, a.courseId) : 0
  if (fanout && students > fanout.inlineStudents) {
    await queueAnnouncement(tx, a.id, { courseId: a.courseId, students }, fanout.parts)
    return true
  }
  await notify(tx, { courseStudents: a.courseId }, announcementNotice(a), { now, channels })
  return false
}

const announcementNotFound = () => notFound('ANNOUNCEMENT_NOT_FOUND', 'This announcement does not exist in this course.')

/** Sanitises on write; content that is nothing but removed markup is refused, not stored empty. */
function cleanContent(html: string) {
  const clean = sanitizeRichText(html)
  if (!clean) throw invalidField('content', 'has no allowed content left after removing unsafe HTML')
  return clean
}

async function load(sql: Sql, courseId: string, id: string) {
  const row = await q.findAnnouncement(sql, courseId, id)
  if (!row) throw announcementNotFound()
  return toAnnouncement(row)
}

/**
 * Publishes an announcement and notifies every student of the course in the same transaction
 * (one INSERT … SELECT), so either both happen or neither. In a course of more than
 * FANOUT_INLINE_STUDENTS students the notifications are queued with the announcement instead
 * and written right after the commit by the background fan-out (src/fanout.ts).
 */
export async function publish(
  sql: Sql,
  courseId: string,
  author: CurrentUser,
  body: CreateAnnouncementBody,
  now: Date,
  channels: readonly Channel[],
  fanout?: Fanout,
) {
  const id = newId()
  const content = cleanContent(body.content)
  const pub = publication(null, body.state, body.publishAt, now)
  const queued = await sql.begin(async (tx) => {
    await q.insertAnnouncement(tx, { id, courseId, authorId: author.id, title: body.title, content, now, ...pub })
    // A draft or scheduled announcement notifies nobody yet: publishing it does, once.
    return pub.state === 'PUBLISHED' ? notifyStudents(tx, { id, courseId, title: body.title, content }, now, channels, fanout) : false
  })
  if (queued) fanout!.kick()
  return load(sql, courseId, id)
}

/** The course's teachers see drafts and scheduled announcements too; students only published ones. */
export async function list(sql: Sql, course: CourseAccess, query: PageQuery) {
  const teacher = course.as === 'TEACHER'
  const [rows, total] = await Promise.all([
    (teacher ? q.listAnnouncements : q.listPublishedAnnouncements)(sql, course.id, query.pageSize, offsetOf(query)),
    q.countAnnouncements(sql, course.id, !teacher),
  ])
  return page(rows.map(toAnnouncement), total, query)
}

/**
 * Edits do not notify again; the notifications already delivered show the new title and excerpt.
 * `state` / `publishAt` publish a draft now (its students are notified then, once), schedule it,
 * move its time, or take a scheduled one back to draft.
 */
export async function update(
  sql: Sql,
  courseId: string,
  id: string,
  body: UpdateAnnouncementBody,
  now: Date,
  channels: readonly Channel[] = [],
  fanout?: Fanout,
) {
  const patch = { title: body.title, content: body.content === undefined ? undefined : cleanContent(body.content) }
  const queued = await sql.begin(async (tx) => {
    const before = await q.lockAnnouncement(tx, courseId, id)
    if (!before) throw announcementNotFound()
    const wasPublished = before.publish_state === 'PUBLISHED'
    const pub = body.state !== undefined || body.publishAt !== undefined ? publication({ state: before.publish_state, publishAt: before.publish_at }, body.state, body.publishAt, now) : null
    if (patch.title !== undefined || patch.content !== undefined) await q.updateAnnouncement(tx, courseId, id, patch, now)
    const row = (await q.findAnnouncement(tx, courseId, id))!
    if (wasPublished) {
      await q.rewriteNotifications(tx, id, row.title, excerpt(row.content))
      return false
    }
    if (!pub) return false
    await q.setPublication(tx, id, pub, now)
    return pub.state === 'PUBLISHED' ? notifyStudents(tx, { id, courseId, title: row.title, content: row.content }, now, channels, fanout) : false
  })
  if (queued) fanout!.kick()
  return load(sql, courseId, id)
}

/**
 * The publisher job's share for announcements: every scheduled announcement whose time has come
 * is published and its students notified, once (the row is claimed with SKIP LOCKED and moved to
 * PUBLISHED in the transaction that notifies). Announcements of an archived course wait until it
 * is unarchived. Driven by `now`, so tests call it directly.
 */
export async function publishScheduledAnnouncements(sql: Sql, now: Date, channels: readonly Channel[], fanout?: Fanout, batch = 50) {
  let published = 0
  let queued = false
  for (;;) {
    const n = await sql.begin(async (tx) => {
      const rows = await q.publishDueAnnouncements(tx, now, batch)
      for (const r of rows) {
        if (await notifyStudents(tx, { id: r.id, courseId: r.course_id, title: r.title, content: r.content }, now, channels, fanout)) queued = true
      }
      return rows.length
    })
    published += n
    if (n < batch) break
  }
  if (queued) fanout!.kick()
  return { published }
}

/**
 * Deleting retracts the announcement's notifications from every inbox (and their unsent
 * e-mails, by cascade); the counters follow by their triggers and the live streams are told.
 */
export async function remove(sql: Sql, courseId: string, id: string) {
  await sql.begin(async (tx) => {
    if (!(await q.deleteAnnouncement(tx, courseId, id))) throw announcementNotFound()
    await announceCounts(tx, await q.retractNotifications(tx, id))
  })
}
