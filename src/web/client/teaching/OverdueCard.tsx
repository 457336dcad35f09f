import { Link } from 'react-router'
import { formatRelative } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { formatDateTime } from '../ui/time.tsx'
import { TEACHING } from './messages.ts'

/** "What to do next": work past its deadline and not handed in (late work is still accepted). */
export function OverdueCard({ items, now }: { items: { key: string; title: string; at: string; to: string }[]; now: number }) {
  const { t } = useT(TEACHING)
  return (
    <div className="next-card next-overdue" data-testid="next-overdue">
      <p className="label">{t('next.overdue')}</p>
      <ul className="plain">
        {items.slice(0, 3).map((o) => (
          <li key={o.key}>
            <Link to={o.to}>{o.title}</Link>{' '}
            <span className="meta">{t('next.wasDue', { relative: formatRelative((Date.parse(o.at) - now) / 1000), date: formatDateTime(o.at) })}</span>
          </li>
        ))}
      </ul>
      {items.length > 3 && <p className="meta">{t('next.moreOverdue', { count: items.length - 3 })}</p>}
      <p className="hint">{t('next.lateAccepted')}</p>
    </div>
  )
}
