import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, fieldErrors, get } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { keys, useAnnouncements } from '../queries.ts'
import type { Announcement, Course } from '../types.ts'
import { Empty, ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { RichText } from '../ui/RichText.tsx'
import { TextField } from '../ui/form.tsx'
import { Time } from '../ui/time.tsx'
import { useDraft } from '../ui/useDraft.ts'
import { DeleteButton } from './DeleteButton.tsx'
import { NS } from './messages.ts'
import type { TabProps } from './types.ts'
import { useUnsavedChanges } from './useUnsavedChanges.ts'

export function AnnouncementsTab({ course }: TabProps) {
  const { t } = useT(NS)
  const list = useAnnouncements(course.id)
  const queryClient = useQueryClient()
  const [editing, setEditing] = useState<string | null>(null)
  // Whom publishing notifies: the students (not the teacher, not co-teachers), read again each
  // time the tab opens and after each publication; the page's copy of the course may date from
  // before students joined (issue 29.10: "notifies 0 students" with 3 enrolled until a reload).
  const fresh = useQuery({ queryKey: keys.course(course.id), queryFn: () => get<Course>(`/courses/${course.id}`), refetchOnMount: 'always' })
  const students = (fresh.data ?? course).studentCount
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: keys.announcements(course.id) })
    void queryClient.invalidateQueries({ queryKey: keys.course(course.id) })
  }
  return (
    <div className="grid-2">
      <AnnouncementForm courseId={course.id} students={students} onSaved={refresh} />
      <div>
        <h3>{t('announcements.published')}</h3>
        <QueryView query={list}>
          {(items) =>
            items.length === 0 ? (
              <Empty>{t('announcements.none')}</Empty>
            ) : (
              <ul className="plain stack">
                {items.map((a) => (
                  <li key={a.id} className="announcement" data-testid="announcement">
                    <div className="item-head">
                      <h4>{a.title}</h4>
                      <button
                        type="button"
                        className="btn btn-small btn-ghost"
                        aria-label={t('announcements.editLabel', { title: a.title })}
                        aria-expanded={editing === a.id}
                        onClick={() => setEditing((x) => (x === a.id ? null : a.id))}
                      >
                        {t('common.edit')}
                      </button>
                      <DeleteButton
                        label={t('announcements.deleteLabel', { title: a.title })}
                        confirm={t('announcements.confirmDelete', { title: a.title })}
                        path={`/courses/${course.id}/announcements/${a.id}`}
                        onDeleted={refresh}
                      />
                    </div>
                    <p className="meta">
                      <Time iso={a.createdAt} />
                      {a.updatedAt !== a.createdAt && <> · {t('announcements.edited')}</>}
                    </p>
                    {editing === a.id ? (
                      <AnnouncementForm
                        courseId={course.id}
                        students={students}
                        announcement={a}
                        onSaved={() => {
                          setEditing(null)
                          refresh()
                        }}
                        onCancel={() => setEditing(null)}
                      />
                    ) : (
                      <RichText html={a.content} />
                    )}
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

/**
 * New announcement (POST; every student is notified, so the teacher confirms with the number)
 * or an edit (PATCH; no new notification). The draft survives a re-login.
 */
function AnnouncementForm({
  courseId,
  students,
  announcement,
  onSaved,
  onCancel,
}: {
  courseId: string
  students: number
  announcement?: Announcement
  onSaved: () => void
  onCancel?: () => void
}) {
  const { t } = useT(NS)
  const initial = { title: announcement?.title ?? '', content: announcement?.content ?? '' }
  const [draft, setDraft, clearDraft] = useDraft(`announcement:${courseId}:${announcement?.id ?? 'new'}`, initial)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const dirty = draft.title !== initial.title || draft.content !== initial.content
  const save = useMutation({
    mutationFn: () =>
      announcement
        ? api<Announcement>('PATCH', `/courses/${courseId}/announcements/${announcement.id}`, { title: draft.title.trim(), content: draft.content })
        : api<Announcement>('POST', `/courses/${courseId}/announcements`, { title: draft.title.trim(), content: draft.content }),
    onSuccess: () => {
      clearDraft()
      onSaved()
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })
  useUnsavedChanges(dirty && !save.isPending)
  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!draft.title.trim()) errs.title = t('announcements.titleRequired')
    if (!draft.content.trim()) errs.content = t('announcements.contentRequired')
    setErrors(errs)
    if (Object.keys(errs).length) return
    if (!announcement && !window.confirm(t('announcements.confirmPublish', { count: students }))) return
    save.mutate()
  }
  const label = announcement ? t('announcements.editLabel', { title: announcement.title }) : t('announcements.new')
  return (
    <form onSubmit={submit} noValidate aria-label={label}>
      {!announcement && <h3>{t('announcements.new')}</h3>}
      <TextField label={t('announcements.title')} value={draft.title} onChange={(e) => setDraft({ ...draft, title: e.target.value })} error={errors.title} maxLength={200} required />
      <RichEditor
        label={t('announcements.message')}
        value={draft.content}
        onChange={(content) => setDraft({ ...draft, content })}
        error={errors.content}
        hint={announcement ? t('announcements.editHint') : t('announcements.notifyHint', { count: students })}
      />
      {save.error && !Object.keys(errors).length && <ErrorNotice error={save.error} />}
      <div className="actions">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? t('common.saving') : announcement ? t('common.save') : t('announcements.publish')}
        </button>
        {onCancel && (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => {
              clearDraft()
              onCancel()
            }}
          >
            {t('common.cancel')}
          </button>
        )}
      </div>
      {save.isSuccess && !announcement && <Success>{t('announcements.done')}</Success>}
    </form>
  )
}
