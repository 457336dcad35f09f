import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, fieldErrors, get } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { keys, useAnnouncements } from '../queries.ts'
import type { Announcement, Course } from '../types.ts'
import { Empty, ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { RichText } from '../ui/RichText.tsx'
import { TextField, SubmitButton } from '../ui/form.tsx'
import { fromLocalInput, Time, toLocalInput } from '../ui/time.tsx'
import { PublicationFields, PublishBadge, type Publication } from '../publishing/Publishing.tsx'
import { translate } from '../i18n/index.ts'
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
        <h3>{t('announcements.list')}</h3>
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
                      {a.state !== 'PUBLISHED' && <PublishNow courseId={course.id} announcement={a} students={students} onDone={refresh} />}
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
                    {/* Drafts and scheduled ones are marked (issue 56.4); students never see them. */}
                    <PublishBadge task={a} />
                    <p className="meta">
                      {a.publishedAt ? (
                        <>
                          {t('announcements.publishedAt')} <Time iso={a.publishedAt} />
                        </>
                      ) : (
                        <Time iso={a.createdAt} />
                      )}
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
  // A published announcement stays published; a new one, a draft or a scheduled one chooses.
  const chooses = !announcement || announcement.state !== 'PUBLISHED'
  const initial = {
    title: announcement?.title ?? '',
    content: announcement?.content ?? '',
    publication: (announcement?.state ?? 'PUBLISHED') as Publication,
    publishAt: toLocalInput(announcement?.publishAt ?? null),
  }
  const [stored, setStored, clearDraft] = useDraft(`announcement:${courseId}:${announcement?.id ?? 'new'}`, initial)
  const draft = { ...initial, ...stored }
  const [errors, setErrors] = useState<Record<string, string>>({})
  const dirty = draft.title !== initial.title || draft.content !== initial.content || draft.publication !== initial.publication || draft.publishAt !== initial.publishAt
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = { title: draft.title.trim(), content: draft.content }
      if (chooses && (!announcement || draft.publication !== announcement.state || draft.publishAt !== initial.publishAt)) {
        body.state = draft.publication
        if (draft.publication === 'SCHEDULED') body.publishAt = fromLocalInput(draft.publishAt)
      }
      return announcement
        ? api<Announcement>('PATCH', `/courses/${courseId}/announcements/${announcement.id}`, body)
        : api<Announcement>('POST', `/courses/${courseId}/announcements`, body)
    },
    onSuccess: () => {
      clearDraft()
      onSaved()
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })
  // Issue 56.5h: "Published." belongs to the last save; typing the next one takes it away.
  const setDraft = (next: typeof draft) => {
    if (save.isSuccess) save.reset()
    setStored(next)
  }
  useUnsavedChanges(dirty && !save.isPending)
  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!draft.title.trim()) errs.title = t('announcements.titleRequired')
    if (!draft.content.trim()) errs.content = t('announcements.contentRequired')
    if (chooses && draft.publication === 'SCHEDULED') {
      const at = fromLocalInput(draft.publishAt)
      if (!at || Date.parse(at) <= Date.now()) errs.publishAt = translate('publishing:publishAtRequired')
    }
    setErrors(errs)
    if (Object.keys(errs).length) return
    const publishesNow = chooses && draft.publication === 'PUBLISHED' && announcement?.state !== 'PUBLISHED'
    if (publishesNow && !window.confirm(t('announcements.confirmPublish', { count: students }))) return
    save.mutate()
  }
  const submitLabel = !chooses
    ? t('common.save')
    : draft.publication === 'DRAFT'
      ? t('announcements.saveDraft')
      : draft.publication === 'SCHEDULED'
        ? t('announcements.schedule')
        : announcement
          ? t('announcements.publishNow')
          : t('announcements.publish')
  const savedAs = save.data?.state
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
        hint={announcement?.state === 'PUBLISHED' ? t('announcements.editHint') : t('announcements.notifyHint', { count: students })}
      />
      {chooses && (
        <PublicationFields
          value={draft.publication}
          publishAt={draft.publishAt}
          error={errors.publishAt}
          onChange={(publication) => setDraft({ ...draft, publication })}
          onPublishAt={(publishAt) => setDraft({ ...draft, publishAt })}
          hint={t(`announcements.choiceHint.${draft.publication}`)}
        />
      )}
      {save.error && !Object.keys(errors).length && <ErrorNotice error={save.error} />}
      <div className="actions">
        <SubmitButton pending={save.isPending} pendingLabel={t('common.saving')} label={submitLabel} />
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
      {save.isSuccess && !announcement && (
        <Success>{savedAs === 'DRAFT' ? t('announcements.draftSaved') : savedAs === 'SCHEDULED' ? t('announcements.scheduled') : t('announcements.done')}</Success>
      )}
    </form>
  )
}

/** "Publish now" for a draft or a scheduled announcement: its students are notified then, once (confirmed with their number). */
function PublishNow({ courseId, announcement, students, onDone }: { courseId: string; announcement: Announcement; students: number; onDone: () => void }) {
  const { t } = useT(NS)
  const publish = useMutation({
    mutationFn: () => api<Announcement>('PATCH', `/courses/${courseId}/announcements/${announcement.id}`, { state: 'PUBLISHED' }),
    onSuccess: onDone,
  })
  return (
    <>
      <button
        type="button"
        className="btn btn-small btn-primary"
        aria-label={t('announcements.publishNowLabel', { title: announcement.title })}
        disabled={publish.isPending}
        onClick={() => {
          if (window.confirm(t('announcements.confirmPublish', { count: students }))) publish.mutate()
        }}
      >
        {t('announcements.publishNow')}
      </button>
      {publish.error != null && <ErrorNotice error={publish.error} />}
    </>
  )
}
