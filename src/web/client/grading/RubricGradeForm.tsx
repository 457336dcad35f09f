import { useEffect, useRef, type FormEvent, type KeyboardEvent } from 'react'
import { formatNumber } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import type { Task } from '../types.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { SaveBar } from './formParts.tsx'
import { useGradeDraft } from './useGradeDraft.ts'

type Rubric = NonNullable<Task['rubric']>
export type Choices = Record<string, string>

/** A level of every criterion picked (a draft may name a level since removed). */
const allPicked = (rubric: Rubric, choices: Choices) => rubric.criteria.every((c) => c.levels.some((l) => l.id === choices[c.id]))

/** The API's homework rule: chosen points ÷ the sum of each criterion's best level × 100, two decimals. */
export function rubricScore(rubric: Rubric, choices: Choices): number | null {
  let got = 0
  let best = 0
  for (const c of rubric.criteria) {
    const level = c.levels.find((l) => l.id === choices[c.id])
    if (!level) return null
    got += level.points
    best += Math.max(0, ...c.levels.map((l) => l.points))
  }
  return best > 0 ? Math.round((got / best) * 10000) / 100 : null
}

/**
 * Grading by a rubric from the keyboard (issue 54), for a homework, a quiz's short answers and
 * an experiment alike: the first criterion is focused, a digit picks that level of the focused
 * criterion and moves to the next criterion, Enter saves and (once saved) opens the next student.
 * Picks not saved yet stay a draft per submission. `scoreOf` is the score the API will compute
 * from the picks (homework and experiments: `rubricScore`; a quiz: its sheet score with the
 * short answers' points from their criteria); `questionOf` names a quiz criterion's question.
 */
export function RubricGradeForm({
  s,
  rubric,
  who,
  save,
  pending,
  error,
  saved,
  scoreOf = rubricScore,
  questionOf,
}: {
  s: { id: string; rubricChoices: readonly { criterionId: string; levelId: string }[] }
  rubric: Rubric
  who: string
  save: (body: { rubric: { criterionId: string; levelId: string }[] }) => void
  pending: boolean
  error: unknown
  saved: boolean
  scoreOf?: (rubric: Rubric, choices: Choices) => number | null
  questionOf?: (questionId: string) => number | null
}) {
  const { t } = useT(NS)
  const initial: Choices = Object.fromEntries(s.rubricChoices.map((c) => [c.criterionId, c.levelId]))
  const draft = useGradeDraft<Choices>(`${s.id}:rubric`, initial)
  const choices = draft.value
  const sent = useRef(choices)
  const form = useRef<HTMLFormElement>(null)
  useEffect(() => {
    if (saved) draft.markSaved(sent.current)
    // Only when a save completes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [saved])
  // The first field is focused, so grading starts with a digit.
  useEffect(() => {
    focusCriterion(0)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s.id])

  function focusCriterion(i: number) {
    const set = form.current?.querySelectorAll<HTMLFieldSetElement>('fieldset[data-criterion]')[i]
    const radio = set?.querySelector<HTMLInputElement>('input:checked') ?? set?.querySelector<HTMLInputElement>('input')
    if (radio) radio.focus()
    else form.current?.querySelector<HTMLButtonElement>('button[type="submit"]')?.focus()
  }
  const pick = (criterionId: string, levelId: string) => draft.set((d) => ({ ...d, [criterionId]: levelId }))
  const complete = allPicked(rubric, choices)
  const score = complete ? scoreOf(rubric, choices) : null

  function submit(e?: FormEvent) {
    e?.preventDefault()
    if (!complete || pending) return
    sent.current = choices
    save({ rubric: rubric.criteria.map((c) => ({ criterionId: c.id, levelId: choices[c.id]! })) })
  }
  function onKeyDown(e: KeyboardEvent<HTMLFormElement>) {
    if (e.altKey || e.ctrlKey || e.metaKey) return
    if (e.key === 'Enter') {
      e.preventDefault()
      return submit()
    }
    // 1-9 pick levels 1-9, 0 the tenth (a criterion has at most ten).
    if (!/^[0-9]$/.test(e.key)) return
    const set = (e.target as HTMLElement).closest<HTMLFieldSetElement>('fieldset[data-criterion]')
    if (!set) return
    const i = Number(set.dataset.criterion)
    const c = rubric.criteria[i]
    const level = c?.levels[e.key === '0' ? 9 : Number(e.key) - 1]
    if (!c || !level) return
    e.preventDefault()
    pick(c.id, level.id)
    focusCriterion(i + 1)
  }

  return (
    <form ref={form} className="grade-form rubric-form" onSubmit={submit} onKeyDown={onKeyDown} noValidate aria-label={t('rubric.gradeWho', { who })}>
      <p className="hint">{t('rubric.keys')}</p>
      {rubric.criteria.map((c, i) => (
        <fieldset key={c.id} className="radio-group rubric-criterion" data-criterion={i}>
          <legend>
            {c.title}
            {c.questionId && questionOf?.(c.questionId) != null && <span className="meta"> · {t('rubric.question', { n: questionOf(c.questionId) })}</span>}{' '}
            <span className="meta">({t('rubric.upTo', { points: formatNumber(Math.max(0, ...c.levels.map((l) => l.points)), 2) })})</span>
          </legend>
          {c.description && <p className="hint">{c.description}</p>}
          {c.levels.map((l, k) => (
            <span className="check" key={l.id}>
              <input type="radio" id={`${s.id}-${c.id}-${l.id}`} name={`${s.id}-${c.id}`} checked={choices[c.id] === l.id} onChange={() => pick(c.id, l.id)} />
              <label htmlFor={`${s.id}-${c.id}-${l.id}`}>{t('rubric.level', { n: k + 1, title: l.title, points: formatNumber(l.points, 2) })}</label>
            </span>
          ))}
        </fieldset>
      ))}
      <p className="meta" data-testid="rubric-score" aria-live="polite">
        {score == null ? t('rubric.pickAll') : t('rubric.score', { score: formatNumber(score, 2) })}
      </p>
      {error != null && <ErrorNotice error={error} />}
      <SaveBar pending={pending} disabled={!complete} label={t('rubric.save')} saved={saved} dirty={draft.dirty} unsavedNote={false} />
    </form>
  )
}
