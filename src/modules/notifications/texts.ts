import type { Locale } from '../../i18n/locale.ts'

/*
 * Notification texts, rendered when they are read (the inbox, the stream, an e-mail) in the
 * reader's language, from the structure stored with the notification (`params`). No clock time
 * is fixed in a text: deadlines are relative ("due in 3 days", "due in 24 hours", "due now") and
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

export type NotificationParams = ReminderParams | GradedParams | AnnouncementParams

export interface RenderedText {
  title: string
  content: string
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** "3 days", "5 hours", "1 minute" / "3 天"...: the rounded distance to a future instant. */
export function relativeSpan(ms: number, locale: Locale): string {
  const [n, unit] = ms >= 2 * DAY ? [Math.round(ms / DAY), 'day'] : ms >= 2 * HOUR ? [Math.round(ms / HOUR), 'hour'] : [Math.max(1, Math.round(ms / MINUTE)), 'minute']
  if (locale === 'zh-CN') return `${n} ${{ day: '天', hour: '小时', minute: '分钟' }[unit]}`
  return `${n} ${unit}${n === 1 ? '' : 's'}`
}

function reminder(p: ReminderParams, locale: Locale, now: Date): RenderedText {
  const left = new Date(p.dueAt).getTime() - now.getTime()
  if (locale === 'zh-CN') {
    switch (p.trigger) {
      case 'START':
        return {
          title: `新作业：${p.taskTitle}`,
          content: `课程“${p.courseTitle}”布置了新作业“${p.taskTitle}”，现在可以开始做了。` + (left > 0 ? `距离截止还有 ${relativeSpan(left, locale)}。` : '截止时间已过。'),
        }
      case 'BEFORE_DUE_24H':
        return {
          title: `作业 24 小时后截止：${p.taskTitle}`,
          content: `课程“${p.courseTitle}”的作业“${p.taskTitle}”将在 24 小时后截止，请记得按时提交。`,
        }
      case 'DUE':
        return {
          title: `作业已到截止时间：${p.taskTitle}`,
          content: `课程“${p.courseTitle}”的作业“${p.taskTitle}”已到截止时间，此后提交将记为迟交。`,
        }
    }
  }
  switch (p.trigger) {
    case 'START':
      return {
        title: `New homework: ${p.taskTitle}`,
        content: `"${p.taskTitle}" in ${p.courseTitle} is open. ` + (left > 0 ? `It is due in ${relativeSpan(left, locale)}.` : 'Its deadline has passed.'),
      }
    case 'BEFORE_DUE_24H':
      return {
        title: `Homework due in 24 hours: ${p.taskTitle}`,
        content: `"${p.taskTitle}" in ${p.courseTitle} is due in 24 hours. Remember to submit it in time.`,
      }
    case 'DUE':
      return {
        title: `Homework due now: ${p.taskTitle}`,
        content: `"${p.taskTitle}" in ${p.courseTitle} is due now. Submissions after the due time are marked late.`,
      }
  }
}

function graded(p: GradedParams, locale: Locale): RenderedText {
  const course = p.courseTitle
  if (locale === 'zh-CN') {
    const where = course ? `课程“${course}”中` : ''
    return p.subject === 'EXPERIMENT'
      ? { title: `实验已批改：${p.title}`, content: `你在${where}实验“${p.title}”提交的“${p.fileName ?? ''}”已批改，得分 ${p.score}/100。` }
      : { title: `作业已批改：${p.title}`, content: `你在${where}“${p.title}”的答卷已批改，得分 ${p.score}/100。` }
  }
  const where = course ? ` in ${course}` : ''
  return p.subject === 'EXPERIMENT'
    ? { title: `Experiment graded: ${p.title}`, content: `Your submission "${p.fileName ?? ''}" for ${p.title}${where} received ${p.score}/100.` }
    : { title: `Graded: ${p.title}`, content: `Your answer sheet for "${p.title}"${where} was graded: ${p.score}/100.` }
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
    default:
      return stored
  }
}

/** The subject line of a notification's e-mail: it names the course. */
export function mailSubject(text: RenderedText, params: NotificationParams | null, locale: Locale): string {
  const course = params && 'courseTitle' in params ? params.courseTitle : null
  if (!course) return text.title
  return locale === 'zh-CN' ? `【${course}】${text.title}` : `[${course}] ${text.title}`
}
