import { useEffect, useState } from 'react'

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

export function formatDateTime(iso: string | null | undefined) {
  if (!iso) return '—'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? '—' : dateTime.format(d)
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>
  return <time dateTime={iso}>{formatDateTime(iso)}</time>
}

/** `2026-11-22T08:00:00.000Z` → the `YYYY-MM-DDTHH:mm` a datetime-local input shows, in local time. */
export function toLocalInput(iso: string | null | undefined) {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`
}

/** The datetime-local value (local time) as an ISO string with offset Z, or null when empty/invalid. */
export function fromLocalInput(value: string) {
  if (!value) return null
  const d = new Date(value)
  return Number.isNaN(d.getTime()) ? null : d.toISOString()
}

export function formatDuration(seconds: number) {
  if (seconds <= 0) return 'due now'
  const d = Math.floor(seconds / 86400)
  const h = Math.floor((seconds % 86400) / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  if (d > 0) return `${d}d ${h}h left`
  if (h > 0) return `${h}h ${m}m left`
  if (m > 0) return `${m}m left`
  return 'less than a minute left'
}

/** Counts down from the server's `remainingSeconds` (measured when the data arrived). */
export function Countdown({ seconds, since }: { seconds: number; since: number }) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000)
    return () => clearInterval(t)
  }, [])
  const left = Math.max(0, Math.round(seconds - (now - since) / 1000))
  return <span className="countdown">{left > 0 ? formatDuration(left) : 'past due'}</span>
}

export function formatBytes(n: number | null | undefined) {
  if (n == null) return '—'
  if (n < 1024) return `${n} B`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`
  return `${(n / 1024 / 1024).toFixed(1)} MB`
}

export function formatScore(n: number | null | undefined) {
  if (n == null) return '—'
  return Number.isInteger(n) ? String(n) : n.toFixed(1)
}
