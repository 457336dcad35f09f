import type { Sql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { invalidField, notFound } from '../../http/errors.ts'
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
import type { CreateAnnouncementBody, UpdateAnnouncementBody } from './model.ts'
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
})

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
  const queued = await sql.begin(async (tx) => {
    await q.insertAnnouncement(tx, { id, courseId, authorId: author.id, title: body.title, content, now })
    const students = fanout ? await studentCount(tx, courseId) : 0
    if (fanout && students > fanout.inlineStudents) {
      await queueAnnouncement(tx, id, { courseId, students }, fanout.parts)
      return true
    }
    await notify(tx, { courseStudents: courseId }, announcementNotice({ id, courseId, title: body.title, content }), { now, channels })
    return false
  })
  if (queued) fanout!.kick()
  return load(sql, courseId, id)
}

export async function list(sql: Sql, courseId: string, query: PageQuery) {
  const [rows, total] = await Promise.all([
    q.listAnnouncements(sql, courseId, query.pageSize, offsetOf(query)),
    q.countAnnouncements(sql, courseId),
  ])
  return page(rows.map(toAnnouncement), total, query)
}

/** Edits do not notify again; the notifications already delivered show the new title and excerpt. */
export async function update(sql: Sql, courseId: string, id: string, body: UpdateAnnouncementBody, now: Date) {
  const patch = { title: body.title, content: body.content === undefined ? undefined : cleanContent(body.content) }
  await sql.begin(async (tx) => {
    if (!(await q.updateAnnouncement(tx, courseId, id, patch, now))) throw announcementNotFound()
    const row = await q.findAnnouncement(tx, courseId, id)
    if (row) await q.rewriteNotifications(tx, id, row.title, excerpt(row.content))
  })
  return load(sql, courseId, id)
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
