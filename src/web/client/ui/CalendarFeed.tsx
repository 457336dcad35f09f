import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, get } from '../api.ts'
import calendarEn from '../i18n/messages/en/calendar.ts'
import calendarZh from '../i18n/messages/zh-CN/calendar.ts'
import { defineMessages, useT } from '../i18n/index.ts'
import { CopyButton } from './CopyButton.tsx'
import { Failure } from './Failure.tsx'

const NS = defineMessages('calendar', calendarEn, calendarZh)
const KEY = ['me', 'calendar'] as const

/** The homework centre's private calendar feed: its URL, copy, and rotation. */
export function CalendarFeed() {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const feed = useQuery({ queryKey: KEY, queryFn: () => get<{ url: string }>('/me/calendar'), staleTime: Infinity })
  const rotate = useMutation({
    mutationFn: () => api<{ url: string }>('POST', '/me/calendar/rotate'),
    onSuccess: (data) => queryClient.setQueryData(KEY, data),
  })
  return (
    <section className="calendar-feed" aria-labelledby="calendar-feed-heading">
      <h2 id="calendar-feed-heading">{t('heading')}</h2>
      <p className="hint">{t('explain')}</p>
      {feed.error ? (
        <Failure error={feed.error} onRetry={() => void feed.refetch()} />
      ) : (
        <div className="calendar-feed-row">
          <label className="sr-only" htmlFor="calendar-feed-url">
            {t('urlLabel')}
          </label>
          <input id="calendar-feed-url" className="input calendar-feed-url" readOnly value={feed.data?.url ?? ''} onFocus={(e) => e.currentTarget.select()} data-testid="calendar-url" />
          <CopyButton value={feed.data?.url ?? ''} label={t('copy')} />
          <button
            type="button"
            className="btn btn-small"
            disabled={rotate.isPending || !feed.data}
            onClick={() => {
              if (window.confirm(t('rotateConfirm'))) rotate.mutate()
            }}
          >
            {rotate.isPending ? t('rotating') : t('rotate')}
          </button>
        </div>
      )}
      {rotate.isSuccess && (
        <p className="notice notice-success" role="status">
          {t('rotated')}
        </p>
      )}
      {rotate.error && <Failure error={rotate.error} />}
      <p className="hint">{t('warning')}</p>
    </section>
  )
}
