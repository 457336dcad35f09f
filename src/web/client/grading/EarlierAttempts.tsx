import type { ReactNode } from 'react'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import { Badge } from '../ui/Badge.tsx'
import { formatDateTime } from '../ui/time.tsx'

/**
 * A student's earlier attempts under the newest one being graded (homework and experiments
 * alike): a closed <details> with, for each, when it came, whether late, its grade if graded
 * (`score`, formatted; null while ungraded) and what was handed in (`children`).
 */
export function EarlierAttempts<S extends { id: string; submittedAt: string; late: boolean }>({
  earlier,
  score,
  children,
}: {
  earlier: S[]
  score: (s: S) => string | null
  children: (s: S) => ReactNode
}) {
  const { t } = useT(NS)
  if (earlier.length === 0) return null
  return (
    <details className="earlier-attempts">
      <summary>{t('grading.earlier', { count: earlier.length })}</summary>
      <ul className="plain stack">
        {earlier.map((s) => {
          const graded = score(s)
          return (
            <li key={s.id} className="submission">
              <p className="submission-head">
                {t('grading.attemptAt', { when: formatDateTime(s.submittedAt) })} {s.late && <Badge tone="danger">{t('grading.late')}</Badge>}{' '}
                {graded != null && <Badge tone="ok">{t('grading.graded', { score: graded })}</Badge>}
              </p>
              {children(s)}
            </li>
          )
        })}
      </ul>
    </details>
  )
}
