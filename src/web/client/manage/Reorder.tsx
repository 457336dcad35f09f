import { useT } from '../i18n/index.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { NS } from './messages.ts'

/** The move-up and move-down buttons of row `index` of `count` in a reorderable list (tasks, modules). */
export function MoveButtons({ title, index, count, onMove }: { title: string; index: number; count: number; onMove: (to: number) => void }) {
  const { t } = useT(NS)
  return (
    <>
      <button aria-label={t('learning.moveUpLabel', { title })} type="button" className="btn btn-small btn-ghost" disabled={index === 0} onClick={() => onMove(index - 1)}>
        {t('learning.moveUp')}
      </button>
      <button aria-label={t('learning.moveDownLabel', { title })} type="button" className="btn btn-small btn-ghost" disabled={index === count - 1} onClick={() => onMove(index + 1)}>
        {t('learning.moveDown')}
      </button>
    </>
  )
}

/** Under a reorderable list: the screen-reader announcement of the last move and a failed save. */
export function ReorderStatus({ announce, error }: { announce: string; error: unknown }) {
  return (
    <>
      <p className="sr-only" role="status">
        {announce}
      </p>
      {error != null && <ErrorNotice error={error} />}
    </>
  )
}
