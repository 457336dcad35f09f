import { useQueryClient, type Query, type QueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { API_BASE } from './api.ts'
import { keys } from './queries.ts'
import type { HomeworkList } from './types.ts'

/*
 * Live updates: one EventSource on GET /notifications/stream for the logged-in app. `counts`
 * events set the inbox count and the homework red dot; `notification` events refresh the inbox
 * lists. The browser reconnects by itself (sending Last-Event-ID, so nothing is missed); when
 * the stream is refused (429, 401) or the browser gives up, we reconnect with a backoff, and the
 * callers' polling runs only while the stream is down (`connected` false).
 */

interface Counts {
  unreadCount: number
  unreadReminderCount: number
}

/** The homework lists (the red dot's `unreadReminderCount`): the student's and each course's. */
const HOMEWORK_LISTS = [['homeworks', 'mine'], ['homeworks', 'course']] as const

function applyCounts(qc: QueryClient, c: Counts) {
  qc.setQueryData(keys.unreadCount, c.unreadCount)
  for (const queryKey of HOMEWORK_LISTS) {
    qc.setQueriesData<HomeworkList>({ queryKey }, (old) => (old ? { ...old, unreadReminderCount: c.unreadReminderCount } : old))
  }
  // A fetch still in flight was answered before these counts: its answer would overwrite them,
  // and a list still loading has no data to set them on. Such fetches are dropped and made again.
  const inFlight = [keys.unreadCount, ...HOMEWORK_LISTS].flatMap((queryKey) => qc.getQueryCache().findAll({ queryKey, fetchStatus: 'fetching' }))
  if (inFlight.length === 0) return
  const again = (q: Query) => inFlight.includes(q)
  void qc.cancelQueries({ predicate: again }).then(() => qc.refetchQueries({ predicate: again, type: 'active' }))
}

/** Opens the stream while mounted; returns whether it is connected (polling is the fallback). */
export function useLiveNotifications(): boolean {
  const qc = useQueryClient()
  const [connected, setConnected] = useState(false)
  useEffect(() => {
    if (typeof EventSource === 'undefined') return
    let source: EventSource | null = null
    let retry: ReturnType<typeof setTimeout> | null = null
    let delay = 2000
    let stopped = false
    const open = () => {
      source = new EventSource(`${API_BASE}/notifications/stream`, { withCredentials: true })
      source.onopen = () => {
        delay = 2000
        setConnected(true)
      }
      source.addEventListener('counts', (e) => {
        try {
          applyCounts(qc, JSON.parse((e as MessageEvent).data) as Counts)
        } catch {}
      })
      source.addEventListener('notification', (e) => {
        void qc.invalidateQueries({ queryKey: keys.notifications, refetchType: 'active', exact: false, predicate: (q) => q.queryKey[1] === 'list' })
        // A comment notification: the threads on screen fetch what is new.
        try {
          const type = (JSON.parse((e as MessageEvent).data) as { type?: string }).type
          if (type === 'COMMENT_REPLY' || type === 'PRIVATE_COMMENT') void qc.invalidateQueries({ queryKey: keys.comments, refetchType: 'active' })
        } catch {}
      })
      source.onerror = () => {
        setConnected(false)
        // CONNECTING: the browser retries by itself. CLOSED: refused; we retry later.
        if (source?.readyState === EventSource.CLOSED && !stopped) {
          source.close()
          retry = setTimeout(open, delay)
          delay = Math.min(delay * 2, 60_000)
        }
      }
    }
    open()
    return () => {
      stopped = true
      if (retry) clearTimeout(retry)
      source?.close()
      setConnected(false)
    }
  }, [qc])
  return connected
}
