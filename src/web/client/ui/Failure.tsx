import type { ReactNode } from 'react'
import { ApiError } from '../api.ts'
import { useT } from '../i18n/index.ts'
import '../layout/shell.ts'
import { ErrorNotice, type QueryState } from './Notice.tsx'
import { Skeleton } from './Skeleton.tsx'

/** Whether trying the same request again can help: the network, the server, throttling. Not 400/403/404. */
export const retryable = (error: unknown) =>
  !(error instanceof ApiError) || error.status === 0 || error.status === 408 || error.status === 429 || error.status >= 500

/**
 * A failed request in people's words. A bad or unknown id (400/404) says the link is broken or
 * the thing is gone, 403 says whose it is; "Try again" only where trying again can help.
 */
export function Failure({ error, onRetry, what }: { error: unknown; onRetry?: () => void; what?: 'course' | 'experiment' | 'task' }) {
  const { t } = useT('shell')
  if (error instanceof ApiError && (error.status === 400 || error.status === 404 || error.status === 403)) {
    const forbidden = error.status === 403
    const title = forbidden ? t('failure.forbidden.thing') : t(`failure.missing.${what ?? 'thing'}`)
    const detail = forbidden && what ? `${t(`failure.forbidden.${what}`)} ${t('failure.forbidden.detail')}` : t(`failure.${forbidden ? 'forbidden' : 'missing'}.detail`)
    return (
      <div className="notice notice-error" role="alert" data-testid="failure">
        <p className="notice-title">{title}</p>
        <p className="notice-detail">{detail}</p>
      </div>
    )
  }
  return <ErrorNotice error={error} onRetry={onRetry && retryable(error) ? onRetry : undefined} />
}

/** A query's three states: a skeleton while loading, a failure with a retry where it helps, the data. */
export function Loaded<T>({
  query,
  children,
  skeleton,
  what,
}: {
  query: QueryState<T>
  children: (data: T) => ReactNode
  skeleton?: ReactNode
  what?: 'course' | 'experiment' | 'task'
}) {
  if (query.isPending) return <>{skeleton ?? <Skeleton />}</>
  if (query.error) return <Failure error={query.error} onRetry={() => void query.refetch()} what={what} />
  return <>{children(query.data as T)}</>
}
