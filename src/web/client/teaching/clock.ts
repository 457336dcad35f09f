import { useSyncExternalStore } from 'react'
import { dueStatus, isLate, remainingSeconds } from '../../../lib/due.ts'
import type { HomeworkStatus } from '../types.ts'

/**
 * The page's clock for deadlines (issue 29.2): the server's time (learned from the `Date` header
 * of API answers, so a wrong device clock does not move deadlines) ticking once a second on the
 * second, shared by every countdown and badge on the page. Statuses follow the one due-time rule
 * (src/lib/due.ts): on time at exactly dueAt, overdue after.
 */
let offsetMs = 0

/**
 * Learns the server's clock from an answer: its `X-Server-Time` (the service's clock, with
 * milliseconds: a skew under 250 ms is ignored), else its `Date` header (one-second
 * resolution: a skew under 1.5 s is ignored).
 */
export function noteServerTime(precise: string | null, date: string | null, sentAt: number, receivedAt: number) {
  const exact = precise ? Date.parse(precise) : NaN
  if (!Number.isNaN(exact)) {
    const skew = exact - (sentAt + receivedAt) / 2
    setOffset(Math.abs(skew) > 250 ? skew : 0)
    return
  }
  noteServerDate(date, sentAt, receivedAt)
}

function noteServerDate(header: string | null, sentAt: number, receivedAt: number) {
  const server = header ? Date.parse(header) : NaN
  if (Number.isNaN(server)) return
  // The header's second was cut off: its middle, against the middle of the round trip.
  const skew = server + 500 - (sentAt + receivedAt) / 2
  setOffset(Math.abs(skew) > 1500 ? skew : 0)
}

/** A new offset shows at once (not at the next tick), before the answer that taught it renders. */
function setOffset(next: number) {
  if (next === offsetMs) return
  offsetMs = next
  if (listeners.size) {
    clearTimeout(timer)
    tick()
  } else {
    current = serverNow()
  }
}

export const serverNow = () => Date.now() + offsetMs

const listeners = new Set<() => void>()
let current = serverNow()
let timer: ReturnType<typeof setTimeout> | undefined

function schedule() {
  // Just after the next whole second: a deadline at hh:mm:ss.000 is overdue from .001.
  timer = setTimeout(tick, 1000 - (serverNow() % 1000) + 5)
}
function tick() {
  current = serverNow()
  for (const l of listeners) l()
  schedule()
}
function subscribe(listener: () => void) {
  listeners.add(listener)
  if (listeners.size === 1) {
    current = serverNow()
    schedule()
  }
  return () => {
    listeners.delete(listener)
    if (!listeners.size) clearTimeout(timer)
  }
}

/** The server's time now, re-rendering the caller every second. */
export function useSecondNow(): number {
  return useSyncExternalStore(subscribe, () => current)
}

const at = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null)

/** A homework's status at `now` (the list's status was computed when it was fetched). */
export function liveHomeworkStatus(item: { status: HomeworkStatus; startAt?: string | null; dueAt: string }, now: number): HomeworkStatus {
  if (item.status === 'SUBMITTED') return 'SUBMITTED'
  const s = dueStatus(now, at(item.startAt), Date.parse(item.dueAt))
  return s === 'OPEN' ? 'IN_PROGRESS' : s
}

/** An experiment's status at `now`. */
export function liveExperimentStatus(item: { status: 'OPEN' | 'SUBMITTED' | 'OVERDUE'; dueAt: string }, now: number) {
  if (item.status === 'SUBMITTED') return 'SUBMITTED' as const
  return isLate(now, Date.parse(item.dueAt)) ? ('OVERDUE' as const) : ('OPEN' as const)
}

export const secondsLeft = (dueAt: string, now: number) => remainingSeconds(now, Date.parse(dueAt))
export const isPastDue = (dueAt: string, now: number) => isLate(now, Date.parse(dueAt))
