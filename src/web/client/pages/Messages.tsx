import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import { api } from '../api.ts'
import { defineMessages, useT } from '../i18n/index.ts'
import en from '../i18n/messages/en/messages.ts'
import zh from '../i18n/messages/zh-CN/messages.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys, useNotifications } from '../queries.ts'
import type { Notification } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { Checkbox } from '../ui/form.tsx'
import { Empty, ErrorNotice, QueryView } from '../ui/Notice.tsx'
import { Pager } from '../ui/Pager.tsx'
import { Time } from '../ui/time.tsx'

const NS = defineMessages('messages', en, zh)
const TYPES = Object.keys(en.type)

/** A same-site path from the API, safe to use as a client-side link. */
const internal = (p: string | null): p is string => !!p && p.startsWith('/') && !p.startsWith('//')

export default function MessagesPage() {
  const { t } = useT(NS)
  usePageTitle(t('title'))
  const queryClient = useQueryClient()
  const [unreadOnly, setUnreadOnly] = useState(false)
  const [page, setPage] = useState(1)
  const list = useNotifications({ unreadOnly, page })
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: keys.notifications })
    // The homework red dot counts unread reminders.
    void queryClient.invalidateQueries({ queryKey: keys.homeworks })
  }
  const readAll = useMutation({ mutationFn: () => api<{ updated: number }>('PATCH', '/notifications/read-all'), onSuccess: refresh })
  const readOne = useMutation({ mutationFn: (id: string) => api<Notification>('PATCH', `/notifications/${id}/read`), onSuccess: refresh })

  return (
    <>
      <div className="page-head">
        <h1>{t('title')}</h1>
        <button
          type="button"
          className="btn"
          onClick={() => readAll.mutate()}
          disabled={readAll.isPending || !list.data || list.data.unreadCount === 0}
        >
          {t('markAllRead')}
        </button>
      </div>
      <div className="filters">
        <Checkbox
          label={t('unreadOnly')}
          checked={unreadOnly}
          onChange={(v) => {
            setUnreadOnly(v)
            setPage(1)
          }}
        />
        {list.data && (
          <p className="meta" role="status">
            {t('unreadCount', { count: list.data.unreadCount })}
          </p>
        )}
      </div>
      {readAll.error && <ErrorNotice error={readAll.error} />}
      {readOne.error && <ErrorNotice error={readOne.error} />}
      <QueryView query={list} loading={t('loading')}>
        {(data) =>
          data.items.length === 0 ? (
            <Empty>{unreadOnly ? t('emptyUnread') : t('empty')}</Empty>
          ) : (
            <>
              <ul className="plain stack" data-testid="messages">
                {data.items.map((n) => (
                  <li key={n.id} className={`message${n.readAt ? '' : ' unread'}`} data-testid="message" data-read={n.readAt ? 'true' : 'false'}>
                    <div className="message-head">
                      {!n.readAt && <span className="dot" aria-hidden="true" />}
                      <h2 className="h3">
                        {internal(n.actionPath) ? (
                          <Link to={n.actionPath} onClick={() => !n.readAt && readOne.mutate(n.id)}>
                            {n.title}
                          </Link>
                        ) : (
                          n.title
                        )}
                        {!n.readAt && <span className="sr-only">{t('unreadMark')}</span>}
                      </h2>
                      <Badge tone={n.type === 'HOMEWORK_REMINDER' ? 'warn' : n.type === 'SUBMISSION_GRADED' ? 'ok' : 'info'}>{TYPES.includes(n.type) ? t(`type.${n.type}`) : n.type}</Badge>
                    </div>
                    {n.content && <p>{n.content}</p>}
                    <p className="meta">
                      <Time iso={n.deliveredAt} />
                      {n.readAt && (
                        <>
                          {' '}
                          {t('readAt')} <Time iso={n.readAt} />
                        </>
                      )}
                    </p>
                    {!n.readAt && (
                      <button aria-label={t('markReadOf', { title: n.title })} type="button" className="btn btn-small" onClick={() => readOne.mutate(n.id)} disabled={readOne.isPending}>
                        {t('markRead')}
                      </button>
                    )}
                  </li>
                ))}
              </ul>
              <Pager page={data.page} pageSize={data.pageSize} total={data.total} onPage={setPage} />
            </>
          )
        }
      </QueryView>
    </>
  )
}
