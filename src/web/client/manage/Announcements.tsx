import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, fieldErrors } from '../api.ts'
import type { TabProps } from './types.ts'
import { keys, useAnnouncements } from '../queries.ts'
import type { Announcement } from '../types.ts'
import { Empty, ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { RichText } from '../ui/RichText.tsx'
import { TextField } from '../ui/form.tsx'
import { Time } from '../ui/time.tsx'

export function AnnouncementsTab({ course }: TabProps) {
  const list = useAnnouncements(course.id)
  const queryClient = useQueryClient()
  const [title, setTitle] = useState('')
  const [content, setContent] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const publish = useMutation({
    mutationFn: () => api<Announcement>('POST', `/courses/${course.id}/announcements`, { title: title.trim(), content }),
    onSuccess: () => {
      setTitle('')
      setContent('')
      void queryClient.invalidateQueries({ queryKey: keys.announcements(course.id) })
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!title.trim()) errs.title = 'Give the announcement a title.'
    if (!content.trim()) errs.content = 'Write the announcement.'
    setErrors(errs)
    if (!Object.keys(errs).length) publish.mutate()
  }
  return (
    <div className="grid-2">
      <form onSubmit={submit} noValidate aria-label="New announcement">
        <h3>New announcement</h3>
        <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} error={errors.title} maxLength={200} required />
        <RichEditor label="Message" value={content} onChange={setContent} error={errors.content} hint="Students are notified when you publish." />
        {publish.error && !Object.keys(errors).length && <ErrorNotice error={publish.error} />}
        <button type="submit" className="btn btn-primary" disabled={publish.isPending}>
          {publish.isPending ? 'Publishing…' : 'Publish'}
        </button>
        {publish.isSuccess && <Success>Published.</Success>}
      </form>
      <div>
        <h3>Published</h3>
        <QueryView query={list}>
          {(items) =>
            items.length === 0 ? (
              <Empty>Nothing published yet.</Empty>
            ) : (
              <ul className="plain stack">
                {items.map((a) => (
                  <li key={a.id} className="announcement">
                    <h4>{a.title}</h4>
                    <p className="meta">
                      <Time iso={a.createdAt} />
                    </p>
                    <RichText html={a.content} />
                  </li>
                ))}
              </ul>
            )
          }
        </QueryView>
      </div>
    </div>
  )
}
