import type { Locale } from '../../i18n/locale.ts'
import { renderText } from '../../i18n/messages.ts'
import { isLate } from '../../lib/due.ts'
import type { NotificationType } from './types.ts'

/*
 * Notification texts, rendered when they are read (the inbox, the stream, an e-mail) in the
 * reader's language, from the structure stored with the notification (`params`); the words are
 * the catalogue's (src/i18n/messages, section `notification`). No clock time is fixed in a
 * text: deadlines are relative ("due in 3 days", "due in 24 hours", "due now") and
 * `params.dueAt` (ISO-8601) lets a client show the time in the reader's own zone.
 */

export type TriggerType = 'START' | 'BEFORE_DUE_24H' | 'DUE'

export interface ReminderParams {
  kind: 'HOMEWORK_REMINDER'
  trigger: TriggerType
  courseId: string
  courseTitle: string
  taskId: string
  taskTitle: string
  startAt: string | null
  dueAt: string
}

export interface GradedParams {
  kind: 'SUBMISSION_GRADED'
  /** TASK: a learning task's answer sheet; EXPERIMENT: an experiment report. */
  subject: 'TASK' | 'EXPERIMENT'
  courseId: string
  courseTitle: string | null
  title: string
  score: number
  fileName?: string | null
}

export interface AnnouncementParams {
  kind: 'ANNOUNCEMENT'
  /** Set since sql/036: an edit rewrites, a delete retracts the announcement's notifications. */
  announcementId?: string
  courseId: string
  courseTitle: string | null
  announcementTitle: string
  excerpt: string
}

/** A student handed something in: told to the course's teachers (issue 29.10). */
export interface SubmittedParams {
  kind: 'SUBMISSION_RECEIVED'
  /** TASK: a learning task's answer sheet; EXPERIMENT: an experiment report. */
  subject: 'TASK' | 'EXPERIMENT'
  courseId: string
  courseTitle: string | null
  taskId: string
  title: string
  submissionId: string
  /** The student's display name when they handed it in. */
  student: string
  late: boolean
  /**
   * A digest (issue 54): hand-ins of this task since the teacher last read it, counted up on
   * one unread notification (`submissionId`, `student` and `late` are then the newest one's).
   */
  count?: number
}

/** A comment (issue 53): COMMENT_REPLY in a class thread, PRIVATE_COMMENT in a student's private thread. */
export interface CommentParams {
  kind: 'COMMENT_REPLY' | 'PRIVATE_COMMENT'
  /** Retracted with the comment when it is deleted. */
  commentId: string
  courseId: string
  courseTitle: string | null
  /** What the thread hangs under. */
  on: 'ANNOUNCEMENT' | 'TASK'
  /** The announcement's or task's id and title. */
  targetId: string
  targetTitle: string
  /** The private thread's student. */
  studentId?: string
  /** The author's display name when they wrote it. */
  author: string
  excerpt: string
}

export type NotificationParams = ReminderParams | GradedParams | AnnouncementParams | SubmittedParams | CommentParams

// Every type has its params (a type without them fails to compile here).
type _EveryTypeHasParams = [NotificationType] extends [NotificationParams['kind']] ? true : never
export const _everyTypeHasParams: _EveryTypeHasParams = true

export interface RenderedText {
  title: string
  content: string
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** "3 days", "5 hours", "1 minute" / "3 天"...: the rounded distance to a future instant. */
export function relativeSpan(ms: number, locale: Locale): string {
  const [n, unit] = ms >= 2 * DAY ? [Math.round(ms / DAY), 'Day'] : ms >= 2 * HOUR ? [Math.round(ms / HOUR), 'Hour'] : [Math.max(1, Math.round(ms / MINUTE)), 'Minute']
  return renderText(locale, `span${unit}${n === 1 ? '' : 's'}` as 'spanDays', { n })
}

function reminder(p: ReminderParams, locale: Locale, now: Date): RenderedText {
  const v = { task: p.taskTitle, course: p.courseTitle }
  switch (p.trigger) {
    case 'START': {
      // The rule of src/lib/due.ts: at exactly dueAt the homework is still open (due now), after it late.
      const left = new Date(p.dueAt).getTime() - now.getTime()
      const content =
        left > 0
          ? renderText(locale, 'reminderStartContent', { ...v, span: relativeSpan(left, locale) })
          : isLate(now, new Date(p.dueAt))
            ? renderText(locale, 'reminderStartPassedContent', v)
            : renderText(locale, 'reminderStartDueNowContent', v)
      return { title: renderText(locale, 'reminderStartTitle', v), content }
    }
    case 'BEFORE_DUE_24H':
      return { title: renderText(locale, 'reminderBeforeDueTitle', v), content: renderText(locale, 'reminderBeforeDueContent', v) }
    case 'DUE':
      return { title: renderText(locale, 'reminderDueTitle', v), content: renderText(locale, 'reminderDueContent', v) }
  }
}

function graded(p: GradedParams, locale: Locale): RenderedText {
  const v = { title: p.title, score: p.score, file: p.fileName ?? '', where: p.courseTitle ? renderText(locale, 'inCourse', { course: p.courseTitle }) : '' }
  return p.subject === 'EXPERIMENT'
    ? { title: renderText(locale, 'gradedExperimentTitle', v), content: renderText(locale, 'gradedExperimentContent', v) }
    : { title: renderText(locale, 'gradedTaskTitle', v), content: renderText(locale, 'gradedTaskContent', v) }
}

function submitted(p: SubmittedParams, locale: Locale): RenderedText {
  const v = { title: p.title, student: p.student, course: p.courseTitle ?? '', count: p.count ?? 1 }
  if ((p.count ?? 1) > 1) return { title: renderText(locale, 'submittedDigestTitle', v), content: renderText(locale, 'submittedDigestContent', v) }
  return { title: renderText(locale, 'submittedTitle', v), content: renderText(locale, p.late ? 'submittedLateContent' : 'submittedContent', v) }
}

/** The comment's own words are not translated; the frame around them is. */
function comment(p: CommentParams, locale: Locale): RenderedText {
  const v = { author: p.author, title: p.targetTitle }
  return { title: renderText(locale, p.kind === 'PRIVATE_COMMENT' ? 'privateCommentTitle' : 'commentReplyTitle', v), content: p.excerpt }
}

/** Announcements are the teacher's own words: the title and excerpt are not translated. */
function announcement(p: AnnouncementParams): RenderedText {
  return { title: p.announcementTitle, content: p.excerpt }
}

/**
 * The text of a notification for a reader. Rows without params (written before sql/011) keep
 * their stored text.
 */
export function renderNotification(
  stored: RenderedText,
  params: NotificationParams | null,
  locale: Locale,
  now: Date,
): RenderedText {
  if (!params || typeof params !== 'object') return stored
  switch (params.kind) {
    case 'HOMEWORK_REMINDER':
      return reminder(params, locale, now)
    case 'SUBMISSION_GRADED':
      return graded(params, locale)
    case 'ANNOUNCEMENT':
      return announcement(params)
    case 'SUBMISSION_RECEIVED':
      return submitted(params, locale)
    case 'COMMENT_REPLY':
    case 'PRIVATE_COMMENT':
      return comment(params, locale)
    default:
      return stored
  }
}

/** The subject line of a notification's e-mail: it names the course. */
export function mailSubject(text: RenderedText, params: NotificationParams | null, locale: Locale): string {
  const course = params && 'courseTitle' in params ? params.courseTitle : null
  return course ? renderText(locale, 'mailSubject', { course, title: text.title }) : text.title
}
