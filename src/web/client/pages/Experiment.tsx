import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useRef, useState, type FormEvent } from 'react'
import { Link, useParams, useSearchParams } from 'react-router'
import { upload } from '../api.ts'
import { ExperimentGrading, submissionFileUrl } from '../grading/ExperimentGrading.tsx'
import { formatRelative } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys, useCourse, useExperiment, useExperimentLatest, useMe } from '../queries.ts'
import type { Experiment as ExperimentDetail, ExperimentSubmission } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { CourseBadge } from '../ui/CourseBadge.tsx'
import { Failure, Loaded } from '../ui/Failure.tsx'
import { FileInput } from '../ui/FileInput.tsx'
import { FilePreview } from '../ui/FilePreview.tsx'
import { TextArea, SubmitButton } from '../ui/form.tsx'
import { Empty, ErrorNotice } from '../ui/Notice.tsx'
import { RichText } from '../ui/RichText.tsx'
import { PageSkeleton, Skeleton } from '../ui/Skeleton.tsx'
import { formatBytes, formatScore, Time } from '../ui/time.tsx'
import { useDraft } from '../ui/useDraft.ts'
import { myExperimentsKey } from '../workspace/data.ts'
import { isPastDue, useSecondNow } from '../teaching/clock.ts'
import { WORKSPACE } from '../workspace/messages.ts'
import { RubricView } from '../workspace/RubricView.tsx'
import { ArchivedBanner } from '../terms/Terms.tsx'
import { ReadOnlyProvider, ReadOnlyScope } from '../ui/readOnly.tsx'
import { UploadProgress } from '../ui/UploadProgress.tsx'
import { Feedback } from '../workspace/Feedback.tsx'

export default function ExperimentPage() {
  const { t } = useT(WORKSPACE)
  const { experimentId = '' } = useParams()
  const [params] = useSearchParams()
  const courseId = params.get('courseId') ?? ''
  if (!courseId)
    return (
      <>
        <h1>{t('experiment.title')}</h1>
        <p className="notice notice-error" role="alert">
          {t('experiment.missingCourse')}
        </p>
        <p>
          <Link to="/courses">{t('backToCourses')}</Link>
        </p>
      </>
    )
  return <ExperimentView courseId={courseId} experimentId={experimentId} />
}

function ExperimentView({ courseId, experimentId }: { courseId: string; experimentId: string }) {
  const { t } = useT(WORKSPACE)
  const me = useMe().data!
  const course = useCourse(courseId)
  const experiment = useExperiment(courseId, experimentId)
  const now = useSecondNow()
  usePageTitle(experiment.data?.title ?? t('experiment.title'))
  if (experiment.isPending || course.isPending) return <PageSkeleton />
  if (experiment.isError || course.isError)
    return (
      <>
        <h1>{t('experiment.title')}</h1>
        <Failure
          error={course.error ?? experiment.error}
          what={course.error ? 'course' : 'experiment'}
          onRetry={() => void (experiment.error ? experiment.refetch() : course.refetch())}
        />
        <p>
          <Link to="/courses">{t('backToCourses')}</Link>
        </p>
      </>
    )
  const e = experiment.data
  const isTeacher = course.data.myRole === 'TEACHER'
  const remaining = (new Date(e.dueAt).getTime() - now) / 1000
  return (
    <>
      <div className="page-head">
        <div className="course-head">
          <CourseBadge id={course.data.id} title={course.data.title} size="lg" />
          <div>
            <p className="crumbs">
              <Link to="/courses">{t('myCourses')}</Link> › <Link to={`/courses/${courseId}?module=experiments`}>{course.data.title}</Link>
            </p>
            <h1>{e.title}</h1>
            <p className="meta">
              {t('task.due')} <Time iso={e.dueAt} /> · {isPastDue(e.dueAt, now) ? t('experiment.pastDue') : formatRelative(remaining)}
            </p>
          </div>
        </div>
      </div>
      <ArchivedBanner course={course.data} />
      <section className="panel" aria-labelledby="exp-desc">
        <h2 id="exp-desc">{t('experiment.description')}</h2>
        {e.description ? <RichText html={e.description} /> : <Empty>{t('experiment.noDescription')}</Empty>}
      </section>
      {isTeacher ? (
        <section className="panel" aria-labelledby="exp-subs">
          <h2 id="exp-subs">{t('experiment.submissions')}</h2>
          <ReadOnlyProvider readOnly={Boolean(course.data.archived)}>
            <ReadOnlyScope>
              <ExperimentGrading experimentId={e.id} courseId={courseId} />
            </ReadOnlyScope>
          </ReadOnlyProvider>
        </section>
      ) : (
        <StudentSide experimentId={e.id} courseId={courseId} late={remaining <= 0} archived={Boolean(course.data.archived)} rubric={e.rubric} />
      )}
    </>
  )
}

/** What the student handed in (with a preview), then "Submit again"; the form straight away when nothing is in yet. */
function StudentSide({ experimentId, courseId, late, archived, rubric }: { experimentId: string; courseId: string; late: boolean; archived: boolean; rubric: ExperimentDetail['rubric'] }) {
  const { t } = useT(WORKSPACE)
  const latest = useExperimentLatest(experimentId)
  const [again, setAgain] = useState(false)
  const [justSent, setJustSent] = useState(false)
  return (
    <>
      {/* The rubric before handing in; the levels picked once a grade by it is released (issue 54). */}
      {rubric && (
        <section className="panel">
          <RubricView rubric={rubric} choices={latest.data?.rubricChoices ?? []} />
        </section>
      )}
      <section className="panel" aria-labelledby="exp-latest">
        <h2 id="exp-latest">{t('experiment.latest')}</h2>
        {justSent && (
          <p className="notice notice-success" role="status">
            {t('experiment.submitted')}
          </p>
        )}
        <Loaded query={latest} skeleton={<Skeleton lines={2} />}>
          {(s) => (!s ? <Empty>{t('experiment.nothingYet')}</Empty> : <LatestSubmission s={s} />)}
        </Loaded>
      </section>
      {/* An archived course takes nothing (issue 56.3): no form to type into first. */}
      {latest.data !== undefined && !archived && (
        <section className="panel" aria-labelledby="exp-submit">
          <h2 id="exp-submit">{latest.data ? t('experiment.submitAgainTitle') : t('experiment.submitTitle')}</h2>
          {latest.data && !again ? (
            <button type="button" className="btn" onClick={() => setAgain(true)} data-testid="submit-again">
              {t('answer.submitAgain')}
            </button>
          ) : (
            <SubmitForm
              experimentId={experimentId}
              courseId={courseId}
              late={late}
              replaces={Boolean(latest.data)}
              onDone={() => {
                setAgain(false)
                setJustSent(true)
              }}
            />
          )}
        </section>
      )}
    </>
  )
}

function LatestSubmission({ s }: { s: ExperimentSubmission }) {
  const { t } = useT(WORKSPACE)
  return (
    <div className="submission" data-testid="experiment-latest">
      {(s.files?.length ? s.files : [{ position: 1, fileUrl: submissionFileUrl(s), fileName: s.fileName, contentType: s.contentType, fileSize: s.fileSize }]).map((f) => (
        <FilePreview key={f.position} url={f.fileUrl} name={f.fileName} contentType={f.contentType} meta={`(${formatBytes(f.fileSize)})`} />
      ))}
      <p className="meta">
        {t('experiment.submittedAt')} <Time iso={s.submittedAt} /> {s.late && <Badge tone="danger">{t('submission.late')}</Badge>}
      </p>
      {s.note && <p className="note">{t('experiment.yourNote', { note: s.note })}</p>}
      <dl className="scores">
        <div>
          <dt>{t('submission.score')}</dt>
          <dd>{s.score == null ? t('submission.notGraded') : t('submission.outOf100', { score: formatScore(s.score) })}</dd>
        </div>
      </dl>
      <Feedback html={s.feedback} />
    </div>
  )
}

function SubmitForm({ experimentId, courseId, late, replaces, onDone }: { experimentId: string; courseId: string; late: boolean; replaces: boolean; onDone: () => void }) {
  const { t } = useT(WORKSPACE)
  const queryClient = useQueryClient()
  const fileRef = useRef<HTMLInputElement>(null)
  const [note, setNote, clearNote] = useDraft(`experiment:${experimentId}:note`, '')
  const [progress, setProgress] = useState<number | null>(null)
  const [error, setError] = useState<string>()
  const send = useMutation({
    mutationFn: (form: FormData) => upload<ExperimentSubmission>(`/experiments/${experimentId}/submissions`, form, setProgress),
    onSuccess: (s) => {
      queryClient.setQueryData(keys.experimentLatest(experimentId), s)
      void queryClient.invalidateQueries({ queryKey: myExperimentsKey() })
      void queryClient.invalidateQueries({ queryKey: myExperimentsKey(courseId) })
      clearNote()
      if (fileRef.current) fileRef.current.value = ''
      onDone()
    },
    onSettled: () => setProgress(null),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const files = Array.from(fileRef.current?.files ?? [])
    if (!files.length) return setError(t('experiment.chooseFile'))
    setError(undefined)
    const form = new FormData()
    // One file keeps the single-file form; several (photos from a phone…) go as `files` parts.
    if (files.length === 1) form.set('file', files[0]!)
    else for (const f of files) form.append('files', f)
    if (note.trim()) form.set('note', note.trim())
    send.mutate(form)
  }
  return (
    <form onSubmit={submit} noValidate>
      {late && (
        <p className="notice notice-info" role="status">
          {t('experiment.lateNotice')}
        </p>
      )}
      {replaces && <p className="hint">{t('experiment.replacesHint')}</p>}
      <FileInput id="exp-file" label={t('experiment.file')} ref={fileRef} error={error} multiple />
      <TextArea label={t('experiment.note')} rows={3} value={note} onChange={(e) => setNote(e.target.value)} hint={t('experiment.noteHint')} />
      {progress != null && <UploadProgress id="exp-progress" label={t('experiment.uploading')} value={progress} />}
      {send.error && <ErrorNotice error={send.error} />}
      <SubmitButton pending={send.isPending} pendingLabel={t('experiment.uploadingButton')} label={t('experiment.submit')} />
    </form>
  )
}
