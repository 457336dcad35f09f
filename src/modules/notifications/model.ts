import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { PageQuery } from '../../http/pagination.ts'
import { defaultOn, TYPE_NAMES, type NotificationType } from './types.ts'

export const NotificationTypeSchema = z.enum(TYPE_NAMES as [NotificationType, ...NotificationType[]])

export const Notification = z
  .object({
    id: Uuid,
    type: NotificationTypeSchema,
    title: z.string().meta({ description: "Rendered when read, in the reader's language (users.locale, else Accept-Language); no clock times." }),
    content: z.string().meta({ description: 'Plain text, rendered like the title.' }),
    actionPath: z.string().nullable().meta({ description: 'Where the web app opens it, e.g. /courses/{courseId}?taskId={taskId}.' }),
    readAt: IsoDateTime.nullable(),
    deliveredAt: IsoDateTime,
    params: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({
        description:
          'What the text is made of, for clients that render it themselves (for example times in the reader\'s zone): `kind` (the type), and for HOMEWORK_REMINDER `trigger`, `courseId`, `courseTitle`, `taskId`, `taskTitle`, `startAt`, `dueAt` (ISO-8601 UTC); for SUBMISSION_GRADED `subject` (TASK or EXPERIMENT), `courseTitle`, `title`, `score`; for ANNOUNCEMENT `courseTitle`, `announcementTitle`, `excerpt`. Null for notifications written before texts were structured.',
      }),
  })
  .meta({ id: 'Notification' })
export type Notification = z.infer<typeof Notification>

export const NotificationPage = z
  .object({
    items: z.array(Notification),
    unreadCount: z.number().int().meta({ description: "All of the caller's unread notifications, whatever the filter and page." }),
    total: z.number().int().meta({ description: 'Items matching the filter.' }),
    page: z.number().int(),
    pageSize: z.number().int(),
  })
  .meta({ id: 'NotificationPage' })

export const InboxQuery = PageQuery.extend({
  unreadOnly: z
    .enum(['true', 'false'], { message: "must be 'true' or 'false'" })
    .default('false')
    .transform((v) => v === 'true'),
})
export type InboxQuery = z.infer<typeof InboxQuery>

export const NotificationParams = z.object({ notificationId: Uuid })

export const ReadAllResult = z.object({ updated: z.number().int() }).meta({ id: 'ReadAllResult' })

export const StreamQuery = z.object({
  lastEventId: Uuid.optional().meta({ description: 'Like the Last-Event-ID header, for clients that cannot set headers.' }),
})

/**
 * /me/notification-preferences: per channel of the channel list (src/services/channels.ts), a switch per
 * type, e.g. `{ email: { HOMEWORK_REMINDER: true, … } }`; the defaults come from types.ts.
 */
const HandInDigest = z.boolean().meta({
  description:
    "Teachers: hand-ins come as one unread notification per task, counted up (\"12 new hand-ins for Essay 3\"; true, the default), or one per hand-in (false).",
})

export function preferenceSchemas(channels: readonly string[]) {
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1)
  const defaults = (c: string) => TYPE_NAMES.map((t) => `${t} ${defaultOn(t, c)}`).join(', ')
  const whole = z
    .object(
      Object.fromEntries(
        channels.map((c) => [
          c,
          z
            .object(Object.fromEntries(TYPE_NAMES.map((t) => [t, z.boolean()])) as Record<NotificationType, z.ZodBoolean>)
            .meta({ id: `${cap(c)}Preferences`, description: `Which notification types are also sent by ${c}. Defaults: ${defaults(c)}.` }),
        ]),
      ),
    )
    .extend({ handInDigest: HandInDigest })
    .meta({ id: 'NotificationPreferences' })
  /** Any subset; an unknown key (at either level) → 400. */
  const put = z
    .object(
      Object.fromEntries(
        channels.map((c) => [c, z.object(Object.fromEntries(TYPE_NAMES.map((t) => [t, z.boolean().optional()]))).strict().optional()]),
      ),
    )
    .extend({ handInDigest: HandInDigest.optional() })
    .strict()
    .meta({ id: 'PutNotificationPreferences' })
  return { whole, put }
}
