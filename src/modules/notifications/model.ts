import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { PageQuery } from '../../http/pagination.ts'

export const NotificationTypeSchema = z.enum(['HOMEWORK_REMINDER', 'SUBMISSION_GRADED', 'ANNOUNCEMENT'])

export const Notification = z
  .object({
    id: Uuid,
    type: NotificationTypeSchema,
    title: z.string(),
    content: z.string().meta({ description: 'Plain text.' }),
    actionPath: z.string().nullable().meta({ description: 'Where the web app opens it, e.g. /courses/{courseId}?taskId={taskId}.' }),
    readAt: IsoDateTime.nullable(),
    deliveredAt: IsoDateTime,
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
