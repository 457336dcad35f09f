import { translate, useT } from '../i18n/index.ts'
import type { HomeworkStatus } from '../types.ts'

const STATUSES: readonly HomeworkStatus[] = ['NOT_STARTED', 'IN_PROGRESS', 'SUBMITTED', 'OVERDUE']

/** The status in the reader's language (catalogue `common`, `status.*`). */
export const statusLabel = (s: HomeworkStatus) => (STATUSES.includes(s) ? translate(`status.${s}`) : s)

export function StatusBadge({ status }: { status: HomeworkStatus }) {
  useT() // re-render on a language change
  return <span className={`badge badge-${status.toLowerCase().replace('_', '-')}`}>{statusLabel(status)}</span>
}

export function Badge({ children, tone = 'neutral' }: { children: React.ReactNode; tone?: 'neutral' | 'info' | 'warn' | 'ok' | 'danger' }) {
  return <span className={`badge badge-${tone}`}>{children}</span>
}
