import type { UseQueryResult } from '@tanstack/react-query'
import { useMemo, type ReactElement } from 'react'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import type { Member } from '../types.ts'
import { Empty, ErrorNotice, Loading } from '../ui/Notice.tsx'

/** One student of the grading roster and what they handed in. */
export interface RosterRow<S> {
  member: Member
  /** Newest first; empty when the student has not submitted. */
  attempts: S[]
}

interface Submitted {
  student: { id: string }
  submittedAt: string
}

/** Every student of the course: submitted (newest hand-in first), then not submitted (by name). */
export function gradingRoster<S extends Submitted>(members: Member[], subs: S[]): RosterRow<S>[] {
  const byStudent = new Map<string, S[]>()
  for (const s of [...subs].sort((a, b) => b.submittedAt.localeCompare(a.submittedAt))) {
    const list = byStudent.get(s.student.id) ?? []
    list.push(s)
    byStudent.set(s.student.id, list)
  }
  const rows = members.filter((m) => m.role === 'STUDENT').map((member) => ({ member, attempts: byStudent.get(member.userId) ?? [] }))
  const name = (m: Member) => m.displayName || m.username
  const submitted = rows.filter((r) => r.attempts.length).sort((a, b) => b.attempts[0]!.submittedAt.localeCompare(a.attempts[0]!.submittedAt))
  const missing = rows.filter((r) => !r.attempts.length).sort((a, b) => name(a.member).localeCompare(name(b.member)))
  return [...submitted, ...missing]
}

/**
 * The roster of a grading page from its two queries, and what to show instead while they load,
 * after one failed (with a retry of both) or when the course has no students: `gate` is then
 * set and `rows` is empty. One gate for task and experiment grading.
 */
export function useGradingRoster<S extends Submitted>(subs: UseQueryResult<S[]>, members: UseQueryResult<Member[]>): { gate: ReactElement | null; rows: RosterRow<S>[] } {
  const { t } = useT(NS)
  const rows = useMemo(() => (subs.data && members.data ? gradingRoster(members.data, subs.data) : []), [subs.data, members.data])
  if (subs.isPending || members.isPending) return { gate: <Loading label={t('grading.loading')} />, rows: [] }
  if (subs.error || members.error) {
    const retry = () => {
      void subs.refetch()
      void members.refetch()
    }
    return { gate: <ErrorNotice error={subs.error ?? members.error} onRetry={retry} />, rows: [] }
  }
  if (!rows.length) return { gate: <Empty>{t('grading.noStudents')}</Empty>, rows: [] }
  return { gate: null, rows }
}
