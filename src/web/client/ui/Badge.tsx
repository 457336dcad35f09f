import type { HomeworkStatus } from '../types.ts'

const STATUS_LABEL: Record<HomeworkStatus, string> = {
  NOT_STARTED: 'Not started',
  IN_PROGRESS: 'In progress',
  SUBMITTED: 'Submitted',
  OVERDUE: 'Overdue',
}

export const statusLabel = (s: HomeworkStatus) => STATUS_LABEL[s] ?? s

export function StatusBadge({ status }: { status: HomeworkStatus }) {
  return <span className={`badge badge-${status.toLowerCase().replace('_', '-')}`}>{statusLabel(status)}</span>
}

export function Badge({ children, tone = 'neutral' }: { children: React.ReactNode; tone?: 'neutral' | 'info' | 'warn' | 'ok' | 'danger' }) {
  return <span className={`badge badge-${tone}`}>{children}</span>
}
