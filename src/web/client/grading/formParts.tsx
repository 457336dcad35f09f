/** The pieces the grade forms (GradeForm, QuestionGradeForm, RubricGradeForm) share. */
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import { SubmitButton, TextField } from '../ui/form.tsx'

/**
 * The end of every grade form: the save button, the "Saved" status once the server took the
 * grade, and (where the form keeps a draft note) the "kept as a draft" note while it differs.
 */
export function SaveBar({
  pending,
  disabled,
  label,
  saved,
  dirty,
  unsavedNote,
}: {
  pending: boolean
  disabled?: boolean
  label: string
  saved: boolean
  dirty: boolean
  unsavedNote: boolean
}) {
  const { t } = useT(NS)
  return (
    <>
      <SubmitButton pending={pending} disabled={pending || disabled} pendingLabel={t('form.saving')} label={label} />
      {saved && !dirty && (
        <span className="saved" role="status">
          {t('form.saved')}
        </span>
      )}
      {unsavedNote && dirty && (
        <p className="hint unsaved-note" role="status" data-testid="unsaved-grade">
          {t('form.unsavedKept')}
        </p>
      )}
    </>
  )
}

/** The 0-100 score of a grade form (half points allowed). */
export function ScoreField({ value, onChange, error }: { value: string; onChange: (v: string) => void; error?: string }) {
  const { t } = useT(NS)
  return (
    <TextField
      label={t('form.score')}
      type="number"
      inputMode="decimal"
      min={0}
      max={100}
      step="0.5"
      className="score-input"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      error={error}
      required
    />
  )
}
