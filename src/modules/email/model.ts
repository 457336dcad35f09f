import { z } from 'zod'

export const EMAIL_TYPES = ['HOMEWORK_REMINDER', 'SUBMISSION_GRADED', 'ANNOUNCEMENT'] as const
export type EmailType = (typeof EMAIL_TYPES)[number]

export const EmailPreferences = z
  .object({ HOMEWORK_REMINDER: z.boolean(), SUBMISSION_GRADED: z.boolean(), ANNOUNCEMENT: z.boolean() })
  .meta({ id: 'EmailPreferences' })

export const NotificationPreferences = z
  .object({ email: EmailPreferences.meta({ description: 'Which notification types are also sent by e-mail. Defaults: true, true, false.' }) })
  .meta({ id: 'NotificationPreferences' })
export type NotificationPreferences = z.infer<typeof NotificationPreferences>

/** Any subset; an unknown key (at either level) → 400. */
export const PutNotificationPreferences = z
  .object({
    email: z
      .object({ HOMEWORK_REMINDER: z.boolean().optional(), SUBMISSION_GRADED: z.boolean().optional(), ANNOUNCEMENT: z.boolean().optional() })
      .strict()
      .optional(),
  })
  .strict()
  .meta({ id: 'PutNotificationPreferences' })
export type PutNotificationPreferences = z.infer<typeof PutNotificationPreferences>

export const UnsubscribeQuery = z.object({ token: z.string().min(10).max(500) })
export const UnsubscribeResult = z.object({ type: z.enum(EMAIL_TYPES), email: z.literal(false) }).meta({ id: 'UnsubscribeResult' })
