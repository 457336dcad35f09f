import { useT } from '../i18n/index.ts'
import { RichText } from '../ui/RichText.tsx'
import { WORKSPACE } from './messages.ts'

/** The teacher's feedback on a student's submission, as the student sees it (nothing when none). */
export function Feedback({ html }: { html: string | null | undefined }) {
  const { t } = useT(WORKSPACE)
  if (!html) return null
  return (
    <div className="feedback">
      <p className="label">{t('submission.feedback')}</p>
      <RichText html={html} />
    </div>
  )
}
