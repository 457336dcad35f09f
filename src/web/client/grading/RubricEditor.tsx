import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, fieldErrors } from '../api.ts'
import { formatNumber } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import type { Task } from '../types.ts'
import { SelectField, TextArea, TextField } from '../ui/form.tsx'
import { ErrorNotice } from '../ui/Notice.tsx'

export type Rubric = NonNullable<Task['rubric']>

/** A short-answer question a quiz rubric's criterion can grade. */
export interface RubricQuestion {
  id: string
  n: number
  stem: string
  points: number
}

interface LevelDraft {
  key: number
  id?: string
  title: string
  description: string
  points: string
}
interface CriterionDraft {
  key: number
  id?: string
  title: string
  description: string
  questionId: string
  levels: LevelDraft[]
}

let nextKey = 1
const key = () => nextKey++
const newLevel = (title = '', points = ''): LevelDraft => ({ key: key(), title, description: '', points })
const newCriterion = (questionId = ''): CriterionDraft => ({ key: key(), title: '', description: '', questionId, levels: [newLevel(), newLevel()] })

function toDraft(r: Rubric | null): CriterionDraft[] {
  return (r?.criteria ?? []).map((c) => ({
    key: key(),
    id: c.id,
    title: c.title,
    description: c.description,
    questionId: c.questionId ?? '',
    levels: c.levels.map((l) => ({ key: key(), id: l.id, title: l.title, description: l.description, points: String(l.points) })),
  }))
}

const moved = <T,>(list: T[], from: number, to: number) => {
  if (to < 0 || to >= list.length) return list
  const next = [...list]
  const [x] = next.splice(from, 1)
  next.splice(to, 0, x!)
  return next
}

/**
 * The teacher's rubric editor (issue 54) for a homework, a quiz's short answers (`questions`:
 * each criterion then grades one of them) or an experiment: criteria and their levels added,
 * removed and reordered, each with a title, a description and (levels) points, saved whole with
 * `PUT …/rubric` (ids sent back, so the choices kept with graded sheets keep their levels), or
 * removed with `{ rubric: null }`. Folded away under its summary until opened.
 */
export function RubricEditor({
  rubric,
  path,
  of,
  questions,
  invalidate,
}: {
  rubric: Rubric | null
  path: string
  /** The task's or experiment's title, for the form's name. */
  of: string
  /** A quiz's short-answer questions; null for homework and experiments. */
  questions: RubricQuestion[] | null
  invalidate: readonly (readonly unknown[])[]
}) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const [criteria, setCriteria] = useState<CriterionDraft[]>(() => toDraft(rubric))
  const [errs, setErrs] = useState<Record<string, string>>({})
  const [saved, setSaved] = useState<'saved' | 'removed' | null>(null)
  const save = useMutation({
    mutationFn: (body: { rubric: { criteria: unknown[] } | null }) => api<{ rubric?: Rubric | null }>('PUT', path, body),
    onSuccess: async (data, body) => {
      setSaved(body.rubric ? 'saved' : 'removed')
      // The saved rubric comes back with its ids (new criteria and levels get theirs here): take
      // them at once, so a second save keeps them even before the refetched task arrives.
      setCriteria(body.rubric ? toDraft(data?.rubric ?? null) : [])
      await Promise.all(invalidate.map((queryKey) => queryClient.invalidateQueries({ queryKey })))
    },
  })
  // The rubric changed elsewhere (a refetch after this save, another tab): show it unless a save is under way.
  const [seen, setSeen] = useState(rubric)
  if (rubric !== seen) {
    setSeen(rubric)
    if (!save.isPending) setCriteria(toDraft(rubric))
  }

  const edit = (f: (c: CriterionDraft[]) => CriterionDraft[]) => {
    setSaved(null)
    setCriteria(f)
  }
  const editCriterion = (i: number, f: (c: CriterionDraft) => CriterionDraft) => edit((cs) => cs.map((c, k) => (k === i ? f(c) : c)))
  const editLevel = (i: number, j: number, f: (l: LevelDraft) => LevelDraft) => editCriterion(i, (c) => ({ ...c, levels: c.levels.map((l, k) => (k === j ? f(l) : l)) }))

  function submit(e: FormEvent) {
    e.preventDefault()
    const next: Record<string, string> = {}
    criteria.forEach((c, i) => {
      if (!c.title.trim()) next[`${i}.title`] = t('rubricEditor.titleRequired')
      if (questions && !c.questionId) next[`${i}.questionId`] = t('rubricEditor.questionRequired')
      c.levels.forEach((l, j) => {
        if (!l.title.trim()) next[`${i}.${j}.title`] = t('rubricEditor.titleRequired')
        const n = Number(l.points)
        if (l.points.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1000) next[`${i}.${j}.points`] = t('rubricEditor.pointsRange')
      })
    })
    setErrs(next)
    if (Object.keys(next).length) return
    save.mutate({
      rubric: {
        criteria: criteria.map((c) => ({
          ...(c.id ? { id: c.id } : {}),
          title: c.title.trim(),
          description: c.description.trim(),
          ...(questions ? { questionId: c.questionId } : {}),
          levels: c.levels.map((l) => ({ ...(l.id ? { id: l.id } : {}), title: l.title.trim(), description: l.description.trim(), points: Number(l.points) })),
        })),
      },
    })
  }
  const server = fieldErrors(save.error)
  const serverErr = (field: string) => server[`rubric.criteria.${field}`]
  const count = rubric?.criteria.length ?? 0

  return (
    <details className="rubric-editor" data-testid="rubric-editor">
      <summary>{count ? t('rubricEditor.summary', { count }) : t('rubricEditor.summaryNone')}</summary>
      <form onSubmit={submit} noValidate aria-label={t('rubricEditor.formName', { title: of })} className="stack">
        <p className="hint">{questions ? t('rubricEditor.hintQuiz') : t('rubricEditor.hint')}</p>
        {questions && questions.length === 0 && <p className="hint">{t('rubricEditor.noShortAnswers')}</p>}
        <ol className="plain stack">
          {criteria.map((c, i) => {
            const n = i + 1
            return (
              <li key={c.key}>
                <fieldset className="rubric-criterion-edit" data-testid="rubric-criterion-edit">
                  <legend>{t('rubricEditor.criterion', { n })}</legend>
                  <TextField label={t('rubricEditor.criterionTitle', { n })} value={c.title} maxLength={200} onChange={(e) => editCriterion(i, (x) => ({ ...x, title: e.target.value }))} error={errs[`${i}.title`] ?? serverErr(`${i}.title`)} required />
                  <TextArea label={t('rubricEditor.criterionDescription', { n })} value={c.description} rows={2} onChange={(e) => editCriterion(i, (x) => ({ ...x, description: e.target.value }))} error={serverErr(`${i}.description`)} />
                  {questions && (
                    <SelectField label={t('rubricEditor.question', { n })} value={c.questionId} onChange={(e) => editCriterion(i, (x) => ({ ...x, questionId: e.target.value }))} error={errs[`${i}.questionId`] ?? serverErr(`${i}.questionId`)} required>
                      <option value="">{t('rubricEditor.chooseQuestion')}</option>
                      {questions.map((q) => (
                        <option key={q.id} value={q.id}>
                          {t('rubricEditor.questionOption', { n: q.n, stem: q.stem.slice(0, 80), points: formatNumber(q.points, 2) })}
                        </option>
                      ))}
                    </SelectField>
                  )}
                  <div className="row-actions">
                    <button type="button" className="btn btn-small" disabled={i === 0} onClick={() => edit((cs) => moved(cs, i, i - 1))}>
                      {t('rubricEditor.criterionUp', { n })}
                    </button>{' '}
                    <button type="button" className="btn btn-small" disabled={i === criteria.length - 1} onClick={() => edit((cs) => moved(cs, i, i + 1))}>
                      {t('rubricEditor.criterionDown', { n })}
                    </button>{' '}
                    <button type="button" className="btn btn-small btn-danger" onClick={() => edit((cs) => cs.filter((_, k) => k !== i))}>
                      {t('rubricEditor.criterionRemove', { n })}
                    </button>
                  </div>
                  <ol className="plain stack rubric-levels">
                    {c.levels.map((l, j) => {
                      const m = j + 1
                      return (
                        <li key={l.key} className="rubric-level-edit">
                          <TextField label={t('rubricEditor.levelTitle', { n, m })} value={l.title} maxLength={200} onChange={(e) => editLevel(i, j, (x) => ({ ...x, title: e.target.value }))} error={errs[`${i}.${j}.title`] ?? serverErr(`${i}.levels.${j}.title`)} required />
                          <TextField
                            label={t('rubricEditor.levelPoints', { n, m })}
                            type="number"
                            inputMode="decimal"
                            min={0}
                            max={1000}
                            step="0.5"
                            className="score-input"
                            value={l.points}
                            onChange={(e) => editLevel(i, j, (x) => ({ ...x, points: e.target.value }))}
                            error={errs[`${i}.${j}.points`] ?? serverErr(`${i}.levels.${j}.points`)}
                            required
                          />
                          <TextField label={t('rubricEditor.levelDescription', { n, m })} value={l.description} onChange={(e) => editLevel(i, j, (x) => ({ ...x, description: e.target.value }))} />
                          <div className="row-actions">
                            <button type="button" className="btn btn-small" disabled={j === 0} onClick={() => editCriterion(i, (x) => ({ ...x, levels: moved(x.levels, j, j - 1) }))}>
                              {t('rubricEditor.levelUp', { n, m })}
                            </button>{' '}
                            <button type="button" className="btn btn-small" disabled={j === c.levels.length - 1} onClick={() => editCriterion(i, (x) => ({ ...x, levels: moved(x.levels, j, j + 1) }))}>
                              {t('rubricEditor.levelDown', { n, m })}
                            </button>{' '}
                            <button type="button" className="btn btn-small btn-danger" disabled={c.levels.length === 1} onClick={() => editCriterion(i, (x) => ({ ...x, levels: x.levels.filter((_, k) => k !== j) }))}>
                              {t('rubricEditor.levelRemove', { n, m })}
                            </button>
                          </div>
                        </li>
                      )
                    })}
                  </ol>
                  <button type="button" className="btn btn-small" disabled={c.levels.length >= 10} onClick={() => editCriterion(i, (x) => ({ ...x, levels: [...x.levels, newLevel()] }))}>
                    {t('rubricEditor.addLevel', { n })}
                  </button>
                </fieldset>
              </li>
            )
          })}
        </ol>
        {server.rubric || server['rubric.criteria'] ? (
          <p className="field-error" role="alert">
            {server['rubric.criteria'] ?? server.rubric}
          </p>
        ) : save.error != null && !Object.keys(server).length ? (
          <ErrorNotice error={save.error} />
        ) : null}
        <div className="row-actions">
          <button type="button" className="btn" disabled={criteria.length >= 20} onClick={() => edit((cs) => [...cs, newCriterion(questions?.length === 1 ? questions[0]!.id : '')])}>
            {t('rubricEditor.addCriterion')}
          </button>{' '}
          <button type="submit" className="btn btn-primary" disabled={save.isPending || criteria.length === 0}>
            {save.isPending ? t('form.saving') : t('rubricEditor.save')}
          </button>{' '}
          {rubric && (
            <button type="button" className="btn btn-danger" disabled={save.isPending} onClick={() => save.mutate({ rubric: null })}>
              {t('rubricEditor.remove')}
            </button>
          )}
          {saved && (
            <span className="saved" role="status">
              {saved === 'saved' ? t('rubricEditor.saved') : t('rubricEditor.removed')}
            </span>
          )}
        </div>
      </form>
    </details>
  )
}
