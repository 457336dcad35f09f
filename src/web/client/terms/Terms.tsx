import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api, fieldErrors } from '../api.ts'
import { formatDateTime } from '../i18n/format.ts'
import { defineMessages, useT } from '../i18n/index.ts'
import en from '../i18n/messages/en/terms.ts'
import zh from '../i18n/messages/zh-CN/terms.ts'
import { keys, useCourseHomeworks, useExperiments } from '../queries.ts'
import type { Course } from '../types.ts'
import { TextField, SubmitButton } from '../ui/form.tsx'
import { ErrorNotice, Success } from '../ui/Notice.tsx'

const NS = defineMessages('terms', en, zh)
const DAY = 86400_000

/** Shown on every page of an archived course. */
export function ArchivedBanner({ course }: { course: Pick<Course, 'archived'> }) {
  const { t } = useT(NS)
  if (!course.archived) return null
  return (
    <div className="notice" role="status" data-testid="archived-banner">
      <p>{t('archivedBanner')}</p>
    </div>
  )
}

/** Archive / unarchive, with a confirmation. */
export function ArchivePanel({ course }: { course: Course }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const change = useMutation({
    mutationFn: (archived: boolean) => api<Course>('PATCH', `/courses/${course.id}`, { archived }),
    onSuccess: (c) => {
      queryClient.setQueryData(keys.course(course.id), c)
      void queryClient.invalidateQueries({ queryKey: keys.courses })
      void queryClient.invalidateQueries({ queryKey: ['courses', 'archived'] })
    },
  })
  const next = !course.archived
  return (
    <section aria-labelledby="archive-heading">
      <h3 id="archive-heading">{t('archive.heading')}</h3>
      <p>{t('archive.explain')}</p>
      <button
        type="button"
        className="btn"
        data-testid="archive-toggle"
        disabled={change.isPending}
        onClick={() => {
          if (window.confirm(t(next ? 'archive.confirmArchive' : 'archive.confirmUnarchive', { title: course.title }))) change.mutate(next)
        }}
      >
        {change.isPending ? t('archive.working') : t(next ? 'archive.archive' : 'archive.unarchive')}
      </button>
      {change.error != null && <ErrorNotice error={change.error} />}
    </section>
  )
}

/** "Copy to a new term": title, a date shift with a preview of the first deadlines. */
export function CopyPanel({ course }: { course: Course }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const [title, setTitle] = useState(course.title)
  const [shift, setShift] = useState('182')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const homeworks = useCourseHomeworks(course.id)
  const experiments = useExperiments(course.id)
  const days = Number(shift)
  const shiftOk = /^-?\d+$/.test(shift.trim()) && Math.abs(days) <= 3650
  const deadlines = [
    ...(homeworks.data?.items ?? []).map((h) => ({ title: h.title, dueAt: h.dueAt })),
    ...(experiments.data ?? []).map((e) => ({ title: e.title, dueAt: e.dueAt })),
  ]
    .filter((d): d is { title: string; dueAt: string } => Boolean(d.dueAt))
    .sort((a, b) => a.dueAt.localeCompare(b.dueAt))
    .slice(0, 3)
  const copy = useMutation({
    mutationFn: () => api<Course>('POST', `/courses/${course.id}/copy`, { title: title.trim(), shiftDays: days }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.courses }),
    onError: (e) => setErrors(fieldErrors(e)),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const found: Record<string, string> = {}
    if (!title.trim()) found.title = t('copy.titleRequired')
    if (!shiftOk) found.shiftDays = t('copy.shiftInvalid')
    setErrors(found)
    if (!Object.keys(found).length) copy.mutate()
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="copy-heading" data-testid="copy-form">
      <h3 id="copy-heading">{t('copy.heading')}</h3>
      <p>{t('copy.explain')}</p>
      <TextField label={t('copy.title')} value={title} onChange={(e) => setTitle(e.target.value)} error={errors.title} maxLength={120} required />
      <TextField
        label={t('copy.shift')}
        hint={t('copy.shiftHint')}
        inputMode="numeric"
        value={shift}
        onChange={(e) => setShift(e.target.value)}
        error={errors.shiftDays}
      />
      <p>{t('copy.preview')}</p>
      {deadlines.length ? (
        <ul data-testid="copy-preview">
          {deadlines.map((d) => (
            <li key={`${d.title}-${d.dueAt}`}>
              {d.title}: {formatDateTime(shiftOk ? new Date(Date.parse(d.dueAt) + days * DAY).toISOString() : d.dueAt)}
            </li>
          ))}
        </ul>
      ) : (
        <p className="meta">{t('copy.noDeadlines')}</p>
      )}
      {copy.error != null && !Object.keys(errors).length && <ErrorNotice error={copy.error} />}
      <SubmitButton pending={copy.isPending} pendingLabel={t('copy.working')} label={t('copy.submit')} />
      {copy.data && (
        <Success>
          <Link to={`/courses/${copy.data.id}/manage`} data-testid="copied-link">
            {t('copy.done')}
          </Link>
        </Success>
      )}
    </form>
  )
}

/** "Download all" for an experiment's grading: every student's newest file as one zip. */
export function DownloadAllLink({ courseId, experimentId }: { courseId: string; experimentId: string }) {
  const { t } = useT(NS)
  return (
    <p>
      <a className="btn btn-small" href={`/core/api/v1/courses/${courseId}/experiments/${experimentId}/submissions.zip`} download data-testid="download-all">
        {t('downloadAll')}
      </a>
    </p>
  )
}

/** The caller's archived courses, loaded when opened. */
export function ArchivedCourses() {
  const { t } = useT(NS)
  const [open, setOpen] = useState(false)
  const archived = useQuery({
    queryKey: ['courses', 'archived'],
    queryFn: () => api<Course[]>('GET', '/courses?archived=true'),
    enabled: open,
  })
  return (
    <details onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="archived-courses">
      <summary>{t('archivedSection')}</summary>
      {archived.data &&
        (archived.data.length ? (
          <ul>
            {archived.data.map((c) => (
              <li key={c.id}>
                <Link to={`/courses/${c.id}`}>{c.title}</Link>
              </li>
            ))}
          </ul>
        ) : (
          <p className="meta">{t('noArchived')}</p>
        ))}
      {archived.error != null && <ErrorNotice error={archived.error} />}
    </details>
  )
}
