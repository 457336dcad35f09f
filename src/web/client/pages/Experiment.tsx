import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useRef, useState, type FormEvent } from 'react'
import { Link, useParams, useSearchParams } from 'react-router'
import { upload } from '../api.ts'
import { ExperimentGrading, submissionFileUrl } from '../grading/ExperimentGrading.tsx'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys, useCourse, useExperiment, useExperimentLatest, useMe } from '../queries.ts'
import type { ExperimentSubmission } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { Empty, ErrorNotice, Loading, QueryView } from '../ui/Notice.tsx'
import { RichText } from '../ui/RichText.tsx'
import { TextArea } from '../ui/form.tsx'
import { formatBytes, formatDuration, formatScore, Time } from '../ui/time.tsx'

export default function ExperimentPage() {
  const { experimentId = '' } = useParams()
  const [params] = useSearchParams()
  const courseId = params.get('courseId') ?? ''
  if (!courseId)
    return (
      <>
        <h1>Experiment</h1>
        <p className="notice notice-error" role="alert">
          This link is missing its course. Open the experiment from its course page.
        </p>
        <p>
          <Link to="/courses">Go to my courses</Link>
        </p>
      </>
    )
  return <ExperimentView courseId={courseId} experimentId={experimentId} />
}

function ExperimentView({ courseId, experimentId }: { courseId: string; experimentId: string }) {
  const me = useMe().data!
  const course = useCourse(courseId)
  const experiment = useExperiment(courseId, experimentId)
  usePageTitle(experiment.data?.title ?? 'Experiment')
  if (experiment.isPending || course.isPending) return <Loading label="Loading the experiment…" />
  if (experiment.isError || course.isError)
    return (
      <>
        <h1>Experiment</h1>
        <ErrorNotice error={experiment.error ?? course.error} onRetry={() => void (experiment.error ? experiment.refetch() : course.refetch())} />
        <p>
          <Link to="/courses">Go to my courses</Link>
        </p>
      </>
    )
  const e = experiment.data
  const isTeacher = course.data.teacher?.id === me.id
  const remaining = (new Date(e.dueAt).getTime() - Date.now()) / 1000
  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/courses">My courses</Link> › <Link to={`/courses/${courseId}`}>{course.data?.title ?? 'Course'}</Link>
          </p>
          <h1>{e.title}</h1>
          <p className="meta">
            Due <Time iso={e.dueAt} /> · {remaining > 0 ? formatDuration(remaining) : 'past due'}
          </p>
        </div>
      </div>
      <section className="panel" aria-labelledby="exp-desc">
        <h2 id="exp-desc">Description</h2>
        {e.description ? <RichText html={e.description} /> : <Empty>No description.</Empty>}
      </section>
      {isTeacher ? (
        <section className="panel" aria-labelledby="exp-subs">
          <h2 id="exp-subs">Submissions</h2>
          <ExperimentGrading experimentId={e.id} courseId={courseId} />
        </section>
      ) : (
        <>
          <section className="panel" aria-labelledby="exp-latest">
            <h2 id="exp-latest">My latest submission</h2>
            <LatestSubmission experimentId={e.id} />
          </section>
          <section className="panel" aria-labelledby="exp-submit">
            <h2 id="exp-submit">Submit a file</h2>
            <SubmitForm experimentId={e.id} late={remaining <= 0} />
          </section>
        </>
      )}
    </>
  )
}

function LatestSubmission({ experimentId }: { experimentId: string }) {
  const latest = useExperimentLatest(experimentId)
  return (
    <QueryView query={latest}>
      {(s) =>
        !s ? (
          <Empty>You have not submitted anything yet.</Empty>
        ) : (
          <div className="submission" data-testid="experiment-latest">
            <p className="submission-head">
              <a href={submissionFileUrl(s)} download>
                {s.fileName}
              </a>{' '}
              <span className="meta">
                ({formatBytes(s.fileSize)}) · <Time iso={s.submittedAt} />
              </span>{' '}
              {s.late && <Badge tone="danger">Late</Badge>}
            </p>
            {s.note && <p className="note">Your note: {s.note}</p>}
            <dl className="scores">
              <div>
                <dt>Score</dt>
                <dd>{s.score == null ? 'not graded yet' : `${formatScore(s.score)} / 100`}</dd>
              </div>
            </dl>
            {s.feedback && (
              <div className="feedback">
                <p className="label">Feedback from your teacher</p>
                <RichText html={s.feedback} />
              </div>
            )}
          </div>
        )
      }
    </QueryView>
  )
}

function SubmitForm({ experimentId, late }: { experimentId: string; late: boolean }) {
  const queryClient = useQueryClient()
  const fileRef = useRef<HTMLInputElement>(null)
  const [note, setNote] = useState('')
  const [progress, setProgress] = useState<number | null>(null)
  const [error, setError] = useState<string>()
  const send = useMutation({
    mutationFn: (form: FormData) => upload<ExperimentSubmission>(`/experiments/${experimentId}/submissions`, form, setProgress),
    onSuccess: (s) => {
      queryClient.setQueryData(keys.experimentLatest(experimentId), s)
      setNote('')
      if (fileRef.current) fileRef.current.value = ''
    },
    onSettled: () => setProgress(null),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const file = fileRef.current?.files?.[0]
    if (!file) return setError('Choose the file to submit.')
    setError(undefined)
    const form = new FormData()
    form.set('file', file)
    if (note.trim()) form.set('note', note.trim())
    send.mutate(form)
  }
  return (
    <form onSubmit={submit} noValidate>
      {late && (
        <p className="notice notice-info" role="status">
          The due time has passed. You can still submit; it will be marked late.
        </p>
      )}
      <div className="field">
        <label htmlFor="exp-file">File</label>
        <input id="exp-file" type="file" ref={fileRef} aria-invalid={error ? true : undefined} aria-describedby={error ? 'exp-file-error' : undefined} />
        {error && (
          <p className="field-error" id="exp-file-error">
            {error}
          </p>
        )}
      </div>
      <TextArea label="Note" rows={3} value={note} onChange={(e) => setNote(e.target.value)} hint="Optional: anything your teacher should know." />
      {progress != null && (
        <div className="progress">
          <label htmlFor="exp-progress">Uploading</label>
          <progress id="exp-progress" max={1} value={progress}>
            {Math.round(progress * 100)}%
          </progress>
          <span>{Math.round(progress * 100)}%</span>
        </div>
      )}
      {send.error && <ErrorNotice error={send.error} />}
      <button type="submit" className="btn btn-primary" disabled={send.isPending}>
        {send.isPending ? 'Uploading…' : 'Submit'}
      </button>
      {send.isSuccess && (
        <p className="notice notice-success" role="status">
          Submitted.
        </p>
      )}
    </form>
  )
}
