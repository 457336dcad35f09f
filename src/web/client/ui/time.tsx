import { isPastDue, secondsLeft, useSecondNow } from '../teaching/clock.ts'
import { formatDateTime, formatNumber } from '../i18n/format.ts'
import { translate, useT } from '../i18n/index.ts'

export { formatDateTime }

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
  if (seconds <= 0) return translate('common:time.dueNow')
  const d = Math.floor(seconds / 86400)
  const h = Math.floor((seconds % 86400) / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  if (d > 0) return translate('common:time.daysHoursLeft', { d, h })
  if (h > 0) return translate('common:time.hoursMinutesLeft', { h, m })
  if (m > 0) return translate('common:time.minutesLeft', { m })
  return translate('common:time.underAMinute')
}

/** Counts down to `dueAt` on the server's clock, second by second; "past due" from dueAt + 1 ms. */
export function Countdown({ dueAt }: { dueAt: string }) {
  const { t } = useT()
  const now = useSecondNow()
  return <span className="countdown">{isPastDue(dueAt, now) ? t('time.pastDue') : formatDuration(secondsLeft(dueAt, now))}</span>
}

export function formatBytes(n: number | null | undefined) {
  if (n == null) return '—'
  if (n < 1024) return `${formatNumber(n, 0)} B`
  if (n < 1024 * 1024) return `${formatNumber(n / 1024)} KB`
  return `${formatNumber(n / 1024 / 1024)} MB`
}

/** One decimal at most, in the reader's locale. */
export function formatScore(n: number | null | undefined) {
  return formatNumber(n, 1)
}
