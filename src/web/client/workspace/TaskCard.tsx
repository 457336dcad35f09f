import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useRef, useState, type FormEvent, type ReactNode } from 'react'
import { Link } from 'react-router'
import { api, API_BASE } from '../api.ts'
import { keys, useTaskSubmissions } from '../queries.ts'
import type { Answer, LearningSubmission, Question, Task } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { ErrorNotice, Loading } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { RichText } from '../ui/RichText.tsx'
import { formatScore, Time } from '../ui/time.tsx'
import { useTaskDisclosure } from './focus.tsx'

export function taskTypeLabel(t: Task) {
  if (t.taskType === 'QUIZ') return 'Quiz'
  return t.materialType === 'LINK' ? 'Link' : t.materialType === 'FILE' ? 'File' : 'Text'
}

export const isHttpUrl = (u: string | null | undefined): u is string => !!u && /^https?:\/\//i.test(u)

/** One task as a disclosure: the summary names it, the body loads only when opened. */
export function TaskCard({
  task,
  courseId,
  isTeacher,
  extraSummary,
}: {
  task: Task
  courseId: string
  isTeacher: boolean
  extraSummary?: ReactNode
}) {
  const ref = useRef<HTMLDetailsElement>(null)
  const [open, setOpen] = useTaskDisclosure(task.id, ref)
  return (
    <details ref={ref} className="task" data-task-id={task.id} open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span className="task-title">{task.title}</span>
        <span className="task-tags">
          {task.taskKind === 'HOMEWORK' && <Badge tone="warn">Homework</Badge>}
          <Badge>{taskTypeLabel(task)}</Badge>
          {extraSummary}
        </span>
      </summary>
      {open && <TaskBody task={task} courseId={courseId} isTeacher={isTeacher} />}
    </details>
  )
}

export function TaskBody({ task, courseId, isTeacher }: { task: Task; courseId: string; isTeacher: boolean }) {
  return (
    <div className="task-body">
      {task.taskKind === 'HOMEWORK' && (
        <p className="meta">
          Opens <Time iso={task.startAt} /> · Due <Time iso={task.dueAt} />
        </p>
      )}
      <RichText html={task.content} />
      {task.taskType === 'MEDIA' && task.materialType === 'LINK' && isHttpUrl(task.url) && (
        <p>
          <a href={task.url} target="_blank" rel="noopener noreferrer">
            Open the link <span className="sr-only">(opens in a new tab)</span>
          </a>
        </p>
      )}
      {task.taskType === 'MEDIA' && task.materialType === 'FILE' && task.resourceId && (
        <p>
          <a href={`${API_BASE}/resources/${task.resourceId}/file`} download>
            Download the file
          </a>
        </p>
      )}
      {isTeacher ? <TeacherTaskView task={task} courseId={courseId} /> : <StudentTaskView task={task} courseId={courseId} />}
    </div>
  )
}

function TeacherTaskView({ task, courseId }: { task: Task; courseId: string }) {
  return (
    <>
      {task.taskType === 'QUIZ' && <QuestionList questions={task.questions ?? []} />}
      <p>
        <Link to={`/courses/${courseId}/manage?tab=grading&taskId=${task.id}`}>See and grade submissions</Link>
      </p>
    </>
  )
}

/** The questions with the answer key, for the teacher. */
export function QuestionList({ questions }: { questions: Question[] }) {
  return (
    <ol className="questions">
      {questions.map((q) => (
        <li key={q.id}>
          <p>
            {q.stem} <span className="meta">({q.points ?? 1} {q.points === 1 || q.points == null ? 'point' : 'points'})</span>
          </p>
          {q.options && q.options.length > 0 && (
            <ul>
              {q.options.map((o, i) => (
                <li key={i}>
                  {o} {q.correctOptions?.includes(i) && <Badge tone="ok">correct</Badge>}
                </li>
              ))}
            </ul>
          )}
          {q.type === 'SHORT_ANSWER' && <p className="meta">Short answer, graded by the teacher.</p>}
        </li>
      ))}
    </ol>
  )
}

function StudentTaskView({ task, courseId }: { task: Task; courseId: string }) {
  const subs = useTaskSubmissions(courseId, task.id)
  const latest = subs.data?.[0]
  const answerable = task.taskType === 'QUIZ' || task.taskKind === 'HOMEWORK'
  return (
    <>
      {subs.isPending && <Loading label="Loading your submissions…" />}
      {subs.error && <ErrorNotice error={subs.error} onRetry={() => void subs.refetch()} />}
      {latest && <SubmissionSummary submission={latest} questions={task.questions ?? []} attempts={subs.data!.length} />}
      {answerable && !subs.isPending && (
        <>
          {task.taskType === 'QUIZ' ? (
            <QuizForm task={task} courseId={courseId} again={Boolean(latest)} />
          ) : (
            <TextAnswerForm task={task} courseId={courseId} again={Boolean(latest)} />
          )}
        </>
      )}
    </>
  )
}

/** What the student handed in last, with its scores and the teacher's feedback. */
export function SubmissionSummary({ submission: s, questions, attempts }: { submission: LearningSubmission; questions: Question[]; attempts?: number }) {
  return (
    <div className="submission" data-testid="my-submission">
      <p className="submission-head">
        <strong>Your latest submission</strong> · <Time iso={s.submittedAt} />{' '}
        {s.status === 'GRADED' ? <Badge tone="ok">Graded</Badge> : <Badge tone="info">Waiting for grading</Badge>}
        {s.late && <Badge tone="danger">Late</Badge>}
        {attempts && attempts > 1 ? <span className="meta"> · {attempts} attempts</span> : null}
      </p>
      <dl className="scores">
        {s.autoScore != null && (
          <div>
            <dt>Auto score</dt>
            <dd data-testid="auto-score">{formatScore(s.autoScore)} / 100</dd>
          </div>
        )}
        <div>
          <dt>Score</dt>
          <dd data-testid="score">{s.score == null ? 'not graded yet' : `${formatScore(s.score)} / 100`}</dd>
        </div>
      </dl>
      {s.feedback && (
        <div className="feedback">
          <p className="label">Feedback from your teacher</p>
          <RichText html={s.feedback} />
        </div>
      )}
      {s.answers && s.answers.length > 0 && <AnswerList answers={s.answers} questions={questions} />}
      {s.content && (
        <div>
          <p className="label">Your answer</p>
          <RichText html={s.content} />
        </div>
      )}
    </div>
  )
}

export function AnswerList({ answers, questions }: { answers: Answer[]; questions: Question[] }) {
  return (
    <ol className="answers">
      {questions.map((q) => {
        const a = answers.find((x) => x.questionId === q.id)
        const chosen = (a?.selectedOptions ?? []).map((i) => q.options?.[i] ?? `option ${i + 1}`)
        const correct = q.correctOptions
        const right = correct && q.type !== 'SHORT_ANSWER' ? sameSet(correct, a?.selectedOptions ?? []) : null
        return (
          <li key={q.id}>
            <span className="answer-stem">{q.stem}</span>{' '}
            <span className="answer-value">
              {q.type === 'SHORT_ANSWER' ? a?.text || '(no answer)' : chosen.length ? chosen.join(', ') : '(no answer)'}
            </span>
            {right != null && <Badge tone={right ? 'ok' : 'danger'}>{right ? 'right' : 'wrong'}</Badge>}
          </li>
        )
      })}
    </ol>
  )
}

const sameSet = (a: number[], b: number[]) => a.length === b.length && a.every((x) => b.includes(x))

function useSubmit(task: Task, courseId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (body: { answers: Answer[] } | { content: string }) =>
      api<LearningSubmission>('POST', `/courses/${courseId}/learning/tasks/${task.id}/submissions`, body),
    onSuccess: (s) => {
      queryClient.setQueryData<LearningSubmission[]>(keys.taskSubmissions(courseId, task.id), (old) => [s, ...(old ?? [])])
      void queryClient.invalidateQueries({ queryKey: keys.homeworks })
      void queryClient.invalidateQueries({ queryKey: keys.learningOverview(courseId) })
    },
  })
}

function QuizForm({ task, courseId, again }: { task: Task; courseId: string; again: boolean }) {
  const questions = task.questions ?? []
  const [answers, setAnswers] = useState<Record<string, { selected: number[]; text: string }>>({})
  const [missing, setMissing] = useState<string[]>([])
  const submit = useSubmit(task, courseId)
  const val = (id: string) => answers[id] ?? { selected: [], text: '' }
  const update = (id: string, v: Partial<{ selected: number[]; text: string }>) => setAnswers((a) => ({ ...a, [id]: { ...val(id), ...v } }))

  function onSubmit(e: FormEvent) {
    e.preventDefault()
    const gaps = questions.filter((q) => (q.type === 'SHORT_ANSWER' ? !val(q.id).text.trim() : val(q.id).selected.length === 0)).map((q) => q.id)
    setMissing(gaps)
    if (gaps.length) return
    submit.mutate({
      answers: questions.map((q) =>
        q.type === 'SHORT_ANSWER' ? { questionId: q.id, text: val(q.id).text.trim() } : { questionId: q.id, selectedOptions: val(q.id).selected },
      ),
    })
  }

  return (
    <form className="quiz" onSubmit={onSubmit} noValidate aria-label={`Answer ${task.title}`}>
      {questions.map((q, n) => (
        <fieldset key={q.id} className="question" aria-describedby={missing.includes(q.id) ? `${q.id}-missing` : undefined}>
          <legend>
            {n + 1}. {q.stem} <span className="meta">({q.points ?? 1} pt)</span>
          </legend>
          {q.type === 'SHORT_ANSWER' ? (
            <div className="field">
              <label htmlFor={`${task.id}-${q.id}-text`}>Your answer</label>
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
          {q.type === 'MULTIPLE_CHOICE' && <p className="hint">Choose every correct option.</p>}
          {missing.includes(q.id) && (
            <p className="field-error" id={`${q.id}-missing`}>
              Answer this question.
            </p>
          )}
        </fieldset>
      ))}
      {submit.error && <ErrorNotice error={submit.error} />}
      <button type="submit" className="btn btn-primary" disabled={submit.isPending}>
        {submit.isPending ? 'Submitting…' : again ? 'Submit again' : 'Submit answers'}
      </button>
      {submit.isSuccess && (
        <p className="notice notice-success" role="status" data-testid="quiz-result">
          Submitted.{' '}
          {submit.data.autoScore != null ? `Auto score: ${formatScore(submit.data.autoScore)} / 100.` : ''}{' '}
          {submit.data.status === 'GRADED' ? 'Your score is final.' : 'Your teacher will grade the written answers.'}
        </p>
      )}
    </form>
  )
}

function TextAnswerForm({ task, courseId, again }: { task: Task; courseId: string; again: boolean }) {
  const [content, setContent] = useState('')
  const [error, setError] = useState<string>()
  const submit = useSubmit(task, courseId)
  function onSubmit(e: FormEvent) {
    e.preventDefault()
    if (!content.trim()) return setError('Write your answer before handing it in.')
    setError(undefined)
    submit.mutate({ content }, { onSuccess: () => setContent('') })
  }
  return (
    <form className="answer-form" onSubmit={onSubmit} noValidate>
      <RichEditor label="Your answer" value={content} onChange={setContent} error={error} />
      {submit.error && <ErrorNotice error={submit.error} />}
      <button type="submit" className="btn btn-primary" disabled={submit.isPending}>
        {submit.isPending ? 'Handing in…' : again ? 'Hand in again' : 'Hand in'}
      </button>
      {submit.isSuccess && (
        <p className="notice notice-success" role="status">
          Handed in{submit.data.late ? ' (after the due time, marked late)' : ''}.
        </p>
      )}
    </form>
  )
}
