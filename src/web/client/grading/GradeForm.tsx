import { useState, type FormEvent } from 'react'
import { fieldErrors } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { TextField } from '../ui/form.tsx'

/** Score (0-100, decimals allowed) and rich-text feedback; `save` performs the PATCH. */
export function GradeForm({
  initialScore,
  initialFeedback,
  save,
  pending,
  error,
  saved,
  who,
}: {
  initialScore: number | null
  initialFeedback: string | null
  save: (body: { score: number; feedback?: string }) => void
  pending: boolean
  error: unknown
  saved: boolean
  who: string
}) {
  const { t } = useT(NS)
  const [score, setScore] = useState(initialScore == null ? '' : String(initialScore))
  const [feedback, setFeedback] = useState(initialFeedback ?? '')
  const [err, setErr] = useState<string>()
  function submit(e: FormEvent) {
    e.preventDefault()
    const n = Number(score)
    if (score.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) return setErr(t('form.scoreRange'))
    setErr(undefined)
    save({ score: n, ...(feedback ? { feedback } : {}) })
  }
  const server = fieldErrors(error)
  return (
    <form className="grade-form" onSubmit={submit} noValidate aria-label={t('form.gradeWho', { who })}>
      <TextField
        label={t('form.score')}
        type="number"
        inputMode="decimal"
        min={0}
        max={100}
        step="0.5"
        value={score}
        onChange={(e) => setScore(e.target.value)}
        error={err ?? server.score}
        required
        className="score-input"
      />
      <RichEditor label={t('form.feedback')} value={feedback} onChange={setFeedback} error={server.feedback} />
      {error != null && !server.score && !server.feedback ? <ErrorNotice error={error} /> : null}
      <button type="submit" className="btn btn-primary" disabled={pending}>
        {pending ? t('form.saving') : t('form.save')}
      </button>
      {saved && (
        <span className="saved" role="status">
          {t('form.saved')}
        </span>
      )}
    </form>
  )
}
