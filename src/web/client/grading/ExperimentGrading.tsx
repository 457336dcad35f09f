import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, API_BASE } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import { keys, useExperimentSubmissions } from '../queries.ts'
import type { ExperimentSubmission } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { Empty, QueryView } from '../ui/Notice.tsx'
import { RichText } from '../ui/RichText.tsx'
import { formatBytes, formatScore, Time } from '../ui/time.tsx'
import { GradeForm } from './GradeForm.tsx'

export const submissionFileUrl = (s: { id: string; fileUrl?: string | null }) => s.fileUrl ?? `${API_BASE}/submissions/${s.id}/file`

/** Every submission of an experiment, newest first, each with its download and a grade form. */
export function ExperimentGrading({ experimentId, courseId }: { experimentId: string; courseId: string }) {
  const { t } = useT(NS)
  const subs = useExperimentSubmissions(experimentId)
  return (
    <QueryView query={subs} loading={t('grading.loading')}>
      {(list) =>
        list.length === 0 ? (
          <Empty>{t('grading.noSubmissions')}</Empty>
        ) : (
          <ul className="plain stack">
            {list.map((s) => (
              <li key={s.id} className="submission">
                <ExperimentSubmissionItem s={s} courseId={courseId} />
              </li>
            ))}
          </ul>
        )
      }
    </QueryView>
  )
}

function ExperimentSubmissionItem({ s, courseId }: { s: ExperimentSubmission; courseId: string }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const grade = useMutation({
    mutationFn: (body: { score: number; feedback?: string }) => api<ExperimentSubmission>('PATCH', `/submissions/${s.id}/grade`, body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.experimentSubmissions(s.experimentId) })
      void queryClient.invalidateQueries({ queryKey: keys.grades(courseId) })
    },
  })
  const who = s.student.displayName || s.student.username
  return (
    <>
      <p className="submission-head">
        <strong>{who}</strong> · <Time iso={s.submittedAt} /> {s.late && <Badge tone="danger">{t('grading.late')}</Badge>}{' '}
        {s.gradedAt ? <Badge tone="ok">{t('grading.graded', { score: formatScore(s.score) })}</Badge> : <Badge tone="info">{t('grading.notGraded')}</Badge>}
      </p>
      <p>
        <a href={submissionFileUrl(s)} download>
          {t('grading.experimentFile', { name: s.fileName })}
        </a>{' '}
        <span className="meta">({formatBytes(s.fileSize)})</span>
      </p>
      {s.note && <p className="note">{t('grading.note', { note: s.note })}</p>}
      {s.feedback && <RichText html={s.feedback} />}
      <GradeForm
        who={who}
        initialScore={s.score}
        initialFeedback={s.feedback}
        save={(b) => grade.mutate(b)}
        pending={grade.isPending}
        error={grade.error}
        saved={grade.isSuccess}
      />
    </>
  )
}
