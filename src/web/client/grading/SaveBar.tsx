import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import { SubmitButton } from '../ui/form.tsx'

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
