import { useT } from '../i18n/index.ts'
import { TEACHING } from './messages.ts'

/** A link (a reminder, a bookmark) named a task this course no longer has: say so instead of silently showing the overview. */
export function TaskGone() {
  const { t } = useT(TEACHING)
  return (
    <div className="notice notice-info" role="status" data-testid="task-gone">
      <p className="notice-title">{t('gone.title')}</p>
      <p>{t('gone.body')}</p>
    </div>
  )
}
