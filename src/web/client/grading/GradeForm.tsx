import { useEffect, useRef, useState, type FormEvent } from 'react'
import { fieldErrors } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { SaveBar, ScoreField } from './formParts.tsx'
import { useGradeDraft } from './useGradeDraft.ts'

/** Score (0-100, decimals allowed) and rich-text feedback; `save` performs the PATCH. Unsaved input stays a draft per submission. */
export function GradeForm({
  submissionId,
  initialScore,
  initialFeedback,
  save,
  pending,
  error,
  saved,
  who,
}: {
  submissionId: string
  initialScore: number | null
  initialFeedback: string | null
  save: (body: { score: number; feedback?: string }) => void
  pending: boolean
  error: unknown
  saved: boolean
  who: string
}) {
  const { t } = useT(NS)
  const draft = useGradeDraft(submissionId, { score: initialScore == null ? '' : String(initialScore), feedback: initialFeedback ?? '' })
  const { score, feedback } = draft.value
  const setScore = (v: string) => draft.set((d) => ({ ...d, score: v }))
  const setFeedback = (v: string) => draft.set((d) => ({ ...d, feedback: v }))
  const [err, setErr] = useState<string>()
  const sent = useRef(draft.value)
  useEffect(() => {
    if (saved) draft.markSaved(sent.current)
    // Only when a save completes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [saved])
  function submit(e: FormEvent) {
    e.preventDefault()
    const n = Number(score)
    if (score.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100) return setErr(t('form.scoreRange'))
    setErr(undefined)
    sent.current = draft.value
    save({ score: n, ...(feedback ? { feedback } : {}) })
  }
  const server = fieldErrors(error)
  return (
    <form className="grade-form" onSubmit={submit} noValidate aria-label={t('form.gradeWho', { who })}>
      <ScoreField value={score} onChange={setScore} error={err ?? server.score} />
      <RichEditor label={t('form.feedback')} value={feedback} onChange={setFeedback} error={server.feedback} />
      {error != null && !server.score && !server.feedback ? <ErrorNotice error={error} /> : null}
      <SaveBar pending={pending} label={t('form.save')} saved={saved} dirty={draft.dirty} unsavedNote />
    </form>
  )
}
