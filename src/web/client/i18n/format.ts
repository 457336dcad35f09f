import { currentLocale } from './index.ts'

/** Intl formatters for the reader's locale and time zone, cached per locale. */
const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat | Intl.RelativeTimeFormat>()
function cached<T extends Intl.DateTimeFormat | Intl.NumberFormat | Intl.RelativeTimeFormat>(key: string, make: (l: string) => T): T {
  const locale = currentLocale()
  const k = `${locale}|${key}`
  let f = cache.get(k) as T | undefined
  if (!f) cache.set(k, (f = make(locale)))
  return f
}

const valid = (iso: string | null | undefined): Date | null => {
  if (!iso) return null
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? null : d
}

export function formatDateTime(iso: string | null | undefined) {
  const d = valid(iso)
  return d ? cached('dt', (l) => new Intl.DateTimeFormat(l, { dateStyle: 'medium', timeStyle: 'short' })).format(d) : '—'
}

export function formatDate(iso: string | null | undefined) {
  const d = valid(iso)
  return d ? cached('d', (l) => new Intl.DateTimeFormat(l, { dateStyle: 'medium' })).format(d) : '—'
}

export function formatNumber(n: number | null | undefined, maximumFractionDigits = 1) {
  if (n == null) return '—'
  return cached(`n${maximumFractionDigits}`, (l) => new Intl.NumberFormat(l, { maximumFractionDigits })).format(n)
}

/** "in 3 hours", "3小时后", "2 days ago": the largest unit that fits. */
export function formatRelative(seconds: number) {
  const rtf = cached('rel', (l) => new Intl.RelativeTimeFormat(l, { numeric: 'auto' }))
  const abs = Math.abs(seconds)
  if (abs < 60) return rtf.format(Math.round(seconds), 'second')
  if (abs < 3600) return rtf.format(Math.round(seconds / 60), 'minute')
  if (abs < 86400) return rtf.format(Math.round(seconds / 3600), 'hour')
  return rtf.format(Math.round(seconds / 86400), 'day')
}

/** Calendar labels (homework centre): "November 2026", "Mon", "23 Nov". */
export function formatMonthYear(d: Date) {
  return cached('my', (l) => new Intl.DateTimeFormat(l, { year: 'numeric', month: 'long' })).format(d)
}
export function formatWeekday(d: Date, width: 'short' | 'long' = 'short') {
  return cached(`wd${width}`, (l) => new Intl.DateTimeFormat(l, { weekday: width })).format(d)
}
export function formatDayMonth(d: Date) {
  return cached('dm', (l) => new Intl.DateTimeFormat(l, { day: 'numeric', month: 'short' })).format(d)
}
export function formatTime(iso: string) {
  const d = valid(iso)
  return d ? cached('t', (l) => new Intl.DateTimeFormat(l, { timeStyle: 'short' })).format(d) : '—'
}
/** "23 – 29 Nov 2026": a date range in the reader's locale. */
export function formatDateRange(a: Date, b: Date) {
  return cached('dr', (l) => new Intl.DateTimeFormat(l, { day: 'numeric', month: 'short', year: 'numeric' })).formatRange(a, b)
}
