export const HOMEWORK_STATUSES = ['NOT_STARTED', 'IN_PROGRESS', 'SUBMITTED', 'OVERDUE'] as const
export type HomeworkStatus = (typeof HOMEWORK_STATUSES)[number]

/**
 * A homework's status at `now`. Any submission makes it SUBMITTED (late ones too); otherwise
 * it is NOT_STARTED before startAt, OVERDUE after dueAt, and IN_PROGRESS from startAt up to
 * and including dueAt. The teacher's view passes `submittedAt = null` (time-based only).
 */
export function homeworkStatus(now: Date, startAt: Date, dueAt: Date, submittedAt: Date | null): HomeworkStatus {
  if (submittedAt) return 'SUBMITTED'
  const t = now.getTime()
  if (t < startAt.getTime()) return 'NOT_STARTED'
  if (t > dueAt.getTime()) return 'OVERDUE'
  return 'IN_PROGRESS'
}

/** Whole seconds until dueAt, never below 0. */
export function remainingSeconds(now: Date, dueAt: Date): number {
  return Math.max(0, Math.floor((dueAt.getTime() - now.getTime()) / 1000))
}
