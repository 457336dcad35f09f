/*
 * Every notification type, with ONE definition of its defaults: whether it goes out on a channel
 * for a user who never chose (a user's row in notification_channel_preferences, sql/039, wins).
 * A channel a type does not name is off by default for it, so a new channel changes nothing
 * here; a new type is an entry here plus its wording in the catalogue (src/i18n/messages).
 */
export const NOTIFICATION_TYPES = {
  HOMEWORK_REMINDER: { email: true },
  SUBMISSION_GRADED: { email: true },
  ANNOUNCEMENT: { email: false },
  /** To a course's teachers (owner and co-teachers), one per submission (issue 29.10); a class's worth of mail is opt-in. */
  SUBMISSION_RECEIVED: { email: false },
  /** A class comment under something you wrote or commented on (issue 53): a busy thread's worth of mail is opt-in. */
  COMMENT_REPLY: { email: false },
  /** A private comment on a student's work, to that student or to the course's teachers. */
  PRIVATE_COMMENT: { email: true },
} as const satisfies Record<string, Record<string, boolean>>

export type NotificationType = keyof typeof NOTIFICATION_TYPES
export const TYPE_NAMES = Object.keys(NOTIFICATION_TYPES) as NotificationType[]

export const isNotificationType = (t: string): t is NotificationType => Object.hasOwn(NOTIFICATION_TYPES, t)

/** Whether `type` goes out on `channel` for a user without a preference row. */
export function defaultOn(type: NotificationType, channel: string): boolean {
  return (NOTIFICATION_TYPES[type] as Record<string, boolean>)[channel] ?? false
}

/** The types on by default for a channel (what the SQL falls back to without a row). */
export const typesOnByDefault = (channel: string) => TYPE_NAMES.filter((t) => defaultOn(t, channel))
