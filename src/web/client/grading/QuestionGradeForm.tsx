import { useEffect, useRef, useState, type FormEvent } from 'react'
import { sheetScore } from '../../../modules/learning/scoring.ts'
import { fieldErrors } from '../api.ts'
import { formatNumber } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import type { LearningGradeBody, LearningSubmission, Question, Task } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { Checkbox, TextField } from '../ui/form.tsx'
import { ErrorNotice } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { RichText } from '../ui/RichText.tsx'
import { addedAfter } from '../workspace/data.ts'
import { SaveBar, ScoreField } from './formParts.tsx'
import { useGradeDraft } from './useGradeDraft.ts'

const sameSet = (a: number[], b: number[]) => a.length === b.length && a.every((x) => b.includes(x))

/** The teacher's view of a question: its answer, and for choice questions whether it was right. */
function AnsweredQuestion({ q, n, s }: { q: Question; n: number; s: LearningSubmission }) {
  const { t } = useT(NS)
  const a = s.answers?.find((x) => x.questionId === q.id)
  if (addedAfter(q, s.submittedAt))
    return (
      <div className="answer-value">
        <span className="answer-stem">
          {n}. {q.stem}
        </span>{' '}
        <Badge tone="info">{t('grading.addedLater')}</Badge>
      </div>
    )
  if (q.type === 'SHORT_ANSWER')
    return (
      <div className="answer-value">
        <span className="answer-stem">
          {n}. {q.stem}
        </span>
        {a?.text ? <RichText html={a.text} /> : <p className="meta">{t('grading.noAnswer')}</p>}
      </div>
    )
  const chosen = (a?.selectedOptions ?? []).map((i) => q.options[i] ?? t('grading.option', { n: i + 1 }))
  const right = sameSet(q.correctOptions ?? [], a?.selectedOptions ?? [])
  return (
    <div className="answer-value">
      <span className="answer-stem">
        {n}. {q.stem}
      </span>{' '}
      <span>{chosen.length ? chosen.join(', ') : t('grading.noAnswer')}</span>{' '}
      <Badge tone={right ? 'ok' : 'danger'}>{right ? t('grading.right') : t('grading.wrong')}</Badge>{' '}
      <span className="meta">{t('form.choicePoints', { earned: formatNumber(right ? q.points : 0, 2), points: formatNumber(q.points, 2) })}</span>
    </div>
  )
}

/**
 * Grading a learning submission. A quiz with short-answer questions is graded per question:
 * points for each short answer (0..its points), the final score computed as the server does
 * ((choice points + short-answer points) ÷ total points × 100) unless the teacher overrides it.
 * Nothing is pre-filled from the automatic choice score while a short answer is ungraded.
 */
export function QuestionGradeForm({
  s,
  task,
  who,
  save,
  pending,
  error,
  saved,
}: {
  s: LearningSubmission
  task: Task
  who: string
  save: (body: LearningGradeBody) => void
  pending: boolean
  error: unknown
  saved: boolean
}) {
  const { t } = useT(NS)
  const shown = task.taskType === 'QUIZ' ? task.questions : []
  // The sheet is scored on the questions it was asked, as the server scores it.
  const questions = shown.filter((q) => !addedAfter(q, s.submittedAt))
  const shortAnswers = questions.filter((q) => q.type === 'SHORT_ANSWER')
  const perQuestion = shortAnswers.length > 0
  const stored = new Map(s.questionScores.map((x) => [x.questionId, x.score]))
  const initialPoints: Record<string, string> = Object.fromEntries(shortAnswers.map((q) => [q.id, stored.has(q.id) ? String(stored.get(q.id)) : '']))
  const computedNow = (p: Record<string, string>) => {
    const given = shortAnswers.filter((q) => p[q.id]?.trim() !== '' && Number.isFinite(Number(p[q.id]))).map((q) => ({ questionId: q.id, score: Number(p[q.id]) }))
    return sheetScore(
      questions.map((q) => ({ ...q, correctOptions: q.correctOptions ?? [] })),
      (s.answers ?? []).map((a) => ({ questionId: a.questionId, selectedOptions: a.selectedOptions ?? [], text: a.text ?? null })),
      given,
    )
  }
  // Points, override, score and feedback as typed: a draft per submission while unsaved
  // (grading/useGradeDraft.ts), so the next student and back keeps them.
  const draft = useGradeDraft(s.id, {
    points: initialPoints,
    // Overridden when the stored score differs from what the points give.
    override: perQuestion && s.score != null && computedNow(initialPoints) !== s.score,
    // Without short answers there is nothing to compute: the score field is the grade (the
    // automatic score of a choice-only quiz is already its score).
    score: s.score != null ? String(s.score) : !perQuestion && s.autoScore != null ? String(s.autoScore) : '',
    feedback: s.feedback ?? '',
  })
  const { points, override, score, feedback } = draft.value
  const setPoints = (f: (p: Record<string, string>) => Record<string, string>) => draft.set((d) => ({ ...d, points: f(d.points) }))
  const setOverride = (v: boolean) => draft.set((d) => ({ ...d, override: v }))
  const setScore = (v: string) => draft.set((d) => ({ ...d, score: v }))
  const setFeedback = (v: string) => draft.set((d) => ({ ...d, feedback: v }))
  const sent = useRef(draft.value)
  useEffect(() => {
    if (saved) draft.markSaved(sent.current)
    // Only when a save completes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [saved])
  const [errs, setErrs] = useState<Record<string, string>>({})
  const computed = computedNow(points)
  const server = fieldErrors(error)

  function submit(e: FormEvent) {
    e.preventDefault()
    const next: Record<string, string> = {}
    const questionScores: { questionId: string; score: number }[] = []
    for (const q of shortAnswers) {
      const raw = points[q.id]?.trim() ?? ''
      if (raw === '') continue
      const n = Number(raw)
      if (!Number.isFinite(n) || n < 0 || n > q.points) next[q.id] = t('form.questionRange', { points: formatNumber(q.points, 2) })
      else questionScores.push({ questionId: q.id, score: n })
    }
    const useScore = !perQuestion || override
    const n = Number(score)
    if (useScore && (score.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100)) next.score = t('form.scoreRange')
    if (!useScore && questionScores.length < shortAnswers.length) next.score = t('form.scoreRequired')
    setErrs(next)
    if (Object.keys(next).length) return
    sent.current = draft.value
    save({
      ...(perQuestion ? { questionScores } : {}),
      ...(useScore ? { score: n } : {}),
      ...(feedback ? { feedback } : {}),
    })
  }

  return (
    <form className="grade-form" onSubmit={submit} noValidate aria-label={t('form.gradeWho', { who })}>
      {shown.length > 0 && (
        <fieldset className="question-scores">
          <legend>{t('form.questions')}</legend>
          <ol className="plain stack">
            {shown.map((q, i) => (
              <li key={q.id} className="question-score">
                <AnsweredQuestion q={q} n={i + 1} s={s} />
                {q.type === 'SHORT_ANSWER' && !addedAfter(q, s.submittedAt) && (
                  <TextField
                    label={t('form.questionScore', { n: i + 1, points: formatNumber(q.points, 2) })}
                    type="number"
                    inputMode="decimal"
                    min={0}
                    max={q.points}
                    step="0.5"
                    className="score-input"
                    value={points[q.id] ?? ''}
                    onChange={(e) => setPoints((p) => ({ ...p, [q.id]: e.target.value }))}
                    error={errs[q.id] ?? server[`questionScores.${shortAnswers.indexOf(q)}.score`]}
                  />
                )}
              </li>
            ))}
          </ol>
          <p className="computed-score" role="status" data-testid="computed-score">
            {computed == null ? t('form.computedWaiting') : t('form.computed', { score: formatNumber(computed, 2) })}
          </p>
          <Checkbox label={t('form.override')} checked={override} onChange={setOverride} hint={t('form.overrideHint')} />
        </fieldset>
      )}
      {(!perQuestion || override) && (
        <ScoreField value={score} onChange={setScore} error={errs.score ?? server.score} />
      )}
      {perQuestion && !override && errs.score && (
        <p className="field-error" role="alert">
          {errs.score}
        </p>
      )}
      <RichEditor label={t('form.feedback')} value={feedback} onChange={setFeedback} error={server.feedback} />
      {error != null && !Object.keys(server).length ? <ErrorNotice error={error} /> : null}
      <SaveBar pending={pending} label={t('form.save')} saved={saved} dirty={draft.dirty} unsavedNote />
    </form>
  )
}
