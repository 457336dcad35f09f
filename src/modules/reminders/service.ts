import type { Sql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import type { ReminderEvent } from './model.ts'
import * as q from './queries.ts'

type LiveEventRow = { [K in keyof q.EventRow]: NonNullable<q.EventRow[K]> }

/** The one row → API mapping of reminder events. */
export const toEvent = (r: LiveEventRow): ReminderEvent => ({
  id: r.id,
  taskId: r.task_id,
  targetUserId: r.target_user_id,
  triggerType: r.trigger_type,
  scheduledAt: iso(r.scheduled_at)!,
  sentAt: iso(r.sent_at),
  canceled: r.canceled,
  state: r.canceled ? 'CANCELED' : r.sent_at ? 'SENT' : 'PENDING',
})

export async function remindersOfHomework(sql: Sql, courseId: string, taskId: string) {
  const rows = await q.eventsOfHomework(sql, courseId, taskId)
  if (rows.length === 0) throw notFound('TASK_NOT_FOUND', 'This course has no homework with that id.')
  return rows.filter((r): r is LiveEventRow => r.id !== null).map(toEvent)
}
