import type { ReactNode } from 'react'
import { describeError } from '../api.ts'
import { useT } from '../i18n/index.ts'

/** A failure, explained for people; `role="alert"` so screen readers announce it. */
export function ErrorNotice({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useT()
  const { title, detail } = describeError(error)
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{title}</p>
      {detail && <p className="notice-detail">{detail}</p>}
      {onRetry && (
        <button type="button" className="btn btn-small" onClick={onRetry}>
          {t('ui.tryAgain')}
        </button>
      )}
    </div>
  )
}

export function Loading({ label }: { label?: string }) {
  const { t } = useT()
  return (
    <p className="loading" role="status">
      {label ?? t('ui.loading')}
    </p>
  )
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>
}

export function Success({ children }: { children: ReactNode }) {
  return (
    <p className="notice notice-success" role="status">
      {children}
    </p>
  )
}

/** What QueryView and Loaded read of a query: its data, error, whether pending, and a retry. */
export type QueryState<T> = { data: T | undefined; error: unknown; isPending: boolean; refetch: () => unknown }

/** Renders a query's three states; children get the data. */
export function QueryView<T>({
  query,
  children,
  loading,
}: {
  query: QueryState<T>
  children: (data: T) => ReactNode
  loading?: string
}) {
  if (query.isPending) return <Loading label={loading} />
  if (query.error) return <ErrorNotice error={query.error} onRetry={() => void query.refetch()} />
  return <>{children(query.data as T)}</>
}
