import type { Sql, TxSql } from '../../db/connect.ts'
import { nextChunk, partRows, partsOf, type CourseSize } from '../../db/student-range.ts'
import type { Channel } from '../notifications/channel.ts'
import { notify, type NewNotification } from '../notifications/notify.ts'
import { linkOf, type AnnouncementParams } from '../notifications/types.ts'
import { excerpt } from './plain-text.ts'

/** The notification of an announcement (its current title and text). */
export function announcementNotice(a: { id: string; courseId: string; title: string; content: string }): NewNotification {
  const params: AnnouncementParams = { kind: 'ANNOUNCEMENT', announcementId: a.id, courseId: a.courseId, courseTitle: null, announcementTitle: a.title, excerpt: excerpt(a.content) }
  return { actionPath: linkOf(params), params }
}

/** An announcement of a large course: its notifications are written by the background fan-out, in `parts` ranges of the students (sql/050). */
export async function queueAnnouncement(tx: TxSql, announcementId: string, course: CourseSize, parts: number) {
  const ranges = await partsOf(tx, course, parts)
  await tx`
    insert into announcement_fanout (announcement_id, course_id, part, after_user, up_to_user)
    select ${announcementId}, ${course.courseId}, p.part - 1, p.after_user, p.up_to_user
      from ${partRows(tx, ranges)}`
}

/**
 * One chunk of the oldest queued announcement part: notifications (and their e-mail outbox rows
 * and stream signal) for the part's next students, delivered at `now`. The announcement is held
 * FOR SHARE (runners on other parts hold it too) and skipped while an edit holds it, so a chunk
 * never writes a title an edit just replaced (the edit rewrites the notifications already
 * written); deleting it removes the queue rows.
 */
export async function announcementChunk(sql: Sql, size: number, now: Date, channels: readonly Channel[]): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [job] = await tx<{ announcement_id: string; part: number; course_id: string; after_user: string | null; up_to_user: string | null; title: string; content: string }[]>`
      select j.announcement_id, j.part, j.course_id, j.after_user, j.up_to_user, a.title, a.content
        from announcement_fanout j join announcements a on a.id = j.announcement_id
       order by j.queued_at, j.announcement_id, j.part
       limit 1
         for update of j skip locked
         for share of a skip locked`
    if (!job) return false
    const chunk = await nextChunk(tx, job.course_id, job.after_user, job.up_to_user, size)
    const range = { after: job.after_user, upTo: chunk.upTo }
    const notice = announcementNotice({ id: job.announcement_id, courseId: job.course_id, title: job.title, content: job.content })
    await notify(tx, { courseStudents: job.course_id, range }, notice, { now, channels })
    if (chunk.last) await tx`delete from announcement_fanout where announcement_id = ${job.announcement_id} and part = ${job.part}`
    else await tx`update announcement_fanout set after_user = ${chunk.upTo} where announcement_id = ${job.announcement_id} and part = ${job.part}`
    return true
  })
}
