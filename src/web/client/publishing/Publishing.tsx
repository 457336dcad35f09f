import { useMutation } from '@tanstack/react-query'
import { api } from '../api.ts'
import { useT } from '../i18n/index.ts'
import type { Task } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { RadioGroup, TextField } from '../ui/form.tsx'
import { ErrorNotice } from '../ui/Notice.tsx'
import { formatDateTime } from '../ui/time.tsx'
import { PUBLISHING } from './messages.ts'

/** What the task form offers: publish now, keep as a draft, or publish at a time. */
export type Publication = 'PUBLISHED' | 'DRAFT' | 'SCHEDULED'
export type PublishState = Task['state']

/** The form offers the choice for a new task and for one students have never seen. */
export const offersPublication = (task?: Task) => !task || task.state === 'DRAFT' || task.state === 'SCHEDULED'

/** "Draft" / "Scheduled · publishes …" / "Unpublished" next to a task; nothing for a published one. */
export function PublishBadge({ task }: { task: { state: PublishState; publishAt: string | null } }) {
  const { t } = useT(PUBLISHING)
  if (task.state === 'PUBLISHED') return null
  const tone = task.state === 'DRAFT' ? 'warn' : task.state === 'SCHEDULED' ? 'info' : 'neutral'
  return (
    <span className="publish-state" data-testid="publish-state" data-state={task.state}>
      <Badge tone={tone}>{t(`state.${task.state}`)}</Badge>
      <span className="meta">{task.state === 'SCHEDULED' && task.publishAt ? t('scheduledFor', { when: formatDateTime(task.publishAt) }) : t('hidden')}</span>
    </span>
  )
}

/** The publishing part of the task form. */
export function PublicationFields({
  value,
  publishAt,
  error,
  onChange,
  onPublishAt,
  hint,
}: {
  value: Publication
  publishAt: string
  error?: string
  onChange: (v: Publication) => void
  onPublishAt: (v: string) => void
  /** What the choice does, when not a task's (announcements have no reminders). */
  hint?: string
}) {
  const { t } = useT(PUBLISHING)
  return (
    <fieldset className="publication-editor" data-testid="publication">
      <RadioGroup<Publication>
        legend={t('legend')}
        name="publication"
        value={value}
        onChange={onChange}
        options={(['PUBLISHED', 'DRAFT', 'SCHEDULED'] as const).map((v) => ({ value: v, label: t(`choice.${v}`) }))}
      />
      <p className="hint">{hint ?? t(`choiceHint.${value}`)}</p>
      {value === 'SCHEDULED' && (
        <TextField label={t('publishAt')} type="datetime-local" value={publishAt} onChange={(e) => onPublishAt(e.target.value)} error={error} required />
      )}
    </fieldset>
  )
}

/** The submit button's words for a draft or a schedule (publishing now keeps "Create task"). */
export const submitLabelKey = (p: Exclude<Publication, 'PUBLISHED'>) => `publishing:submit.${p}`

/** "Publish now" for a task students do not see; "Unpublish" (confirmed) for one they do. */
export function PublishButton({ task, courseId, onDone }: { task: Task; courseId: string; onDone: () => void }) {
  const { t } = useT(PUBLISHING)
  const change = useMutation({
    mutationFn: (state: PublishState) => api<Task>('PATCH', `/courses/${courseId}/learning/tasks/${task.id}`, { state }),
    onSuccess: onDone,
  })
  const published = task.state === 'PUBLISHED'
  return (
    <>
      <button
        type="button"
        className={`btn btn-small${published ? ' btn-ghost' : ' btn-primary'}`}
        aria-label={t(published ? 'unpublishLabel' : 'publishLabel', { title: task.title })}
        disabled={change.isPending}
        onClick={() => {
          if (!published) change.mutate('PUBLISHED')
          else if (window.confirm(t('confirmUnpublish', { title: task.title }))) change.mutate('UNPUBLISHED')
        }}
      >
        {change.isPending ? t('working') : t(published ? 'unpublish' : 'publish')}
      </button>
      {change.error != null && <ErrorNotice error={change.error} />}
    </>
  )
}
