import type { Locale } from '../../i18n/locale.ts'
import { renderText } from '../../i18n/messages.ts'
import type en from '../../i18n/messages/en.ts'
import { isLate } from '../../lib/due.ts'

/*
 * Every notification type, one record each (issue 50): its params (what is stored with the
 * notification and rendered when read), its channel defaults, its link, the catalogue keys of its
 * wording (src/i18n/messages, section `notification`) and how those render. Adding a type is a
 * record here plus its wording in both catalogues; test/notifications/types.test.ts checks that
 * every record has every part and that its keys are in en and zh-CN.
 *
 * Defaults: whether a type goes out on a channel for a user who never chose (a user's row in
 * notification_channel_preferences, sql/039, wins). A channel a type does not name is off by
 * default for it, so a new channel changes nothing here.
 *
 * Texts: no clock time is fixed in a text. Deadlines are relative ("due in 3 days", "due in 24
 * hours", "due now") and `params.dueAt` (ISO-8601) lets a client show the time in the reader's
 * own zone.
 */

export type TextKey = keyof typeof en.notification
/** Renders a catalogue key of the `notification` section in the reader's language. */
export type Text = (key: TextKey, vars?: Record<string, string | number>) => string

export interface RenderedText {
  title: string
  content: string
}

export interface NotificationTypeDef<P extends { kind: string }, To, L extends { kind: string } = P> {
  /** Per channel, whether it is on for a user without a preference row. */
  defaults: Readonly<Record<string, boolean>>
  /**
   * Where the web app opens it (`actionPath`): from its params (`L`: those of them it needs, so a
   * producer that builds the params in SQL can still ask) and what else the producer knows (`to`).
   */
  link: (p: L, to: To) => string
  /** The catalogue keys its wording uses (section `notification`, in en and zh-CN). */
  texts: readonly TextKey[]
  /** Its title and content in the reader's language, from its params. */
  render: (p: P, t: Text, now: Date) => RenderedText
  /** Sample params with their `to`, covering every text: for the tests, and as documentation. */
  examples: readonly { params: P; to: To }[]
}

const defineNotificationType = <P extends { kind: string }, To, L extends { kind: string } = P>(d: NotificationTypeDef<P, To, L>) => d

// ---- params: what each type stores (notifications.params) ----

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
export interface CommentParams<K extends 'COMMENT_REPLY' | 'PRIVATE_COMMENT' = 'COMMENT_REPLY' | 'PRIVATE_COMMENT'> {
  kind: K
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

// ---- shared wording ----

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** "3 days", "5 hours", "1 minute" / "3 天"...: the rounded distance to a future instant. */
export function spanText(ms: number, t: Text): string {
  const [n, unit] = ms >= 2 * DAY ? [Math.round(ms / DAY), 'Day'] : ms >= 2 * HOUR ? [Math.round(ms / HOUR), 'Hour'] : [Math.max(1, Math.round(ms / MINUTE)), 'Minute']
  return t(`span${unit}${n === 1 ? '' : 's'}` as TextKey, { n })
}

/** The catalogue's `notification` keys that belong to no one type: the spans of a deadline, an e-mail's frame, the calendar feed. */
export const SHARED_TEXT_KEYS: readonly TextKey[] = [
  'spanDay', 'spanDays', 'spanHour', 'spanHours', 'spanMinute', 'spanMinutes',
  'mailSubject', 'mailOpen', 'mailWhy', 'mailUnsubscribe',
  'calendarName', 'calendarHomework', 'calendarExperiment', 'calendarSummary',
]

const courseTask = (courseId: string, taskId: string) => `/courses/${courseId}?taskId=${taskId}`

/** A private thread's teachers' view: the student's work in the grading tab. */
const gradingView = (courseId: string, item: 'taskId' | 'experimentId', itemId: string, studentId: string) =>
  `/courses/${courseId}/manage?tab=grading&${item}=${itemId}&student=${studentId}`

/** A comment's texts: the comment's own words are not translated; the frame around them is. */
const commentText = (key: TextKey) => (p: CommentParams, t: Text) => ({ title: t(key, { author: p.author, title: p.targetTitle }), content: p.excerpt })

const COMMENT = {
  commentId: '019300000000-0000-7000-8000-000000000009',
  courseId: 'c1',
  courseTitle: 'Biology',
  targetTitle: 'Essay 3',
  author: 'Ann',
  excerpt: 'Nice work',
} as const

// ---- the types ----

export const NOTIFICATION_TYPES = {
  HOMEWORK_REMINDER: defineNotificationType<ReminderParams, void>({
    defaults: { email: true },
    // Also written in SQL by reminders/delivery.ts (the batch never leaves the database).
    link: (p) => courseTask(p.courseId, p.taskId),
    texts: [
      'reminderStartTitle', 'reminderStartContent', 'reminderStartPassedContent', 'reminderStartDueNowContent',
      'reminderBeforeDueTitle', 'reminderBeforeDueContent', 'reminderDueTitle', 'reminderDueContent',
    ],
    render(p, t, now) {
      const v = { task: p.taskTitle, course: p.courseTitle }
      switch (p.trigger) {
        case 'START': {
          // The rule of src/lib/due.ts: at exactly dueAt the homework is still open (due now), after it late.
          const left = new Date(p.dueAt).getTime() - now.getTime()
          const content =
            left > 0
              ? t('reminderStartContent', { ...v, span: spanText(left, t) })
              : isLate(now, new Date(p.dueAt))
                ? t('reminderStartPassedContent', v)
                : t('reminderStartDueNowContent', v)
          return { title: t('reminderStartTitle', v), content }
        }
        case 'BEFORE_DUE_24H':
          return { title: t('reminderBeforeDueTitle', v), content: t('reminderBeforeDueContent', v) }
        case 'DUE':
          return { title: t('reminderDueTitle', v), content: t('reminderDueContent', v) }
      }
    },
    examples: (['START', 'BEFORE_DUE_24H', 'DUE'] as const).map((trigger) => ({
      params: { kind: 'HOMEWORK_REMINDER', trigger, courseId: 'c1', courseTitle: 'Biology', taskId: 't1', taskTitle: 'Essay 3', startAt: null, dueAt: '2026-03-10T12:00:00.000Z' },
      to: undefined,
    })),
  }),

  SUBMISSION_GRADED: defineNotificationType<GradedParams, { itemId: string }, Pick<GradedParams, 'kind' | 'subject' | 'courseId'>>({
    defaults: { email: true },
    /** `itemId`: the task's or the experiment's id. */
    link: (p, to) => (p.subject === 'EXPERIMENT' ? `/experiments/${to.itemId}?courseId=${p.courseId}` : courseTask(p.courseId, to.itemId)),
    texts: ['gradedTaskTitle', 'gradedTaskContent', 'gradedExperimentTitle', 'gradedExperimentContent', 'inCourse'],
    render(p, t) {
      const v = { title: p.title, score: p.score, file: p.fileName ?? '', where: p.courseTitle ? t('inCourse', { course: p.courseTitle }) : '' }
      return p.subject === 'EXPERIMENT'
        ? { title: t('gradedExperimentTitle', v), content: t('gradedExperimentContent', v) }
        : { title: t('gradedTaskTitle', v), content: t('gradedTaskContent', v) }
    },
    examples: [
      { params: { kind: 'SUBMISSION_GRADED', subject: 'TASK', courseId: 'c1', courseTitle: 'Biology', title: 'Essay 3', score: 90 }, to: { itemId: 't1' } },
      { params: { kind: 'SUBMISSION_GRADED', subject: 'EXPERIMENT', courseId: 'c1', courseTitle: null, title: 'Titration', score: 75, fileName: 'report.pdf' }, to: { itemId: 'e1' } },
    ],
  }),

  ANNOUNCEMENT: defineNotificationType<AnnouncementParams, void>({
    defaults: { email: false },
    link: (p) => `/courses/${p.courseId}`,
    // Announcements are the teacher's own words: the title and excerpt are not translated.
    texts: [],
    render: (p) => ({ title: p.announcementTitle, content: p.excerpt }),
    examples: [{ params: { kind: 'ANNOUNCEMENT', announcementId: 'a1', courseId: 'c1', courseTitle: 'Biology', announcementTitle: 'No class Friday', excerpt: 'See you Monday.' }, to: undefined }],
  }),

  /** To a course's teachers (owner and co-teachers), one per submission (issue 29.10); a class's worth of mail is opt-in. */
  SUBMISSION_RECEIVED: defineNotificationType<SubmittedParams, { studentId: string }>({
    defaults: { email: false },
    link: (p, to) => (p.subject === 'TASK' ? courseTask(p.courseId, p.taskId) : gradingView(p.courseId, 'experimentId', p.taskId, to.studentId)),
    texts: ['submittedTitle', 'submittedContent', 'submittedLateContent', 'submittedDigestTitle', 'submittedDigestContent'],
    render(p, t) {
      const v = { title: p.title, student: p.student, course: p.courseTitle ?? '', count: p.count ?? 1 }
      if ((p.count ?? 1) > 1) return { title: t('submittedDigestTitle', v), content: t('submittedDigestContent', v) }
      return { title: t('submittedTitle', v), content: t(p.late ? 'submittedLateContent' : 'submittedContent', v) }
    },
    examples: [
      { late: false, count: undefined },
      { late: true, count: 1 },
      { late: false, count: 12 },
    ].map(({ late, count }, i) => ({
      params: {
        kind: 'SUBMISSION_RECEIVED' as const,
        subject: i === 1 ? ('EXPERIMENT' as const) : ('TASK' as const),
        courseId: 'c1',
        courseTitle: 'Biology',
        taskId: 't1',
        title: 'Essay 3',
        submissionId: 's1',
        student: 'Ann',
        late,
        ...(count === undefined ? {} : { count }),
      },
      to: { studentId: 'u1' },
    })),
  }),

  /** A class comment under something you wrote or commented on (issue 53): a busy thread's worth of mail is opt-in. */
  COMMENT_REPLY: defineNotificationType<CommentParams<'COMMENT_REPLY'>, void>({
    defaults: { email: false },
    link: (p) => (p.on === 'ANNOUNCEMENT' ? `/courses/${p.courseId}?announcementId=${p.targetId}` : courseTask(p.courseId, p.targetId)),
    texts: ['commentReplyTitle'],
    render: commentText('commentReplyTitle'),
    examples: [
      { params: { kind: 'COMMENT_REPLY', on: 'ANNOUNCEMENT', targetId: 'a1', ...COMMENT }, to: undefined },
      { params: { kind: 'COMMENT_REPLY', on: 'TASK', targetId: 't1', ...COMMENT }, to: undefined },
    ],
  }),

  /** A private comment on a student's work, to that student or to the course's teachers. */
  PRIVATE_COMMENT: defineNotificationType<CommentParams<'PRIVATE_COMMENT'>, { toTeachers: boolean }>({
    defaults: { email: true },
    /** The teachers open the student's work in the grading tab, the student the task. */
    link: (p, to) => (to.toTeachers && p.studentId ? gradingView(p.courseId, 'taskId', p.targetId, p.studentId) : courseTask(p.courseId, p.targetId)),
    texts: ['privateCommentTitle'],
    render: commentText('privateCommentTitle'),
    examples: [true, false].map((toTeachers) => ({
      params: { kind: 'PRIVATE_COMMENT' as const, on: 'TASK' as const, targetId: 't1', studentId: 'u1', ...COMMENT },
      to: { toTeachers },
    })),
  }),
} as const

export type NotificationType = keyof typeof NOTIFICATION_TYPES
export const TYPE_NAMES = Object.keys(NOTIFICATION_TYPES) as NotificationType[]

/** The params of one type (its record's). */
export type ParamsOf<T extends NotificationType> = (typeof NOTIFICATION_TYPES)[T] extends NotificationTypeDef<infer P, any, any> ? P : never
/** What the producer of a `T` adds to its params for its link. */
export type LinkOf<T extends NotificationType> = (typeof NOTIFICATION_TYPES)[T] extends NotificationTypeDef<any, infer To, any> ? To : never
/** The params a `T`'s link is made of. */
export type LinkParamsOf<T extends NotificationType> = (typeof NOTIFICATION_TYPES)[T] extends NotificationTypeDef<any, any, infer L> ? L : never

export type NotificationParams = { [T in NotificationType]: ParamsOf<T> }[NotificationType]

// Each record's params carry its own name as `kind` (a mismatch fails to compile here).
type _KindsMatch = { [T in NotificationType]: ParamsOf<T>['kind'] extends T ? (T extends ParamsOf<T>['kind'] ? true : never) : never }
export const _kindsMatch: _KindsMatch = Object.fromEntries(TYPE_NAMES.map((t) => [t, true])) as _KindsMatch

export const isNotificationType = (t: string): t is NotificationType => Object.hasOwn(NOTIFICATION_TYPES, t)

/** The record of a type, with its params and link input widened (for code that dispatches on `kind`). */
export const typeDef = (type: NotificationType) => NOTIFICATION_TYPES[type] as unknown as NotificationTypeDef<NotificationParams, unknown, NotificationParams>

/** Where the web app opens a notification of `params.kind`. */
export const linkOf = <T extends NotificationType>(params: LinkParamsOf<T> & { kind: T }, ...to: LinkOf<T> extends void ? [] : [LinkOf<T>]): string =>
  typeDef(params.kind).link(params as unknown as NotificationParams, to[0])

/** Whether `type` goes out on `channel` for a user without a preference row. */
export function defaultOn(type: NotificationType, channel: string): boolean {
  return NOTIFICATION_TYPES[type].defaults[channel] ?? false
}

/** The types on by default for a channel (what the SQL falls back to without a row). */
export const typesOnByDefault = (channel: string) => TYPE_NAMES.filter((t) => defaultOn(t, channel))

/** The catalogue renderer for a reader's language. */
export const textIn = (locale: Locale): Text => (key, vars) => renderText(locale, key, vars)
