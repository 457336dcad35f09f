/**
 * The one due-time rule of the service and the web app (issues 28, 29.2): work handed in at
 * exactly `dueAt` is on time; one millisecond after, it is late, and unsubmitted work is
 * overdue. Homework status, learning and experiment submissions, the experiment list and the
 * web app's countdowns all ask these functions. Pure (no imports), so the web bundle uses it too.
 */
type Instant = Date | number

const ms = (t: Instant) => (typeof t === 'number' ? t : t.getTime())

/** Handed in (or looked at) after the deadline. No deadline: never late. */
export function isLate(at: Instant, dueAt: Instant | null | undefined): boolean {
  return dueAt != null && ms(at) > ms(dueAt)
}

export type DueStatus = 'NOT_STARTED' | 'OPEN' | 'OVERDUE'

/** The time-based status of work due at `dueAt`: not yet open before `startAt`, overdue after `dueAt`. */
export function dueStatus(now: Instant, startAt: Instant | null | undefined, dueAt: Instant): DueStatus {
  if (startAt != null && ms(now) < ms(startAt)) return 'NOT_STARTED'
  return isLate(now, dueAt) ? 'OVERDUE' : 'OPEN'
}

/** Whole seconds until `dueAt`, never below 0. */
export function remainingSeconds(now: Instant, dueAt: Instant): number {
  return Math.max(0, Math.floor((ms(dueAt) - ms(now)) / 1000))
}

/** Milliseconds until the status of work due at `dueAt` next changes (opening or the deadline passing), or null. */
export function nextDueChange(now: Instant, startAt: Instant | null | undefined, dueAt: Instant): number | null {
  const t = ms(now)
  if (startAt != null && t < ms(startAt)) return ms(startAt) - t
  // Overdue from dueAt + 1 ms on.
  if (t <= ms(dueAt)) return ms(dueAt) + 1 - t
  return null
}
