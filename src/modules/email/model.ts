import { z } from 'zod'
import { TYPE_NAMES, type NotificationType } from '../notifications/types.ts'

export const UnsubscribeQuery = z.object({ token: z.string().min(10).max(500) })
export const UnsubscribeResult = z
  .object({ type: z.enum(TYPE_NAMES as [NotificationType, ...NotificationType[]]), email: z.literal(false) })
  .meta({ id: 'UnsubscribeResult' })
