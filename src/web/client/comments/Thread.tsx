import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useMemo, useState, type FormEvent } from 'react'
import { api, get } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { keys, useMe } from '../queries.ts'
import type { Comment, CommentPage } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { ErrorNotice } from '../ui/Notice.tsx'
import { RichText } from '../ui/RichText.tsx'
import { Time } from '../ui/time.tsx'
import { COMMENTS } from './messages.ts'

/** Its author may edit a comment this long after writing it (the server's rule, src/modules/comments). */
const EDIT_WINDOW_MS = 15 * 60_000
/** Threads nobody notifies this reader about still catch up this often while on screen. */
const POLL_MS = 20_000
const PAGE = 50

/** A thread's API path (under /core/api/v1). */
export const threadPath = {
  announcement: (courseId: string, id: string) => `/courses/${courseId}/announcements/${id}/comments`,
  task: (courseId: string, taskId: string) => `/courses/${courseId}/learning/tasks/${taskId}/comments`,
  private: (courseId: string, taskId: string, studentId: string) => `/courses/${courseId}/learning/tasks/${taskId}/students/${studentId}/comments`,
}

/** Plain text typed in the box → the paragraphs the server's allow-list keeps (escaped). */
export function toHtml(text: string): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  return text
    .trim()
    .split(/\n{2,}/)
    .map((p) => `<p>${esc(p).replace(/\n/g, '<br>')}</p>`)
    .join('')
}

/** Stored HTML → the text to edit (paragraphs and line breaks kept). */
function toText(html: string): string {
  const doc = new DOMParser().parseFromString(html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/p>/gi, '</p>\n\n'), 'text/html')
  return (doc.body.textContent ?? '').trim()
}

/** What this device last saw of a thread: comments newer than it are marked new. */
function useSeen(path: string, items: Comment[]) {
  const key = `cls.comments.seen:${path}`
  const [seenAt] = useState(() => {
    try {
      return localStorage.getItem(key)
    } catch {
      return null
    }
  })
  const newest = items.at(-1)?.createdAt
  useEffect(() => {
    if (!newest) return
    try {
      localStorage.setItem(key, newest)
    } catch {}
  }, [key, newest])
  return seenAt
}

export interface ThreadProps {
  path: string
  /** The caller teaches the course (moderation). */
  isTeacher: boolean
  /** The caller may write here (not archived; class comments not off for a student). */
  canWrite: boolean
  /** Why not, shown instead of the box. */
  readOnlyReason?: string
  /** A private thread: nothing is hidden there. */
  private?: boolean
  placeholder?: string
}

export function CommentThread({ path, isTeacher, canWrite, readOnlyReason, private: isPrivate = false, placeholder }: ThreadProps) {
  const { t } = useT(COMMENTS)
  const me = useMe()
  const qc = useQueryClient()
  const q = useInfiniteQuery({
    queryKey: keys.commentThread(path),
    queryFn: ({ pageParam }) => get<CommentPage>(`${path}?pageSize=${PAGE}${pageParam ? `&after=${encodeURIComponent(pageParam)}` : ''}`),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchInterval: POLL_MS,
  })
  const items = useMemo(() => q.data?.pages.flatMap((p) => p.items) ?? [], [q.data])
  const seenAt = useSeen(path, items)
  const refresh = () => qc.invalidateQueries({ queryKey: keys.commentThread(path) })
  const [text, setText] = useState('')
  const post = useMutation({
    mutationFn: (content: string) => api<Comment>('POST', path, { content }),
    onSuccess: () => {
      setText('')
      void refresh()
    },
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    if (text.trim()) post.mutate(toHtml(text))
  }

  return (
    <div className="comments" data-thread={path}>
      {q.error && <ErrorNotice error={q.error} onRetry={() => void q.refetch()} />}
      {q.isSuccess && items.length === 0 && <p className="meta">{t('none')}</p>}
      <ol className="plain comment-list">
        {items.map((c) => (
          <CommentItem
            key={c.id}
            c={c}
            mine={c.author.id === me.data?.id}
            isNew={Boolean(seenAt && c.createdAt > seenAt && c.author.id !== me.data?.id)}
            canModerate={isTeacher && !isPrivate && canWrite}
            canChange={canWrite}
            onChanged={() => void refresh()}
          />
        ))}
      </ol>
      {q.hasNextPage && (
        <button type="button" className="btn btn-ghost btn-small" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage}>
          {t('more')}
        </button>
      )}
      {canWrite ? (
        <form className="comment-form" onSubmit={submit}>
          <label className="sr-only" htmlFor={`c-${path}`}>
            {placeholder ?? t('placeholder')}
          </label>
          <textarea id={`c-${path}`} rows={2} maxLength={8000} value={text} placeholder={placeholder ?? t('placeholder')} onChange={(e) => setText(e.target.value)} />
          <button type="submit" className="btn btn-primary btn-small" disabled={post.isPending || !text.trim()}>
            {post.isPending ? t('posting') : t('post')}
          </button>
          {post.error && <ErrorNotice error={post.error} />}
        </form>
      ) : (
        readOnlyReason && <p className="meta">{readOnlyReason}</p>
      )}
    </div>
  )
}

function CommentItem({ c, mine, isNew, canModerate, canChange, onChanged }: { c: Comment; mine: boolean; isNew: boolean; canModerate: boolean; canChange: boolean; onChanged: () => void }) {
  const { t } = useT(COMMENTS)
  const [editing, setEditing] = useState<string | null>(null)
  const change = useMutation({
    mutationFn: (body: { content?: string; hidden?: boolean } | 'delete') =>
      body === 'delete' ? api<null>('DELETE', `/comments/${c.id}`) : api<Comment>('PATCH', `/comments/${c.id}`, body),
    onSuccess: () => {
      setEditing(null)
      onChanged()
    },
  })
  const editable = mine && canChange && Date.now() - new Date(c.createdAt).getTime() < EDIT_WINDOW_MS
  return (
    <li className={`comment${c.hidden ? ' comment-hidden' : ''}`} data-comment-id={c.id}>
      <p className="meta">
        <strong>{c.author.displayName || c.author.username}</strong>
        {c.author.role === 'TEACHER' && <> <Badge tone="info">{t('teacher')}</Badge></>} · <Time iso={c.createdAt} />
        {c.editedAt && <> · {t('edited')}</>}
        {c.hidden && <> <Badge tone="warn">{t('hidden')}</Badge></>}
        {isNew && <> <Badge tone="danger">{t('new')}</Badge></>}
      </p>
      {editing === null ? (
        <RichText html={c.content} />
      ) : (
        <form
          className="comment-form"
          onSubmit={(e) => {
            e.preventDefault()
            if (editing.trim()) change.mutate({ content: toHtml(editing) })
          }}
        >
          <textarea aria-label={t('edit')} rows={2} value={editing} onChange={(e) => setEditing(e.target.value)} />
          <button type="submit" className="btn btn-primary btn-small" disabled={change.isPending}>
            {t('save')}
          </button>
          <button type="button" className="btn btn-small" onClick={() => setEditing(null)}>
            {t('cancel')}
          </button>
        </form>
      )}
      {editing === null && (editable || (canChange && (mine || canModerate))) && (
        <p className="comment-actions">
          {editable && (
            <button type="button" className="btn btn-ghost btn-small" onClick={() => setEditing(toText(c.content))}>
              {t('edit')}
            </button>
          )}
          {canModerate && (
            <button type="button" className="btn btn-ghost btn-small" onClick={() => change.mutate({ hidden: !c.hidden })}>
              {c.hidden ? t('unhide') : t('hide')}
            </button>
          )}
          {(mine || canModerate) && (
            <button type="button" className="btn btn-ghost btn-small btn-danger" onClick={() => window.confirm(t('confirmDelete')) && change.mutate('delete')}>
              {t('delete')}
            </button>
          )}
        </p>
      )}
      {change.error && <ErrorNotice error={change.error} />}
    </li>
  )
}
