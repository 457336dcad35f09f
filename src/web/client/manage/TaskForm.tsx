import { useState, type FormEvent } from 'react'
import { translate, useT } from '../i18n/index.ts'
import { useResources, useTaskSubmissions } from '../queries.ts'
import { useDraft } from '../ui/useDraft.ts'
import { NS } from './messages.ts'
import { useUnsavedChanges } from './useUnsavedChanges.ts'
import type { GradeRelease, MaterialType, QuestionType, Task, TaskKind, TaskType } from '../types.ts'
import { Checkbox, RadioGroup, SelectField, TextField, SubmitButton } from '../ui/form.tsx'
import { ErrorNotice } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { fromLocalInput, toLocalInput } from '../ui/time.tsx'
import { answeredQuestionsOf, ConfirmQuestionRemoval } from '../teaching/QuizEditNotices.tsx'
import { offersPublication, PublicationFields, submitLabelKey, type Publication } from '../publishing/Publishing.tsx'
import { useLtiTools } from '../lti/Lti.tsx'
import { LTI } from '../lti/messages.ts'

interface QuestionDraft {
  key: string
  /** The stored question's id: sent back so edits keep the students' answers attached. */
  id?: string
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
  /** When students see grades (issue 54): on saving (AUTOMATIC) or when the teacher releases them (MANUAL). Optional: drafts kept from before. */
  gradeRelease?: GradeRelease
  /** Publish now, keep as a draft, or schedule (new tasks and drafts only; see offersPublication). */
  publication?: Publication
  publishAt?: string
  /** LTI tasks: the tool and an optional link in it. */
  ltiToolId?: string
  ltiTargetLinkUri?: string
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
      id: q.id,
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
    gradeRelease: task?.gradeRelease ?? 'AUTOMATIC',
    publication: task ? (task.state === 'SCHEDULED' ? 'SCHEDULED' : 'DRAFT') : 'PUBLISHED',
    publishAt: toLocalInput(task?.publishAt ?? null),
    ltiToolId: task?.lti?.toolId ?? '',
    ltiTargetLinkUri: task?.lti?.targetLinkUri ?? '',
  }
}

/** Checks a draft against the contract's rules; returns the problems, keyed for display. */
export function validateDraft(d: TaskDraft): Record<string, string> {
  const e: Record<string, string> = {}
  const m = (key: string, o: Record<string, unknown> = {}) => translate(`manage:taskForm.errors.${key}`, o)
  if (!d.title.trim()) e.title = m('title')
  // Refused with a message, never cut silently (issue 29.10): the input has no maxLength.
  else if (d.title.trim().length > 200) e.title = m('titleTooLong', { max: 200, count: d.title.trim().length })
  if (d.taskType === 'MEDIA') {
    if (d.materialType === 'LINK' && !/^https?:\/\/\S+$/i.test(d.url.trim())) e.url = m('url')
    if (d.materialType === 'FILE' && !d.resourceId) e.resourceId = m('resourceId')
    if (d.materialType === 'TEXT' && !d.content.trim()) e.content = m('content')
  } else if (d.taskType === 'LTI') {
    if (!d.ltiToolId) e.ltiToolId = translate(`${LTI}:toolRequired`)
    if (d.ltiTargetLinkUri?.trim() && !/^https?:\/\/\S+$/i.test(d.ltiTargetLinkUri.trim())) e.ltiTargetLinkUri = translate(`${LTI}:urlRequired`)
  } else {
    if (d.questions.length === 0) e.questions = m('questions')
    d.questions.forEach((q, i) => {
      const n = i + 1
      if (!q.stem.trim()) e[`q${i}`] = m('stem', { n })
      else if (q.type !== 'SHORT_ANSWER') {
        if (q.options.filter((o) => o.trim()).length < 2 || q.options.some((o) => !o.trim())) e[`q${i}`] = m('options', { n })
        else if (q.type === 'SINGLE_CHOICE' && q.correctOptions.length !== 1) e[`q${i}`] = m('single', { n })
        else if (q.type === 'MULTIPLE_CHOICE' && q.correctOptions.length === 0) e[`q${i}`] = m('multiple', { n })
      }
      const pts = Number(q.points)
      if (!e[`q${i}`] && (!Number.isFinite(pts) || pts <= 0)) e[`q${i}`] = m('points', { n })
    })
  }
  if (d.publication === 'SCHEDULED') {
    const at = fromLocalInput(d.publishAt ?? '')
    if (!at || Date.parse(at) <= Date.now()) e.publishAt = translate('publishing:publishAtRequired')
  }
  if (d.taskKind === 'HOMEWORK') {
    const s = fromLocalInput(d.startAt)
    const due = fromLocalInput(d.dueAt)
    if (!due) e.dueAt = m('dueAt')
    else if (s && due <= s) e.dueAt = m('dueAfterStart')
  }
  return e
}

/** `withPublication`: the form offered the choice (a new task or a draft), so the state is sent. */
export function bodyOf(d: TaskDraft, withPublication = false) {
  const body: Record<string, unknown> = { title: d.title.trim(), taskKind: d.taskKind, taskType: d.taskType }
  if (withPublication) {
    body.state = d.publication ?? 'PUBLISHED'
    if (d.publication === 'SCHEDULED') body.publishAt = fromLocalInput(d.publishAt ?? '')
  }
  if (d.taskType === 'MEDIA') {
    body.materialType = d.materialType
    body.content = d.content
    if (d.materialType === 'LINK') body.url = d.url.trim()
    if (d.materialType === 'FILE') body.resourceId = d.resourceId
  } else if (d.taskType === 'LTI') {
    body.content = d.content
    body.lti = { toolId: d.ltiToolId, ...(d.ltiTargetLinkUri?.trim() ? { targetLinkUri: d.ltiTargetLinkUri.trim() } : {}) }
  } else {
    if (d.content) body.content = d.content
    body.questions = d.questions.map((q) => ({
      ...(q.id ? { id: q.id } : {}),
      type: q.type,
      stem: q.stem.trim(),
      ...(q.type === 'SHORT_ANSWER' ? {} : { options: q.options.map((o) => o.trim()), correctOptions: [...q.correctOptions].sort((a, b) => a - b) }),
      points: Number(q.points),
    }))
  }
  // Only work students hand in has grades to release.
  if (d.taskKind === 'HOMEWORK' || d.taskType === 'QUIZ') body.gradeRelease = d.gradeRelease ?? 'AUTOMATIC'
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
  const { t } = useT(NS)
  const lt = useT(LTI).t
  // Drafts survive a re-login (ui/useDraft.ts): new tasks per point... per course, edits per task.
  const initial = useState(() => draftOf(task))[0]
  const [d, setDraft, clearDraft] = useDraft<TaskDraft>(`task:${courseId}:${task?.id ?? 'new'}`, initial)
  const setD = (f: (x: TaskDraft) => TaskDraft) => setDraft(f(d))
  const dirty = JSON.stringify({ ...d, questions: d.questions.map(({ key: _k, ...q }) => q) }) !== JSON.stringify({ ...initial, questions: initial.questions.map(({ key: _k, ...q }) => q) })
  useUnsavedChanges(dirty && !pending)
  // Once students have submitted, the task type is fixed (the server refuses the switch with 409).
  const submissions = useTaskSubmissions(courseId, task?.id ?? '', { enabled: Boolean(task) })
  const typeLocked = Boolean(task) && (submissions.data?.length ?? 0) > 0
  const [errors, setErrors] = useState<Record<string, string>>({})
  // A 409 naming answered questions the edit removes: ask, then resend with the confirmation.
  const [sent, setSent] = useState<Record<string, unknown> | null>(null)
  const [dismissed, setDismissed] = useState<unknown>(null)
  const answered = error !== dismissed ? answeredQuestionsOf(error) : null
  const resources = useResources(courseId)
  const tools = useLtiTools(courseId)
  const files = (resources.data ?? []).filter((r) => r.type === 'FILE')
  const set = <K extends keyof TaskDraft>(k: K, v: TaskDraft[K]) => setD((x) => ({ ...x, [k]: v }))
  const setQ = (i: number, patch: Partial<QuestionDraft>) => setD((x) => ({ ...x, questions: x.questions.map((q, j) => (j === i ? { ...q, ...patch } : q)) }))

  function submit(e: FormEvent) {
    e.preventDefault()
    const errs = validateDraft(d)
    setErrors(errs)
    if (Object.keys(errs).length === 0) {
      const body = bodyOf(d, offersPublication(task))
      setSent(body)
      onSubmit(body)
      clearDraft()
    }
  }
  function cancel() {
    clearDraft()
    onCancel()
  }

  const questionErrors = Object.entries(errors).filter(([k]) => /^q\d+$|^questions$/.test(k))
  return (
    <form className="task-form" onSubmit={submit} noValidate aria-label={task ? t('taskForm.editLabel', { title: task.title }) : t('taskForm.newLabel')}>
      <TextField label={t('taskForm.title')} value={d.title} onChange={(e) => set('title', e.target.value)} error={errors.title} required />
      <div className="row">
        <RadioGroup<TaskKind>
          legend={t('taskForm.kind')}
          name="kind"
          value={d.taskKind}
          onChange={(v) => set('taskKind', v)}
          options={[
            { value: 'LEARNING', label: t('taskForm.learning') },
            { value: 'HOMEWORK', label: t('taskForm.homework') },
          ]}
        />
        {typeLocked ? (
          <div className="field" data-testid="type-locked">
            <p className="label-like">{t('taskForm.type')}</p>
            <p>{d.taskType === 'QUIZ' ? t('taskForm.quiz') : d.taskType === 'LTI' ? lt('taskType') : t('taskForm.material')}</p>
            <p className="hint">{t('taskForm.typeLocked')}</p>
          </div>
        ) : (
          <RadioGroup<TaskType>
            legend={t('taskForm.type')}
            name="type"
            value={d.taskType}
            onChange={(v) => setD((x) => ({ ...x, taskType: v, questions: v === 'QUIZ' && x.questions.length === 0 ? [newQuestion()] : x.questions }))}
            options={[
              { value: 'MEDIA', label: t('taskForm.material') },
              { value: 'QUIZ', label: t('taskForm.quiz') },
              { value: 'LTI', label: lt('taskType') },
            ]}
          />
        )}
      </div>

      {d.taskType === 'MEDIA' && (
        <>
          <SelectField
            label={d.taskKind === 'HOMEWORK' ? t('taskForm.instructionsAs') : t('taskForm.materialType')}
            value={d.materialType}
            onChange={(e) => set('materialType', e.target.value as MaterialType)}
          >
            <option value="TEXT">{d.taskKind === 'HOMEWORK' ? t('taskForm.textHere') : t('taskForm.text')}</option>
            <option value="LINK">{t('taskForm.link')}</option>
            <option value="FILE">{t('taskForm.file')}</option>
          </SelectField>
          {d.materialType === 'LINK' && (
            <TextField label={t('taskForm.linkAddress')} type="url" value={d.url} onChange={(e) => set('url', e.target.value)} error={errors.url} required />
          )}
          {d.materialType === 'FILE' && (
            <SelectField label={t('taskForm.fileResource')} value={d.resourceId} onChange={(e) => set('resourceId', e.target.value)} error={errors.resourceId} required>
              <option value="">{t('taskForm.chooseFile')}</option>
              {files.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </SelectField>
          )}
        </>
      )}
      {d.taskType === 'LTI' && (
        <>
          <SelectField label={lt('tool')} value={d.ltiToolId ?? ''} onChange={(e) => set('ltiToolId', e.target.value)} error={errors.ltiToolId} required>
            <option value="">{lt('chooseTool')}</option>
            {(tools.data ?? []).map((tool) => (
              <option key={tool.id} value={tool.id}>
                {tool.name}
              </option>
            ))}
          </SelectField>
          {tools.data && tools.data.length === 0 && <p className="hint">{lt('noTools')}</p>}
          <TextField label={lt('targetLinkUri')} type="url" value={d.ltiTargetLinkUri ?? ''} onChange={(e) => set('ltiTargetLinkUri', e.target.value)} error={errors.ltiTargetLinkUri} />
        </>
      )}
      <RichEditor
        label={
          d.taskType === 'QUIZ' || (d.taskKind === 'HOMEWORK' && d.materialType === 'TEXT')
            ? t('taskForm.instructions')
            : d.materialType === 'TEXT'
              ? t('taskForm.text')
              : t('taskForm.description')
        }
        value={d.content}
        onChange={(v) => set('content', v)}
        error={errors.content}
      />

      {d.taskType === 'QUIZ' && (
        <fieldset className="questions-editor">
          <legend>{t('taskForm.questions')}</legend>
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
                  label={t('taskForm.questionType', { n: i + 1 })}
                  value={q.type}
                  onChange={(e) => {
                    const type = e.target.value as QuestionType
                    setQ(i, { type, options: type === 'SHORT_ANSWER' ? [] : q.options.length >= 2 ? q.options : ['', ''], correctOptions: type === 'SINGLE_CHOICE' ? q.correctOptions.slice(0, 1) : q.correctOptions })
                  }}
                >
                  <option value="SINGLE_CHOICE">{t('taskForm.single')}</option>
                  <option value="MULTIPLE_CHOICE">{t('taskForm.multiple')}</option>
                  <option value="SHORT_ANSWER">{t('taskForm.short')}</option>
                </SelectField>
                <TextField label={t('taskForm.questionPoints', { n: i + 1 })} className="score-input" type="number" min={0.5} step="0.5" value={q.points} onChange={(e) => setQ(i, { points: e.target.value })} />
              </div>
              <TextField label={t('taskForm.question', { n: i + 1 })} value={q.stem} onChange={(e) => setQ(i, { stem: e.target.value })} required />
              {q.type !== 'SHORT_ANSWER' && (
                <fieldset className="options">
                  <legend>{q.type === 'SINGLE_CHOICE' ? t('taskForm.optionsSingle', { n: i + 1 }) : t('taskForm.optionsMultiple', { n: i + 1 })}</legend>
                  {q.options.map((o, j) => (
                    <div className="option-row" key={j}>
                      <input
                        type={q.type === 'SINGLE_CHOICE' ? 'radio' : 'checkbox'}
                        name={`${q.key}-correct`}
                        aria-label={t('taskForm.optionCorrect', { n: j + 1 })}
                        checked={q.correctOptions.includes(j)}
                        onChange={(e) =>
                          setQ(i, {
                            correctOptions:
                              q.type === 'SINGLE_CHOICE' ? [j] : e.target.checked ? [...q.correctOptions, j] : q.correctOptions.filter((x) => x !== j),
                          })
                        }
                      />
                      <input type="text" aria-label={t('taskForm.option', { n: i + 1, m: j + 1 })} value={o} onChange={(e) => setQ(i, { options: q.options.map((x, k) => (k === j ? e.target.value : x)) })} />
                      <button aria-label={t('taskForm.removeOptionLabel', { n: j + 1 })}
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
                        {t('taskForm.remove')}
                      </button>
                    </div>
                  ))}
                  <button aria-label={t('taskForm.addOptionLabel', { n: i + 1 })} type="button" className="btn btn-small" onClick={() => setQ(i, { options: [...q.options, ''] })}>
                    {t('taskForm.addOption')}
                  </button>
                </fieldset>
              )}
              <button type="button" className="btn btn-small btn-ghost" onClick={() => setD((x) => ({ ...x, questions: x.questions.filter((_, k) => k !== i) }))}>
                {t('taskForm.removeQuestion', { n: i + 1 })}
              </button>
            </div>
          ))}
          <button type="button" className="btn btn-small" onClick={() => setD((x) => ({ ...x, questions: [...x.questions, newQuestion()] }))}>
            {t('taskForm.addQuestion')}
          </button>
        </fieldset>
      )}

      {d.taskKind === 'HOMEWORK' && (
        <fieldset className="homework-editor">
          <legend>{t('taskForm.schedule')}</legend>
          <div className="row">
            <TextField label={t('taskForm.opensAt')} type="datetime-local" value={d.startAt} onChange={(e) => set('startAt', e.target.value)} error={errors.startAt} />
            <TextField label={t('taskForm.dueAt')} type="datetime-local" value={d.dueAt} onChange={(e) => set('dueAt', e.target.value)} error={errors.dueAt} required />
          </div>
          <Checkbox label={t('taskForm.notifyOnStart')} checked={d.notifyOnStart} onChange={(v) => set('notifyOnStart', v)} />
          <Checkbox label={t('taskForm.notifyBeforeDue24h')} checked={d.notifyBeforeDue24h} onChange={(v) => set('notifyBeforeDue24h', v)} />
          <Checkbox label={t('taskForm.notifyOnDue')} checked={d.notifyOnDue} onChange={(v) => set('notifyOnDue', v)} />
        </fieldset>
      )}

      {(d.taskKind === 'HOMEWORK' || d.taskType === 'QUIZ') && (
        <div className="field">
          <RadioGroup<GradeRelease>
            legend={t('taskForm.gradeRelease')}
            name="grade-release"
            value={d.gradeRelease ?? 'AUTOMATIC'}
            onChange={(v) => set('gradeRelease', v)}
            options={[
              { value: 'AUTOMATIC', label: t('taskForm.releaseAutomatic') },
              { value: 'MANUAL', label: t('taskForm.releaseManual') },
            ]}
          />
          <p className="hint">{t('taskForm.gradeReleaseHint')}</p>
        </div>
      )}

      {offersPublication(task) && (
        <PublicationFields
          value={d.publication ?? 'PUBLISHED'}
          publishAt={d.publishAt ?? ''}
          error={errors.publishAt}
          onChange={(v) => set('publication', v)}
          onPublishAt={(v) => set('publishAt', v)}
        />
      )}

      {answered && sent ? (
        <ConfirmQuestionRemoval questions={answered} onConfirm={() => onSubmit({ ...sent, confirmQuestionRemoval: true })} onKeep={() => setDismissed(error)} />
      ) : (
        error != null && error !== dismissed && <ErrorNotice error={error} />
      )}
      <div className="actions">
        <SubmitButton
          pending={pending}
          pendingLabel={t('common.saving')}
          label={task ? t('taskForm.save') : (d.publication ?? 'PUBLISHED') === 'PUBLISHED' ? t('taskForm.create') : t(submitLabelKey(d.publication as 'DRAFT' | 'SCHEDULED'))}
        />
        <button type="button" className="btn btn-ghost" onClick={cancel}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  )
}
