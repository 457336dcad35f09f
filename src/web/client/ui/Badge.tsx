import { translate, useT } from '../i18n/index.ts'
import type { HomeworkStatus } from '../types.ts'

const STATUSES: readonly HomeworkStatus[] = ['NOT_STARTED', 'IN_PROGRESS', 'SUBMITTED', 'OVERDUE']

/** The status in the reader's language (catalogue `common`, `status.*`). */
export const statusLabel = (s: HomeworkStatus) => (STATUSES.includes(s) ? translate(`status.${s}`) : s)

/**
 * A homework status. `mine`: the student's own work, where past due with nothing handed in is
 * "Missing" (issue 56.5b: one word for one state, as in the homework centre and the gradebook).
 */
export function StatusBadge({ status, mine = false }: { status: HomeworkStatus; mine?: boolean }) {
  useT() // re-render on a language change
  if (mine && status === 'OVERDUE')
    return (
      <span className="badge badge-danger">
        <span data-status="MISSING">{translate('status.MISSING')}</span>
      </span>
    )
  return <span className={`badge badge-${status.toLowerCase().replace('_', '-')}`}>{statusLabel(status)}</span>
}

export function Badge({ children, tone = 'neutral' }: { children: React.ReactNode; tone?: 'neutral' | 'info' | 'warn' | 'ok' | 'danger' }) {
  return <span className={`badge badge-${tone}`}>{children}</span>
}
