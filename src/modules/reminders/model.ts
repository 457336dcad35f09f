import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'

export const TriggerTypeSchema = z.enum(['START', 'BEFORE_DUE_24H', 'DUE'])
export const ReminderState = z.enum(['PENDING', 'SENT', 'CANCELED'])

export const ReminderEvent = z
  .object({
    id: Uuid,
    taskId: Uuid,
    targetUserId: Uuid,
    triggerType: TriggerTypeSchema.meta({ description: 'START at startAt, BEFORE_DUE_24H at dueAt - 24h, DUE at dueAt.' }),
    scheduledAt: IsoDateTime,
    sentAt: IsoDateTime.nullable(),
    canceled: z.boolean(),
    state: ReminderState.meta({ description: 'PENDING (not sent, not canceled), SENT (sentAt set) or CANCELED.' }),
  })
  .meta({ id: 'ReminderEvent' })
export type ReminderEvent = z.infer<typeof ReminderEvent>
