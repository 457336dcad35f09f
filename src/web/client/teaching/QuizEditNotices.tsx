import { ApiError } from '../api.ts'
import { useT } from '../i18n/index.ts'
import type { EditedTask } from '../types.ts'
import { Success } from '../ui/Notice.tsx'
import { TEACHING } from './messages.ts'

interface AnsweredQuestion {
  id: string
  stem: string
  answers: number
}

/** The answered questions an edit would remove (409 HAS_SUBMISSIONS from PATCH task), or null. */
export function answeredQuestionsOf(error: unknown): AnsweredQuestion[] | null {
  if (!(error instanceof ApiError) || error.status !== 409) return null
  const qs = (error.data as { questions?: unknown } | null)?.questions
  return Array.isArray(qs) && qs.length ? (qs as AnsweredQuestion[]) : null
}

/** Asks before a quiz edit removes questions students answered (the server refused it without asking). */
export function ConfirmQuestionRemoval({ questions, onConfirm, onKeep }: { questions: AnsweredQuestion[]; onConfirm: () => void; onKeep: () => void }) {
  const { t } = useT(TEACHING)
  return (
    <div className="notice notice-warn" role="alertdialog" aria-labelledby="confirm-removal-title" data-testid="confirm-question-removal">
      <p className="notice-title" id="confirm-removal-title">
        {t('quizEdit.confirmTitle')}
      </p>
      <p>{t('quizEdit.confirmBody')}</p>
      <ul>
        {questions.map((q) => (
          <li key={q.id}>
            {q.stem} — {t('quizEdit.answers', { count: q.answers })}
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" className="btn btn-danger" onClick={onConfirm}>
          {t('quizEdit.confirm')}
        </button>
        <button type="button" className="btn btn-ghost" onClick={onKeep}>
          {t('quizEdit.keep')}
        </button>
      </div>
    </div>
  )
}

/** What a saved quiz edit did to the sheets already handed in. */
export function RegradeNotice({ regrade }: { regrade: NonNullable<EditedTask['regrade']> }) {
  const { t } = useT(TEACHING)
  return (
    <div data-testid="regrade-notice">
      <Success>{t('quizEdit.regraded', { rescored: regrade.rescored, sheets: regrade.sheets })}</Success>
      {regrade.needsReview > 0 && <p className="notice notice-warn">{t('quizEdit.needsReview', { count: regrade.needsReview })}</p>}
    </div>
  )
}
