import { useT } from '../i18n/index.ts'
import '../layout/shell.ts'

/** A placeholder in the shape of what is loading; screen readers hear one "Loading" status. */
export function Skeleton({ lines = 3, variant = 'lines' }: { lines?: number; variant?: 'lines' | 'cards' | 'page' }) {
  const { t } = useT('shell')
  return (
    <div className={`skeleton skeleton-${variant}`} role="status" aria-live="polite" data-testid="skeleton">
      <span className="sr-only">{t('loading')}</span>
      {variant === 'page' && <div className="skeleton-bar skeleton-title" aria-hidden="true" />}
      {Array.from({ length: lines }, (_, i) => (
        <div key={i} className={variant === 'cards' ? 'skeleton-card' : 'skeleton-bar'} aria-hidden="true" />
      ))}
    </div>
  )
}

/** The whole page while its code or first data load (also React Router's HydrateFallback). */
export function PageSkeleton() {
  return (
    <div className="container">
      <Skeleton variant="page" lines={4} />
    </div>
  )
}
