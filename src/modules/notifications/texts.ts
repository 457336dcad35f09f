import type { Locale } from '../../i18n/locale.ts'
import { renderText } from '../../i18n/messages.ts'
import { isNotificationType, spanText, textIn, typeDef, type NotificationParams, type RenderedText } from './types.ts'

/*
 * Notification texts, rendered when they are read (the inbox, the stream, an e-mail) in the
 * reader's language, from the structure stored with the notification (`params`); each type's
 * wording is its record's in types.ts, the words the catalogue's (src/i18n/messages, section
 * `notification`).
 */

export type {
  AnnouncementParams,
  CommentParams,
  GradedParams,
  NotificationParams,
  ReminderParams,
  RenderedText,
  SubmittedParams,
  TriggerType,
} from './types.ts'

/** "3 days", "5 hours", "1 minute" / "3 天"...: the rounded distance to a future instant. */
export const relativeSpan = (ms: number, locale: Locale): string => spanText(ms, textIn(locale))

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
  if (!params || typeof params !== 'object' || typeof params.kind !== 'string' || !isNotificationType(params.kind)) return stored
  return typeDef(params.kind).render(params, textIn(locale), now)
}

/** The subject line of a notification's e-mail: it names the course. */
export function mailSubject(text: RenderedText, params: NotificationParams | null, locale: Locale): string {
  const course = params && 'courseTitle' in params ? params.courseTitle : null
  return course ? renderText(locale, 'mailSubject', { course, title: text.title }) : text.title
}
