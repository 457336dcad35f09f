import { dueStatus } from '../../lib/due.ts'

export const HOMEWORK_STATUSES = ['NOT_STARTED', 'IN_PROGRESS', 'SUBMITTED', 'OVERDUE'] as const
export type HomeworkStatus = (typeof HOMEWORK_STATUSES)[number]
export { remainingSeconds } from '../../lib/due.ts'

/**
 * A homework's status at `now`. Any submission makes it SUBMITTED (late ones too); otherwise
 * the due-time rule (src/lib/due.ts): NOT_STARTED before startAt, IN_PROGRESS up to and
 * including dueAt, OVERDUE after. The teacher's view passes `submittedAt = null` (time-based only).
 */
export function homeworkStatus(now: Date, startAt: Date, dueAt: Date, submittedAt: Date | null): HomeworkStatus {
  if (submittedAt) return 'SUBMITTED'
  const s = dueStatus(now, startAt, dueAt)
  return s === 'OPEN' ? 'IN_PROGRESS' : s
}
