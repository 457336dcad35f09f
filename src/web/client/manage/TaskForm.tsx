import { useState, type FormEvent } from 'react'
import { useResources } from '../queries.ts'
import type { MaterialType, QuestionType, Task, TaskKind, TaskType } from '../types.ts'
import { Checkbox, RadioGroup, SelectField, TextField } from '../ui/form.tsx'
import { ErrorNotice } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { fromLocalInput, toLocalInput } from '../ui/time.tsx'

interface QuestionDraft {
  key: string
  type: QuestionType
  stem: string
  options: string[]
  correctOptions: number[]
  points: string
}

export interface TaskDraft {
  title: string
  taskKind: TaskKind
  taskType: TaskType
  materialType: MaterialType
  content: string
  url: string
  resourceId: string
  questions: QuestionDraft[]
  startAt: string
  dueAt: string
  notifyOnStart: boolean
  notifyBeforeDue24h: boolean
  notifyOnDue: boolean
}

let seq = 0
const newQuestion = (type: QuestionType = 'SINGLE_CHOICE'): QuestionDraft => ({
  key: `q${++seq}`,
  type,
  stem: '',
  options: type === 'SHORT_ANSWER' ? [] : ['', ''],
  correctOptions: [],
  points: '1',
})

export function draftOf(task?: Task): TaskDraft {
  const now = Date.now()
  return {
    title: task?.title ?? '',
    taskKind: task?.taskKind ?? 'LEARNING',
    taskType: task?.taskType ?? 'MEDIA',
    materialType: task?.materialType ?? 'TEXT',
    content: task?.content ?? '',
    url: task?.url ?? '',
    resourceId: task?.resourceId ?? '',
    questions: (task?.questions ?? []).map((q) => ({
      key: `q${++seq}`,
      type: q.type,
      stem: q.stem,
      options: q.options ?? [],
      correctOptions: q.correctOptions ?? [],
      points: String(q.points ?? 1),
    })),
    startAt: toLocalInput(task?.startAt ?? new Date(now).toISOString()),
    dueAt: toLocalInput(task?.dueAt ?? new Date(now + 7 * 86400_000).toISOString()),
    notifyOnStart: task?.notifyOnStart ?? true,
    notifyBeforeDue24h: task?.notifyBeforeDue24h ?? true,
    notifyOnDue: task?.notifyOnDue ?? true,
  }
}

/** Checks a draft against the contract's rules; returns the problems, keyed for display. */
export function validateDraft(d: TaskDraft): Record<string, string> {
  const e: Record<string, string> = {}
  if (!d.title.trim()) e.title = 'Give the task a title.'
  if (d.taskType === 'MEDIA') {
    if (d.materialType === 'LINK' && !/^https?:\/\/\S+$/i.test(d.url.trim())) e.url = 'Enter a web address starting with http:// or https://.'
    if (d.materialType === 'FILE' && !d.resourceId) e.resourceId = 'Choose a file resource (upload one under Resources first).'
    if (d.materialType === 'TEXT' && !d.content.trim()) e.content = 'Write the text students should read.'
  } else {
    if (d.questions.length === 0) e.questions = 'Add at least one question.'
    d.questions.forEach((q, i) => {
      const at = `Question ${i + 1}`
      if (!q.stem.trim()) e[`q${i}`] = `${at}: write the question.`
      else if (q.type !== 'SHORT_ANSWER') {
        if (q.options.filter((o) => o.trim()).length < 2 || q.options.some((o) => !o.trim())) e[`q${i}`] = `${at}: give at least two options, none empty.`
        else if (q.type === 'SINGLE_CHOICE' && q.correctOptions.length !== 1) e[`q${i}`] = `${at}: mark exactly one correct option.`
        else if (q.type === 'MULTIPLE_CHOICE' && q.correctOptions.length === 0) e[`q${i}`] = `${at}: mark at least one correct option.`
      }
      const pts = Number(q.points)
      if (!e[`q${i}`] && (!Number.isFinite(pts) || pts <= 0)) e[`q${i}`] = `${at}: points must be a positive number.`
    })
  }
  if (d.taskKind === 'HOMEWORK') {
    const s = fromLocalInput(d.startAt)
    const due = fromLocalInput(d.dueAt)
    if (!due) e.dueAt = 'Choose when the homework is due.'
    else if (s && due <= s) e.dueAt = 'The due time must be after the start time.'
  }
  return e
}

export function bodyOf(d: TaskDraft) {
  const body: Record<string, unknown> = { title: d.title.trim(), taskKind: d.taskKind, taskType: d.taskType }
  if (d.taskType === 'MEDIA') {
    body.materialType = d.materialType
    body.content = d.content
    if (d.materialType === 'LINK') body.url = d.url.trim()
    if (d.materialType === 'FILE') body.resourceId = d.resourceId
  } else {
    if (d.content) body.content = d.content
    body.questions = d.questions.map((q) => ({
      type: q.type,
      stem: q.stem.trim(),
      ...(q.type === 'SHORT_ANSWER' ? {} : { options: q.options.map((o) => o.trim()), correctOptions: [...q.correctOptions].sort((a, b) => a - b) }),
      points: Number(q.points),
    }))
  }
  if (d.taskKind === 'HOMEWORK') {
    const s = fromLocalInput(d.startAt)
    if (s) body.startAt = s
    body.dueAt = fromLocalInput(d.dueAt)
    body.notifyOnStart = d.notifyOnStart
    body.notifyBeforeDue24h = d.notifyBeforeDue24h
    body.notifyOnDue = d.notifyOnDue
  }
  return body
}

export function TaskForm({
  courseId,
  task,
  onSubmit,
  onCancel,
  pending,
  error,
}: {
  courseId: string
  task?: Task
  onSubmit: (body: Record<string, unknown>) => void
  onCancel: () => void
  pending: boolean
  error: unknown
}) {
  const [d, setD] = useState<TaskDraft>(() => draftOf(task))
  const [errors, setErrors] = useState<Record<string, string>>({})
  const resources = useResources(courseId)
  const files = (resources.data ?? []).filter((r) => r.type === 'FILE')
  const set = <K extends keyof TaskDraft>(k: K, v: TaskDraft[K]) => setD((x) => ({ ...x, [k]: v }))
  const setQ = (i: number, patch: Partial<QuestionDraft>) => setD((x) => ({ ...x, questions: x.questions.map((q, j) => (j === i ? { ...q, ...patch } : q)) }))

  function submit(e: FormEvent) {
    e.preventDefault()
    const errs = validateDraft(d)
    setErrors(errs)
    if (Object.keys(errs).length === 0) onSubmit(bodyOf(d))
  }

  const questionErrors = Object.entries(errors).filter(([k]) => /^q\d+$|^questions$/.test(k))
  return (
    <form className="task-form" onSubmit={submit} noValidate aria-label={task ? `Edit ${task.title}` : 'New task'}>
      <TextField label="Task title" value={d.title} onChange={(e) => set('title', e.target.value)} error={errors.title} maxLength={200} required />
      <div className="row">
        <RadioGroup<TaskKind>
          legend="Kind"
          name="kind"
          value={d.taskKind}
          onChange={(v) => set('taskKind', v)}
          options={[
            { value: 'LEARNING', label: 'Learning' },
            { value: 'HOMEWORK', label: 'Homework' },
          ]}
        />
        <RadioGroup<TaskType>
          legend="Type"
          name="type"
          value={d.taskType}
          onChange={(v) => setD((x) => ({ ...x, taskType: v, questions: v === 'QUIZ' && x.questions.length === 0 ? [newQuestion()] : x.questions }))}
          options={[
            { value: 'MEDIA', label: 'Material' },
            { value: 'QUIZ', label: 'Quiz' },
          ]}
        />
      </div>

      {d.taskType === 'MEDIA' && (
        <>
          <SelectField label="Material type" value={d.materialType} onChange={(e) => set('materialType', e.target.value as MaterialType)}>
            <option value="TEXT">Text</option>
            <option value="LINK">Link</option>
            <option value="FILE">File</option>
          </SelectField>
          {d.materialType === 'LINK' && (
            <TextField label="Link address" type="url" value={d.url} onChange={(e) => set('url', e.target.value)} error={errors.url} placeholder="https://" required />
          )}
          {d.materialType === 'FILE' && (
            <SelectField label="File resource" value={d.resourceId} onChange={(e) => set('resourceId', e.target.value)} error={errors.resourceId} required>
              <option value="">Choose a file…</option>
              {files.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </SelectField>
          )}
        </>
      )}
      <RichEditor
        label={d.taskType === 'QUIZ' ? 'Instructions' : d.materialType === 'TEXT' ? 'Text' : 'Description'}
        value={d.content}
        onChange={(v) => set('content', v)}
        error={errors.content}
      />

      {d.taskType === 'QUIZ' && (
        <fieldset className="questions-editor">
          <legend>Questions</legend>
          {questionErrors.length > 0 && (
            <ul className="field-error" role="alert">
              {questionErrors.map(([k, m]) => (
                <li key={k}>{m}</li>
              ))}
            </ul>
          )}
          {d.questions.map((q, i) => (
            <div key={q.key} className="question-editor" data-testid="question-editor">
              <div className="row">
                <SelectField
                  label={`Question ${i + 1} type`}
                  value={q.type}
                  onChange={(e) => {
                    const type = e.target.value as QuestionType
                    setQ(i, { type, options: type === 'SHORT_ANSWER' ? [] : q.options.length >= 2 ? q.options : ['', ''], correctOptions: type === 'SINGLE_CHOICE' ? q.correctOptions.slice(0, 1) : q.correctOptions })
                  }}
                >
                  <option value="SINGLE_CHOICE">Single choice</option>
                  <option value="MULTIPLE_CHOICE">Multiple choice</option>
                  <option value="SHORT_ANSWER">Short answer</option>
                </SelectField>
                <TextField label={`Question ${i + 1} points`} type="number" min={0.5} step="0.5" value={q.points} onChange={(e) => setQ(i, { points: e.target.value })} />
              </div>
              <TextField label={`Question ${i + 1}`} value={q.stem} onChange={(e) => setQ(i, { stem: e.target.value })} required />
              {q.type !== 'SHORT_ANSWER' && (
                <fieldset className="options">
                  <legend>Options of question {i + 1} (tick the correct {q.type === 'SINGLE_CHOICE' ? 'one' : 'ones'})</legend>
                  {q.options.map((o, j) => (
                    <div className="option-row" key={j}>
                      <input
                        type={q.type === 'SINGLE_CHOICE' ? 'radio' : 'checkbox'}
                        name={`${q.key}-correct`}
                        aria-label={`Option ${j + 1} is correct`}
                        checked={q.correctOptions.includes(j)}
                        onChange={(e) =>
                          setQ(i, {
                            correctOptions:
                              q.type === 'SINGLE_CHOICE' ? [j] : e.target.checked ? [...q.correctOptions, j] : q.correctOptions.filter((x) => x !== j),
                          })
                        }
                      />
                      <input type="text" aria-label={`Question ${i + 1} option ${j + 1}`} value={o} onChange={(e) => setQ(i, { options: q.options.map((x, k) => (k === j ? e.target.value : x)) })} />
                      <button aria-label={`Remove option ${j + 1}`}
                        type="button"
                        className="btn btn-small btn-ghost"
                        disabled={q.options.length <= 2}
                        onClick={() =>
                          setQ(i, {
                            options: q.options.filter((_, k) => k !== j),
                            correctOptions: q.correctOptions.filter((x) => x !== j).map((x) => (x > j ? x - 1 : x)),
                          })
                        }
                      >
                        Remove
                      </button>
                    </div>
                  ))}
                  <button aria-label={`Add option to question ${i + 1}`} type="button" className="btn btn-small" onClick={() => setQ(i, { options: [...q.options, ''] })}>
                    Add option
                  </button>
                </fieldset>
              )}
              <button type="button" className="btn btn-small btn-ghost" onClick={() => setD((x) => ({ ...x, questions: x.questions.filter((_, k) => k !== i) }))}>
                Remove question {i + 1}
              </button>
            </div>
          ))}
          <button type="button" className="btn btn-small" onClick={() => setD((x) => ({ ...x, questions: [...x.questions, newQuestion()] }))}>
            Add question
          </button>
        </fieldset>
      )}

      {d.taskKind === 'HOMEWORK' && (
        <fieldset className="homework-editor">
          <legend>Homework schedule</legend>
          <div className="row">
            <TextField label="Opens at" type="datetime-local" value={d.startAt} onChange={(e) => set('startAt', e.target.value)} error={errors.startAt} />
            <TextField label="Due at" type="datetime-local" value={d.dueAt} onChange={(e) => set('dueAt', e.target.value)} error={errors.dueAt} required />
          </div>
          <Checkbox label="Remind students when it opens" checked={d.notifyOnStart} onChange={(v) => set('notifyOnStart', v)} />
          <Checkbox label="Remind 24 hours before it is due" checked={d.notifyBeforeDue24h} onChange={(v) => set('notifyBeforeDue24h', v)} />
          <Checkbox label="Remind when it is due" checked={d.notifyOnDue} onChange={(v) => set('notifyOnDue', v)} />
        </fieldset>
      )}

      {error != null && <ErrorNotice error={error} />}
      <div className="actions">
        <button type="submit" className="btn btn-primary" disabled={pending}>
          {pending ? 'Saving…' : task ? 'Save task' : 'Create task'}
        </button>
        <button type="button" className="btn btn-ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
