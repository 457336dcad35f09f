import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import { api } from '../api.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys, useNotifications } from '../queries.ts'
import type { Notification } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { Checkbox } from '../ui/form.tsx'
import { Empty, ErrorNotice, QueryView } from '../ui/Notice.tsx'
import { Pager } from '../ui/Pager.tsx'
import { Time } from '../ui/time.tsx'

const TYPE_LABEL: Record<string, string> = {
  HOMEWORK_REMINDER: 'Homework reminder',
  SUBMISSION_GRADED: 'Graded',
  ANNOUNCEMENT: 'Announcement',
}

/** A same-site path from the API, safe to use as a client-side link. */
const internal = (p: string | null): p is string => !!p && p.startsWith('/') && !p.startsWith('//')

export default function MessagesPage() {
  usePageTitle('Messages')
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
        <h1>Messages</h1>
        <button
          type="button"
          className="btn"
          onClick={() => readAll.mutate()}
          disabled={readAll.isPending || !list.data || list.data.unreadCount === 0}
        >
          Mark all as read
        </button>
      </div>
      <div className="filters">
        <Checkbox
          label="Show unread only"
          checked={unreadOnly}
          onChange={(v) => {
            setUnreadOnly(v)
            setPage(1)
          }}
        />
        {list.data && (
          <p className="meta" role="status">
            {list.data.unreadCount} unread
          </p>
        )}
      </div>
      {readAll.error && <ErrorNotice error={readAll.error} />}
      {readOne.error && <ErrorNotice error={readOne.error} />}
      <QueryView query={list} loading="Loading messages…">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>{unreadOnly ? 'No unread messages.' : 'No messages yet.'}</Empty>
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
                        {!n.readAt && <span className="sr-only"> (unread)</span>}
                      </h2>
                      <Badge tone={n.type === 'HOMEWORK_REMINDER' ? 'warn' : n.type === 'SUBMISSION_GRADED' ? 'ok' : 'info'}>{TYPE_LABEL[n.type] ?? n.type}</Badge>
                    </div>
                    {n.content && <p>{n.content}</p>}
                    <p className="meta">
                      <Time iso={n.deliveredAt} />
                      {n.readAt && (
                        <>
                          {' '}
                          · read <Time iso={n.readAt} />
                        </>
                      )}
                    </p>
                    {!n.readAt && (
                      <button aria-label={`Mark as read: ${n.title}`} type="button" className="btn btn-small" onClick={() => readOne.mutate(n.id)} disabled={readOne.isPending}>
                        Mark as read
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
