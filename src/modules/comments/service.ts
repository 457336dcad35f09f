import type { Sql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { AppError, forbidden, invalidField, notFound } from '../../http/errors.ts'
import type { CommentAccess, CourseAccess, CurrentUser } from '../../http/guards.ts'
import { newId } from '../../lib/ids.ts'
import { sanitizeRichText } from '../../lib/richtext.ts'
import { excerpt } from '../announcements/plain-text.ts'
import { reserveRate } from '../accounts/queries.ts'
import { announceCounts } from '../notifications/bus.ts'
import type { Channel } from '../notifications/channel.ts'
import { notify, type Recipients } from '../notifications/notify.ts'
import { linkOf, type CommentParams } from '../notifications/types.ts'
import type { CommentListQuery, CreateCommentBody, UpdateCommentBody } from './model.ts'
import * as q from './queries.ts'

export type { Thread } from './queries.ts'

/** Its author may edit a comment this long after writing it. */
export const EDIT_WINDOW_MS = 15 * 60_000
/** Comments written per user and minute, across every instance (rate_limits, sql/032). */
export const COMMENTS_PER_MINUTE = 30

/** The one row → API mapping for comments. */
const toComment = (r: q.CommentRow) => ({
  id: r.id,
  content: r.content,
  author: { id: r.author_id, username: r.author_username, displayName: r.author_display_name, role: r.author_role },
  createdAt: iso(r.created_at)!,
  editedAt: iso(r.edited_at),
  hidden: r.hidden,
})
export type Comment = ReturnType<typeof toComment>

const commentNotFound = () => notFound('COMMENT_NOT_FOUND', 'This comment does not exist.')
const commentsOff = () => new AppError('COMMENTS_OFF', "The course's teacher has turned class comments off for students.")

/** Sanitises on write; content that is nothing but removed markup is refused, not stored empty. */
function cleanContent(html: string) {
  const clean = sanitizeRichText(html)
  if (!clean) throw invalidField('content', 'has no allowed content left after removing unsafe HTML')
  return clean
}

/** What a thread hangs under, checked against the caller: its title for notifications. */
interface Subject {
  title: string
}

/**
 * The thread exists in this course and the caller may use it: an unknown announcement or task
 * (or one of another course, or a task a student cannot see) → 404; a student in another
 * student's private thread → 403; a teacher in the private thread of someone who is not (or no
 * longer) a student of the course → 404, whoever asks.
 */
async function subjectOf(sql: Sql, course: CourseAccess, user: CurrentUser, t: q.Thread): Promise<Subject> {
  if (t.kind === 'ANNOUNCEMENT') {
    const a = await q.findAnnouncement(sql, course.id, t.announcementId)
    // A draft or scheduled announcement does not exist for students yet, nor does its thread.
    if (!a || (course.as === 'STUDENT' && a.publish_state !== 'PUBLISHED')) throw notFound('ANNOUNCEMENT_NOT_FOUND', 'This announcement does not exist in this course.')
    return { title: a.title }
  }
  const task = await q.findTask(sql, course.id, t.taskId)
  if (!task || (course.as === 'STUDENT' && task.publish_state !== 'PUBLISHED')) {
    throw notFound('TASK_NOT_FOUND', 'This learning task does not exist in this course.')
  }
  if (t.kind === 'PRIVATE') {
    if (t.studentId === user.id) return { title: task.title }
    // Someone who is not (or no longer) a student of the course has no thread here, whoever asks.
    if (!(await q.isStudentOf(sql, course.id, t.studentId))) throw notFound('NOT_FOUND', 'This account is not a student of this course.')
    if (course.as === 'STUDENT') throw forbidden('This private thread belongs to another student.')
  }
  return { title: task.title }
}

async function reserveOr429(sql: Sql, userId: string, now: Date) {
  const [row] = await reserveRate(sql, [{ key: `comments:${userId}`, limit: COMMENTS_PER_MINUTE, windowSeconds: 60 }], now)
  if (row?.allowed) return
  const retryAfter = Math.max(1, Math.ceil((row!.started_at.getTime() + row!.window_seconds * 1000 - now.getTime()) / 1000))
  throw new AppError('TOO_MANY_REQUESTS', `At most ${COMMENTS_PER_MINUTE} comments a minute. Try again in a moment.`, { retryAfterSeconds: retryAfter }, { 'retry-after': String(retryAfter) })
}

export async function list(sql: Sql, course: CourseAccess, user: CurrentUser, t: q.Thread, query: CommentListQuery) {
  await subjectOf(sql, course, user, t)
  const after = query.after === undefined ? null : decodeCursor(query.after)
  const rows = await q.listThread(sql, t, after, query.pageSize + 1, { id: user.id, seeHidden: course.as === 'TEACHER' })
  const items = rows.slice(0, query.pageSize).map(toComment)
  const last = rows.length > query.pageSize ? rows[query.pageSize - 1]! : null
  return { items, nextCursor: last ? encodeCursor(last.created_at, last.id) : null }
}

export interface Delivery {
  now: Date
  channels: readonly Channel[]
}

/**
 * Writes a comment and its notifications in one transaction: COMMENT_REPLY to the thread's
 * writers and earlier commenters (class threads), PRIVATE_COMMENT to the student or to the
 * course's teachers (a private thread) — through notify, so the inbox, the live stream and the
 * channels (e-mail per preference) all follow.
 */
export async function post(sql: Sql, course: CourseAccess, user: CurrentUser, t: q.Thread, body: CreateCommentBody, d: Delivery): Promise<Comment> {
  const subject = await subjectOf(sql, course, user, t)
  if (t.kind !== 'PRIVATE' && course.as === 'STUDENT' && !(await q.studentCommentsOn(sql, course.id))) throw commentsOff()
  const content = cleanContent(body.content)
  await reserveOr429(sql, user.id, d.now)
  const id = newId()
  await sql.begin(async (tx) => {
    await q.insertComment(tx, { id, thread: t, authorId: user.id, content, now: d.now })
    let recipients: Recipients
    if (t.kind === 'PRIVATE') recipients = course.as === 'STUDENT' ? { courseTeachers: course.id } : [t.studentId]
    else recipients = await q.replyRecipients(tx, t, user.id)
    const common: Omit<CommentParams, 'kind'> = {
      commentId: id,
      courseId: course.id,
      courseTitle: course.title,
      on: t.kind === 'ANNOUNCEMENT' ? 'ANNOUNCEMENT' : 'TASK',
      targetId: t.kind === 'ANNOUNCEMENT' ? t.announcementId : t.taskId,
      targetTitle: subject.title,
      ...(t.kind === 'PRIVATE' ? { studentId: t.studentId } : {}),
      author: user.displayName,
      excerpt: excerpt(content),
    }
    // A private thread's teachers open the student's work in the grading view, everyone else the task or announcement.
    const n =
      t.kind === 'PRIVATE'
        ? { kind: 'PRIVATE_COMMENT' as const, ...common }
        : { kind: 'COMMENT_REPLY' as const, ...common }
    const actionPath = n.kind === 'PRIVATE_COMMENT' ? linkOf(n, { toTeachers: !Array.isArray(recipients) }) : linkOf(n)
    await notify(tx, recipients, { params: n, actionPath }, d)
  })
  const row = await q.findComment(sql, id)
  return toComment(row!)
}

/**
 * `content`: its author, within EDIT_WINDOW_MS of writing it; `hidden`: the course's teachers,
 * class comments only. `c` is what the comment guard resolved (src/http/guards.ts).
 */
export async function update(sql: Sql, c: CommentAccess, user: CurrentUser, body: UpdateCommentBody, now: Date): Promise<Comment> {
  const { id, course } = c
  if (body.hidden !== undefined) {
    if (course.as !== 'TEACHER') throw forbidden("Only the course's teachers can hide comments.")
    if (c.studentId) throw invalidField('hidden', 'private comments cannot be hidden')
  }
  let content: string | undefined
  if (body.content !== undefined) {
    if (c.authorId !== user.id) throw forbidden('Only its author can edit a comment.')
    if (now.getTime() - c.createdAt.getTime() > EDIT_WINDOW_MS) {
      throw new AppError('COMMENT_EDIT_CLOSED', 'A comment can be edited only within 15 minutes of writing it.')
    }
    if (!c.studentId && course.as === 'STUDENT' && !(await q.studentCommentsOn(sql, course.id))) throw commentsOff()
    content = cleanContent(body.content)
  }
  await sql.begin(async (tx) => {
    if (content !== undefined) {
      await q.updateContent(tx, id, content, now)
      await q.rewriteNotifications(tx, id, excerpt(content))
    }
    if (body.hidden !== undefined) await q.setHidden(tx, id, body.hidden)
    // Hiding takes it out of the students' inboxes too (showing it again does not re-notify).
    if (body.hidden === true && !c.hidden) await announceCounts(tx, await q.retractHiddenNotifications(tx, id, course.id, c.authorId))
  })
  return toComment((await q.findComment(sql, id))!)
}

/**
 * Its author may delete a comment, the course's teachers any class comment (the comment guard
 * checked who). Its notifications are retracted.
 */
export async function remove(sql: Sql, c: CommentAccess) {
  const { id } = c
  await sql.begin(async (tx) => {
    await q.deleteComment(tx, id)
    await announceCounts(tx, await q.retractNotifications(tx, id))
  })
}

/** A cursor names the last comment of a page: base64url of its time and id. */
function encodeCursor(at: Date, id: string) {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url')
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

function decodeCursor(cursor: string) {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|')
  const when = new Date(at ?? '')
  if (!id || !UUID.test(id) || Number.isNaN(when.getTime())) throw invalidField('after', 'is not a cursor from this list')
  return { at: when, id }
}
