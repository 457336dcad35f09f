import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useRef, useState, type FormEvent, type ReactNode } from 'react'
import { Link } from 'react-router'
import { api, API_BASE, ApiError, isStatus, upload } from '../api.ts'
import { formatDateTime, formatRelative } from '../i18n/format.ts'
import { translate, useT } from '../i18n/index.ts'
import { ClassComments, PrivateComments } from '../comments/Blocks.tsx'
import { keys, useMe, useResources, useTaskSubmissions } from '../queries.ts'
import type { Answer, HomeworkStatus, LearningSubmission, Question, Task } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { CopyButton } from '../ui/CopyButton.tsx'
import { Failure } from '../ui/Failure.tsx'
import { FilePreview } from '../ui/FilePreview.tsx'
import { FilesPicker, HandedInFiles } from '../ui/FilesPicker.tsx'
import { ErrorNotice } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { RichText } from '../ui/RichText.tsx'
import { Skeleton } from '../ui/Skeleton.tsx'
import { formatBytes, formatScore, Time } from '../ui/time.tsx'
import { useDraft, useDraftStorageKey, writeDraft } from '../ui/useDraft.ts'
import { addedAfter, isSubmittable, myExperimentsKey, useNow } from './data.ts'
import { useReadOnly } from '../ui/readOnly.tsx'
import { useTaskDisclosure } from './focus.tsx'
import { WORKSPACE } from './messages.ts'
import { RubricView } from './RubricView.tsx'
import { LtiLaunch } from '../lti/Lti.tsx'
import { LTI } from '../lti/messages.ts'
import { SubmitButton } from '../ui/form.tsx'
import { Feedback } from './Feedback.tsx'

export function taskTypeLabel(t: Task) {
  if (t.taskType === 'QUIZ') return translate(`${WORKSPACE}:type.quiz`)
  if (t.taskType === 'LTI') return translate(`${LTI}:taskType`)
  return translate(`${WORKSPACE}:type.${t.materialType === 'LINK' ? 'link' : t.materialType === 'FILE' ? 'file' : 'text'}`)
}

export const isHttpUrl = (u: string | null | undefined): u is string => !!u && /^https?:\/\//i.test(u)

/** One task as a disclosure: the summary names it, the body loads only when opened. */
export function TaskCard({ task, courseId, isTeacher, extraSummary }: { task: Task; courseId: string; isTeacher: boolean; extraSummary?: ReactNode }) {
  const { t } = useT(WORKSPACE)
  const ref = useRef<HTMLDetailsElement>(null)
  const [open, setOpen] = useTaskDisclosure(task.id, ref)
  return (
    <details ref={ref} className="task" data-task-id={task.id} open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span className="task-title">{task.title}</span>
        <span className="task-tags">
          {task.taskKind === 'HOMEWORK' && <Badge tone="warn">{t('type.homework')}</Badge>}
          <Badge>{taskTypeLabel(task)}</Badge>
          {extraSummary}
        </span>
      </summary>
      {open && <TaskBody task={task} courseId={courseId} isTeacher={isTeacher} />}
    </details>
  )
}

/** `status`: the server's homework status, when known (it wins over this device's clock for "opens in"). */
export function TaskBody({ task, courseId, isTeacher, status }: { task: Task; courseId: string; isTeacher: boolean; status?: HomeworkStatus }) {
  const { t } = useT(WORKSPACE)
  const me = useMe()
  return (
    <div className="task-body">
      {task.taskKind === 'HOMEWORK' && (
        <p className="meta">
          {t('task.opens')} <Time iso={task.startAt} /> · {t('task.due')} <Time iso={task.dueAt} />
        </p>
      )}
      <RichText html={task.content} />
      {task.taskType === 'MEDIA' && task.materialType === 'LINK' && isHttpUrl(task.url) && (
        <p>
          <a href={task.url} target="_blank" rel="noopener noreferrer">
            {t('task.openLink')} <span className="sr-only">{t('newTab')}</span>
          </a>
        </p>
      )}
      {task.taskType === 'MEDIA' && task.materialType === 'FILE' && task.resourceId && <TaskFile courseId={courseId} resourceId={task.resourceId} />}
      {task.taskType === 'LTI' && <LtiLaunch courseId={courseId} taskId={task.id} toolId={task.lti?.toolId ?? null} />}
      {isTeacher ? <TeacherTaskView task={task} courseId={courseId} /> : <StudentTaskView task={task} courseId={courseId} status={status} />}
      <TaskLink courseId={courseId} taskId={task.id} />
      <ClassComments courseId={courseId} isTeacher={isTeacher} on={{ taskId: task.id }} />
      {!isTeacher && me.data && <PrivateComments courseId={courseId} taskId={task.id} studentId={me.data.id} isTeacher={false} />}
    </div>
  )
}

/**
 * A link to this task that names no module (issue 29.10): the workspace opens it in whichever
 * enabled view holds the task, so it keeps working when the teacher turns a module off.
 */
function TaskLink({ courseId, taskId }: { courseId: string; taskId: string }) {
  const { t } = useT(WORKSPACE)
  const path = `/courses/${courseId}?taskId=${taskId}`
  return (
    <p className="meta task-link">
      <Link to={path} data-testid="task-link">
        {t('task.link')}
      </Link>{' '}
      <CopyButton value={`${window.location.origin}${path}`} label={t('task.copyLink')} />
    </p>
  )
}

/** A material's file: shown in place when it is a picture, PDF, audio or video (a video task plays here). */
function TaskFile({ courseId, resourceId }: { courseId: string; resourceId: string }) {
  const { t } = useT(WORKSPACE)
  const resources = useResources(courseId)
  const r = resources.data?.find((x) => x.id === resourceId)
  const url = `${API_BASE}/resources/${resourceId}/file`
  if (!r)
    return (
      <p>
        <a href={url} download>
          {t('task.downloadFile')}
        </a>
      </p>
    )
  const playable = /^(video|audio)\//.test(r.contentType ?? '')
  return <FilePreview url={url} name={r.fileName ?? r.name} contentType={r.contentType} open={playable} />
}

function TeacherTaskView({ task, courseId }: { task: Task; courseId: string }) {
  const { t } = useT(WORKSPACE)
  return (
    <>
      {task.taskType === 'QUIZ' && <QuestionList questions={task.questions ?? []} />}
      {isSubmittable(task) && (
        <p>
          <Link to={`/courses/${courseId}/manage?tab=grading&taskId=${task.id}`}>{t('task.gradeSubmissions')}</Link>
        </p>
      )}
    </>
  )
}

/** The questions with the answer key, for the teacher. */
export function QuestionList({ questions }: { questions: Question[] }) {
  const { t } = useT(WORKSPACE)
  return (
    <ol className="questions">
      {questions.map((q) => (
        <li key={q.id}>
          <p>
            {q.stem} <span className="meta">{t('quiz.points', { count: q.points ?? 1 })}</span>
          </p>
          {q.options && q.options.length > 0 && (
            <ul>
              {q.options.map((o, i) => (
                <li key={i}>
                  {o} {q.correctOptions?.includes(i) && <Badge tone="ok">{t('quiz.correct')}</Badge>}
                </li>
              ))}
            </ul>
          )}
          {q.type === 'SHORT_ANSWER' && <p className="meta">{t('quiz.shortAnswerNote')}</p>}
        </li>
      ))}
    </ol>
  )
}

/** "Opens in 3 hours, on 23 Nov 2026, 12:08", or null once the homework is open. */
export function useOpensIn(startAt: string | null | undefined) {
  const now = useNow()
  const start = startAt ? new Date(startAt).getTime() : NaN
  if (!Number.isFinite(start) || start <= now) return null
  return translate(`${WORKSPACE}:task.opensIn`, { relative: formatRelative((start - now) / 1000), date: formatDateTime(startAt) })
}

function StudentTaskView({ task, courseId, status }: { task: Task; courseId: string; status?: HomeworkStatus }) {
  // An LTI task's work is done in the tool, which sends the score (docs/lti.md).
  if (!isSubmittable(task) || task.taskType === 'LTI') return null
  return <StudentAnswer task={task} courseId={courseId} status={status} />
}

function StudentAnswer({ task, courseId, status }: { task: Task; courseId: string; status?: HomeworkStatus }) {
  const { t } = useT(WORKSPACE)
  const subs = useTaskSubmissions(courseId, task.id)
  const opensIn = useOpensIn(task.taskKind === 'HOMEWORK' && (status == null || status === 'NOT_STARTED') ? task.startAt : null)
  const [again, setAgain] = useState(false)
  const [sent, setSent] = useState<LearningSubmission | null>(null)
  const readOnly = useReadOnly()
  const now = useNow()
  const pastDue = task.taskKind === 'HOMEWORK' && task.dueAt != null && Date.parse(task.dueAt) <= now
  const done = (s: LearningSubmission) => {
    setAgain(false)
    setSent(s)
  }
  if (opensIn)
    return (
      <p className="notice notice-info" data-testid="opens-in">
        {opensIn}
      </p>
    )
  if (subs.isPending) return <Skeleton lines={2} />
  if (subs.error) return <Failure error={subs.error} onRetry={() => void subs.refetch()} what="task" />
  const latest = subs.data[0]
  // An archived course takes nothing (issue 56.3): what was handed in stays readable, no form.
  if (readOnly)
    return (
      <>
        {task.rubric && <RubricView rubric={task.rubric} choices={latest?.rubricChoices ?? []} />}
        {latest && <SubmissionSummary submission={latest} questions={task.questions ?? []} attempts={subs.data.length} />}
        <p className="notice notice-info" data-testid="archived-no-hand-in">
          {t('answer.archived')}
        </p>
      </>
    )
  const form = !latest || again
  return (
    <>
      {/* The rubric before handing in; the levels picked once a grade by it is released (issue 54). */}
      {task.rubric && <RubricView rubric={task.rubric} choices={latest?.rubricChoices ?? []} />}
      {sent && (
        <p className="notice notice-success" role="status" data-testid="quiz-result">
          {[sent.late ? t('answer.sentLate') : t('answer.sent'), task.taskType === 'QUIZ' ? quizOutcome(sent, task.questions ?? []) : ''].filter(Boolean).join(' ')}
        </p>
      )}
      {latest && <SubmissionSummary submission={latest} questions={task.questions ?? []} attempts={subs.data.length} />}
      {/* Issue 56.5c: the warning the experiment page gives, before the hand-in. */}
      {form && pastDue && (
        <p className="notice notice-info" role="status" data-testid="late-warning">
          {t('answer.late')}
        </p>
      )}
      {latest && !again ? (
        <p>
          <button type="button" className="btn" onClick={() => setAgain(true)} data-testid="submit-again">
            {t('answer.submitAgain')}
          </button>
        </p>
      ) : task.taskType === 'QUIZ' ? (
        <QuizForm task={task} courseId={courseId} again={Boolean(latest)} onDone={done} />
      ) : (
        <TextAnswerForm task={task} courseId={courseId} again={Boolean(latest)} onDone={done} />
      )}
    </>
  )
}

/**
 * What a hand-in of a quiz says (issue 29.10): the choice questions' points out of theirs, not
 * "100 / 100" when they are 4 of 10 points, and that the short answers still wait.
 */
function quizOutcome(s: LearningSubmission, questions: Question[]): string {
  const choice = questions.filter((q) => q.type !== 'SHORT_ANSWER')
  const total = choice.reduce((n, q) => n + q.points, 0)
  const earned = Math.round(((s.autoScore ?? 0) * total) / 100 * 100) / 100
  const points = { earned: formatScore(earned), total: formatScore(total) }
  if (s.status === 'GRADED' && s.score != null) return translate(`${WORKSPACE}:answer.allChoice`, { ...points, score: formatScore(s.score) })
  if (choice.length === 0 || s.autoScore == null) return translate(`${WORKSPACE}:answer.teacherGrades`)
  return translate(`${WORKSPACE}:answer.choicePoints`, points)
}

/** What the student handed in last, with its scores and the teacher's feedback. */
export function SubmissionSummary({ submission: s, questions, attempts }: { submission: LearningSubmission; questions: Question[]; attempts?: number }) {
  const { t } = useT(WORKSPACE)
  return (
    <div className="submission" data-testid="my-submission">
      <p className="submission-head">
        <strong>{t('submission.latest')}</strong> · <Time iso={s.submittedAt} />{' '}
        {s.status === 'GRADED' ? <Badge tone="ok">{t('submission.graded')}</Badge> : <Badge tone="info">{t('submission.waiting')}</Badge>}
        {s.late && <Badge tone="danger">{t('submission.late')}</Badge>}
        {attempts && attempts > 1 ? <span className="meta"> · {t('submission.attempts', { count: attempts })}</span> : null}
      </p>
      <dl className="scores">
        {s.autoScore != null && (
          <div>
            <dt>{t('submission.autoScore')}</dt>
            <dd data-testid="auto-score">{t('submission.outOf100', { score: formatScore(s.autoScore) })}</dd>
          </div>
        )}
        <div>
          <dt>{t('submission.score')}</dt>
          <dd data-testid="score">{s.score == null ? t('submission.notGraded') : t('submission.outOf100', { score: formatScore(s.score) })}</dd>
        </div>
      </dl>
      <Feedback html={s.feedback} />
      {s.answers && s.answers.length > 0 && <AnswerList answers={s.answers} questions={questions} results={s.questionResults} submittedAt={s.submittedAt} />}
      {s.content && (
        <div>
          <p className="label">{t('submission.yourAnswer')}</p>
          <RichText html={s.content} />
        </div>
      )}
      <HandedInFiles files={s.files} />
    </div>
  )
}

/** The answers, question by question; with `results` (a graded sheet) what each one earned. */
export function AnswerList({
  answers,
  questions,
  results = [],
  submittedAt,
}: {
  answers: Answer[]
  questions: Question[]
  results?: LearningSubmission['questionResults']
  /** When the sheet was handed in: questions added later are marked as such, not as wrong. */
  submittedAt?: string
}) {
  const { t } = useT(WORKSPACE)
  return (
    <ol className="answers">
      {questions.map((q) => {
        const a = answers.find((x) => x.questionId === q.id)
        const result = results.find((r) => r.questionId === q.id)
        if (result?.addedAfterSubmission || (submittedAt && addedAfter(q, submittedAt)))
          return (
            <li key={q.id}>
              <span className="answer-stem">{q.stem}</span> <Badge tone="info">{t('quiz.addedLater')}</Badge>
            </li>
          )
        const chosen = (a?.selectedOptions ?? []).map((i) => q.options?.[i] ?? t('quiz.option', { n: i + 1 }))
        const correct = q.correctOptions
        const right = correct && q.type !== 'SHORT_ANSWER' ? sameSet(correct, a?.selectedOptions ?? []) : null
        return (
          <li key={q.id}>
            <span className="answer-stem">{q.stem}</span>{' '}
            <span className="answer-value">{q.type === 'SHORT_ANSWER' ? a?.text || t('quiz.noAnswer') : chosen.length ? chosen.join(', ') : t('quiz.noAnswer')}</span>
            {right != null && <Badge tone={right ? 'ok' : 'danger'}>{right ? t('quiz.right') : t('quiz.wrong')}</Badge>}
            <QuestionResult result={results.find((r) => r.questionId === q.id)} />
          </li>
        )
      })}
    </ol>
  )
}

function QuestionResult({ result }: { result: LearningSubmission['questionResults'][number] | undefined }) {
  const { t } = useT(WORKSPACE)
  if (!result) return null
  const points = { earned: result.earned == null ? '' : formatScore(result.earned), total: formatScore(result.points) }
  const tone = result.earned == null ? 'info' : result.earned >= result.points ? 'ok' : result.earned > 0 ? 'warn' : 'danger'
  return (
    <span className="question-result" data-testid="question-result">
      {' '}
      <Badge tone={tone}>{result.earned == null ? t('quiz.inOverall', points) : t('quiz.earned', points)}</Badge>
    </span>
  )
}

const sameSet = (a: number[], b: number[]) => a.length === b.length && a.every((x) => b.includes(x))

/** A fresh key per hand-in attempt; crypto.randomUUID needs a secure context, getRandomValues does not. */
function attemptKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')
}

type SubmitBody = { answers: Answer[] } | { content: string }

/** The hand-in as multipart/form-data (issue 29.7): the answer next to the files. */
function handInForm(body: SubmitBody, files: File[]): FormData {
  const form = new FormData()
  if ('answers' in body) form.set('answers', JSON.stringify(body.answers))
  else if (body.content.trim()) form.set('content', body.content)
  for (const f of files) form.append('files', f)
  return form
}

/** Homework takes files: a picker under the answer, and what goes wrong with them in the reader's words. */
function useHandInFiles(task: Task, onChange: () => void) {
  const [files, setFiles] = useState<File[]>([])
  const [problem, setProblem] = useState<string>()
  return {
    enabled: task.taskKind === 'HOMEWORK',
    files,
    problem,
    set(next: File[], why?: string) {
      onChange()
      setFiles(next)
      setProblem(why)
    },
    clear() {
      setFiles([])
      setProblem(undefined)
    },
  }
}

/** A 413 names the server's limit: said with it, in the reader's language. */
function filesError(error: unknown): string | undefined {
  if (!isStatus(error, 413)) return undefined
  const limit = Number(((error as ApiError).data as { limitBytes?: number } | null)?.limitBytes)
  return translate('shell:files.tooLarge', { limit: Number.isFinite(limit) && limit > 0 ? formatBytes(limit) : '—' })
}

function HandInFiles({ picker, pending, progress }: { picker: ReturnType<typeof useHandInFiles>; pending: boolean; progress: number | null }) {
  const { t } = useT(WORKSPACE)
  if (!picker.enabled) return null
  return (
    <>
      <FilesPicker label={t('answer.files')} files={picker.files} onChange={(f, why) => picker.set(f, why)} error={picker.problem} disabled={pending} />
      {progress != null && (
        <p className="meta" role="status">
          {t('answer.uploading', { percent: Math.round(progress * 100) })}
        </p>
      )}
    </>
  )
}

/**
 * One click, one submission (issue 29.4): a second submit while one is on its way is ignored
 * (a ref, not state: a double click lands before React re-renders the disabled button), and each
 * attempt carries an Idempotency-Key that is kept for retries of the same answer, so a resend
 * after a lost response returns the first submission instead of making another. Changing the
 * answer (`changed`) or a success starts a new attempt.
 */
function useSubmit(task: Task, courseId: string) {
  const queryClient = useQueryClient()
  const attempt = useRef<string | null>(null)
  const sending = useRef(false)
  const [progress, setProgress] = useState<number | null>(null)
  const mutation = useMutation({
    mutationFn: ({ body, files, key }: { body: SubmitBody; files: File[]; key: string }) => {
      const path = `/courses/${courseId}/learning/tasks/${task.id}/submissions`
      // With files: the same hand-in as multipart, with the same Idempotency-Key rule.
      return files.length
        ? upload<LearningSubmission>(path, handInForm(body, files), setProgress, { 'idempotency-key': key })
        : api<LearningSubmission>('POST', path, body, { headers: { 'idempotency-key': key } })
    },
    onSuccess: (s) => {
      attempt.current = null
      queryClient.setQueryData<LearningSubmission[]>(keys.taskSubmissions(courseId, task.id), (old) => [s, ...(old ?? []).filter((x) => x.id !== s.id)])
      void queryClient.invalidateQueries({ queryKey: keys.homeworks })
      void queryClient.invalidateQueries({ queryKey: keys.learningOverview(courseId) })
      void queryClient.invalidateQueries({ queryKey: myExperimentsKey(courseId) })
    },
    onSettled: () => {
      sending.current = false
      setProgress(null)
    },
  })
  function send(body: SubmitBody, onDone: (s: LearningSubmission) => void, files: File[] = []) {
    if (sending.current) return
    sending.current = true
    attempt.current ??= attemptKey()
    mutation.mutate({ body, files, key: attempt.current }, { onSuccess: onDone })
  }
  const changed = () => {
    attempt.current = null
  }
  return { send, changed, progress, isPending: mutation.isPending, error: mutation.error }
}

type QuizAnswers = Record<string, { selected: number[]; text: string }>

function QuizForm({ task, courseId, again, onDone }: { task: Task; courseId: string; again: boolean; onDone: (s: LearningSubmission) => void }) {
  const { t } = useT(WORKSPACE)
  const questions = task.questions ?? []
  const [answers, setAnswers, clearDraft] = useDraft<QuizAnswers>(`task:${task.id}:answers`, {})
  const [missing, setMissing] = useState<string[]>([])
  const submit = useSubmit(task, courseId)
  const picker = useHandInFiles(task, submit.changed)
  const val = (id: string) => answers[id] ?? { selected: [], text: '' }
  const update = (id: string, v: Partial<{ selected: number[]; text: string }>) => {
    submit.changed()
    setAnswers({ ...answers, [id]: { ...val(id), ...v } })
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault()
    const gaps = questions.filter((q) => (q.type === 'SHORT_ANSWER' ? !val(q.id).text.trim() : val(q.id).selected.length === 0)).map((q) => q.id)
    setMissing(gaps)
    if (gaps.length) return
    submit.send(
      {
        answers: questions.map((q) =>
          q.type === 'SHORT_ANSWER' ? { questionId: q.id, text: val(q.id).text.trim() } : { questionId: q.id, selectedOptions: val(q.id).selected },
        ),
      },
      (s) => {
        clearDraft()
        picker.clear()
        onDone(s)
      },
      picker.files,
    )
  }

  return (
    <form className="quiz" onSubmit={onSubmit} noValidate aria-label={t('quiz.formLabel', { title: task.title })}>
      {questions.map((q, n) => (
        <fieldset key={q.id} className="question" aria-describedby={missing.includes(q.id) ? `${q.id}-missing` : undefined}>
          <legend>
            {n + 1}. {q.stem} <span className="meta">{t('quiz.pt', { count: q.points ?? 1 })}</span>
          </legend>
          {q.type === 'SHORT_ANSWER' ? (
            <div className="field">
              <label htmlFor={`${task.id}-${q.id}-text`}>{t('submission.yourAnswer')}</label>
              <textarea id={`${task.id}-${q.id}-text`} rows={3} value={val(q.id).text} onChange={(e) => update(q.id, { text: e.target.value })} />
            </div>
          ) : (
            (q.options ?? []).map((o, i) => {
              const id = `${task.id}-${q.id}-${i}`
              const checked = val(q.id).selected.includes(i)
              return (
                <div className="check" key={i}>
                  <input
                    id={id}
                    type={q.type === 'SINGLE_CHOICE' ? 'radio' : 'checkbox'}
                    name={`${task.id}-${q.id}`}
                    checked={checked}
                    onChange={(e) =>
                      update(q.id, {
                        selected:
                          q.type === 'SINGLE_CHOICE'
                            ? [i]
                            : e.target.checked
                              ? [...val(q.id).selected, i].sort((a, b) => a - b)
                              : val(q.id).selected.filter((x) => x !== i),
                      })
                    }
                  />
                  <label htmlFor={id}>{o}</label>
                </div>
              )
            })
          )}
          {q.type === 'MULTIPLE_CHOICE' && <p className="hint">{t('quiz.chooseEvery')}</p>}
          {missing.includes(q.id) && (
            <p className="field-error" id={`${q.id}-missing`}>
              {t('quiz.answerThis')}
            </p>
          )}
        </fieldset>
      ))}
      <HandInFiles picker={picker} pending={submit.isPending} progress={submit.progress} />
      {submit.error && (filesError(submit.error) ? <p className="notice notice-error" role="alert">{filesError(submit.error)}</p> : <ErrorNotice error={submit.error} />)}
      <SubmitButton pending={submit.isPending} pendingLabel={t('quiz.submitting')} label={again ? t('answer.submitAgain') : t('quiz.submit')} />
    </form>
  )
}

function TextAnswerForm({ task, courseId, again, onDone }: { task: Task; courseId: string; again: boolean; onDone: (s: LearningSubmission) => void }) {
  const { t } = useT(WORKSPACE)
  const [content, setContent] = useState('')
  const [error, setError] = useState<string>()
  const submit = useSubmit(task, courseId)
  const picker = useHandInFiles(task, submit.changed)
  const draftKey = `task:${task.id}:content`
  const draftStorage = useDraftStorageKey(draftKey)
  function onSubmit(e: FormEvent) {
    e.preventDefault()
    // With files, the text is optional (a photographed page is the answer).
    if (!content.trim() && !picker.files.length) return setError(picker.enabled ? t('answer.requiredOrFile') : t('answer.required'))
    setError(undefined)
    submit.send(
      { content },
      (s) => {
        // The form closes now, so the editor never sees the reset: drop the draft here.
        writeDraft(draftStorage, undefined)
        setContent('')
        picker.clear()
        onDone(s)
      },
      picker.files,
    )
  }
  return (
    <form className="answer-form" onSubmit={onSubmit} noValidate>
      <RichEditor
        label={t('submission.yourAnswer')}
        value={content}
        onChange={(v) => {
          if (v !== content) submit.changed()
          setContent(v)
        }}
        error={error}
        draftKey={draftKey}
      />
      <HandInFiles picker={picker} pending={submit.isPending} progress={submit.progress} />
      {submit.error && (filesError(submit.error) ? <p className="notice notice-error" role="alert">{filesError(submit.error)}</p> : <ErrorNotice error={submit.error} />)}
      <SubmitButton pending={submit.isPending} pendingLabel={t('answer.handingIn')} label={again ? t('answer.handInAgain') : t('answer.handIn')} />
    </form>
  )
}
