import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, API_BASE } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import { keys, useExperimentSubmissions, useExperiments, useMembers } from '../queries.ts'
import type { ExperimentSubmission, Task } from '../types.ts'

type Rubric = NonNullable<Task['rubric']>
type ExperimentGradeBody = { score?: number; feedback?: string; rubric?: { criterionId: string; levelId: string }[] }
import { Badge } from '../ui/Badge.tsx'
import { FilePreview } from '../ui/FilePreview.tsx'
import { Empty } from '../ui/Notice.tsx'
import { RichText } from '../ui/RichText.tsx'
import { formatBytes, formatScore, Time } from '../ui/time.tsx'
import { isPastDue, useSecondNow } from '../teaching/clock.ts'
import { EarlierAttempts } from './EarlierAttempts.tsx'
import { GradeForm } from './GradeForm.tsx'
import { ReleaseGrades } from './ReleaseGrades.tsx'
import { RubricGradeForm } from './RubricGradeForm.tsx'
import { useGradingRoster } from './roster.tsx'
import { StudentStepper, type StepperEntry } from './StudentStepper.tsx'

export const submissionFileUrl = (s: { id: string; fileUrl?: string | null }) => s.fileUrl ?? `${API_BASE}/submissions/${s.id}/file`

/**
 * An experiment graded one student at a time (issue 29.8), as quizzes are: the roster with
 * Previous/Next, the newest file previewed in the page (pictures, audio, video; others as a
 * download), the note, the grade form; earlier attempts folded away.
 */
export function ExperimentGrading({ experimentId, courseId }: { experimentId: string; courseId: string }) {
  const { t } = useT(NS)
  const subs = useExperimentSubmissions(experimentId)
  const members = useMembers(courseId)
  const experiments = useExperiments(courseId)
  const experiment = experiments.data?.find((e) => e.id === experimentId)
  const dueAt = experiment?.dueAt ?? null
  const now = useSecondNow()
  const { gate, rows } = useGradingRoster(subs, members)
  if (gate) return gate

  const byId = new Map(rows.map((r) => [r.member.userId, r]))
  const entries: StepperEntry[] = rows.map(({ member, attempts }) => {
    const newest = attempts[0]
    return {
      id: member.userId,
      name: member.displayName || member.username,
      submissionId: newest?.id ?? null,
      badges: !newest ? (
        dueAt && isPastDue(dueAt, now) ? <Badge tone="danger">{t('grading.missing')}</Badge> : <Badge>{t('grading.notSubmitted')}</Badge>
      ) : (
        <>
          {newest.late && <Badge tone="danger">{t('grading.late')}</Badge>}{' '}
          {newest.gradedAt ? <Badge tone="ok">{t('grading.graded', { score: formatScore(newest.score) })}</Badge> : <Badge tone="info">{t('grading.needsGrading')}</Badge>}
          {newest.released === false && (
            <>
              {' '}
              <Badge tone="warn">{t('grading.held')}</Badge>
            </>
          )}
        </>
      ),
    }
  })
  const submitted = rows.filter((r) => r.attempts.length)
  const counts = {
    submitted: submitted.length,
    total: rows.length,
    late: submitted.filter((r) => r.attempts[0]!.late).length,
    graded: submitted.filter((r) => r.attempts[0]!.gradedAt).length,
  }

  return (
    <>
    {experiment?.gradeRelease === 'MANUAL' && (
      <ReleaseGrades
        path={`/experiments/${experimentId}/release`}
        held={submitted.filter((r) => r.attempts.some((a) => a.released === false)).length}
        invalidate={[keys.experimentSubmissions(experimentId), keys.experiments(courseId), keys.grades(courseId)]}
      />
    )}
    <StudentStepper entries={entries} summary={t('grading.summary', counts)}>
      {(e, nav) => {
        const r = byId.get(e.id)!
        const [newest, ...earlier] = r.attempts
        if (!newest) return <Empty>{t('grading.nothingYet')}</Empty>
        return (
          <>
            <ExperimentSubmissionItem key={newest.id} s={newest} courseId={courseId} attempts={r.attempts.length} rubric={experiment?.rubric ?? null} next={nav.next} />
            <EarlierAttempts earlier={earlier} score={(s) => (s.gradedAt ? formatScore(s.score) : null)}>
              {(s) => (
                <>
                  <FilePreview url={submissionFileUrl(s)} name={s.fileName} contentType={s.contentType} meta={`(${formatBytes(s.fileSize)})`} />
                  {s.note && <p className="note">{t('grading.note', { note: s.note })}</p>}
                </>
              )}
            </EarlierAttempts>
          </>
        )
      }}
    </StudentStepper>
    </>
  )
}

function ExperimentSubmissionItem({
  s,
  courseId,
  attempts,
  rubric,
  next,
}: {
  s: ExperimentSubmission
  courseId: string
  attempts: number
  rubric: Rubric | null
  next: () => void
}) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const gradeOptions = {
    mutationFn: (body: ExperimentGradeBody) => api<ExperimentSubmission>('PATCH', `/submissions/${s.id}/grade`, body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: keys.experimentSubmissions(s.experimentId) })
      void queryClient.invalidateQueries({ queryKey: keys.grades(courseId) })
    },
  }
  const grade = useMutation(gradeOptions)
  // Grading by rubric: its own mutation, so its saved/pending state is its form's (as for tasks).
  const byRubric = useMutation(gradeOptions)
  const who = s.student.displayName || s.student.username
  return (
    <div className="submission" data-testid="experiment-submission">
      <p className="submission-head">
        <Time iso={s.submittedAt} /> {s.late && <Badge tone="danger">{t('grading.late')}</Badge>}{' '}
        {s.gradedAt ? <Badge tone="ok">{t('grading.graded', { score: formatScore(s.score) })}</Badge> : <Badge tone="info">{t('grading.notGraded')}</Badge>}
        {attempts > 1 && <span className="meta"> · {t('grading.attempts', { count: attempts })}</span>}
      </p>
      {/* The newest file in the page (issue 29.8: was download-only). */}
      <FilePreview url={submissionFileUrl(s)} name={s.fileName} contentType={s.contentType} meta={`(${formatBytes(s.fileSize)})`} open />
      {s.note && <p className="note">{t('grading.note', { note: s.note })}</p>}
      {s.feedback && <RichText html={s.feedback} />}
      {rubric && (
        <RubricGradeForm
          s={s}
          rubric={rubric}
          who={who}
          save={(b) => byRubric.mutate(b, { onSuccess: next })}
          pending={byRubric.isPending}
          error={byRubric.error}
          saved={byRubric.isSuccess}
        />
      )}
      <GradeForm
        submissionId={s.id}
        who={who}
        initialScore={s.score}
        initialFeedback={s.feedback}
        save={(b) => grade.mutate(b)}
        pending={grade.isPending}
        error={grade.error}
        saved={grade.isSuccess}
      />
    </div>
  )
}
