import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api, fieldErrors } from '../api.ts'
import { ExperimentGrading } from '../grading/ExperimentGrading.tsx'
import { useT } from '../i18n/index.ts'
import { keys, useExperiments } from '../queries.ts'
import type { Experiment, GradeRelease } from '../types.ts'
import { RadioGroup, TextField, SubmitButton } from '../ui/form.tsx'
import { Empty, ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { fromLocalInput, Time, toLocalInput } from '../ui/time.tsx'
import { useDraft } from '../ui/useDraft.ts'
import { DeleteButton } from './DeleteButton.tsx'
import { NS } from './messages.ts'
import type { TabProps } from './types.ts'
import { useUnsavedChanges } from './useUnsavedChanges.ts'

export function ExperimentsTab({ course }: TabProps) {
  const { t } = useT(NS)
  const list = useExperiments(course.id)
  const queryClient = useQueryClient()
  const [open, setOpen] = useState<{ id: string; panel: 'submissions' | 'edit' } | null>(null)
  const toggle = (id: string, panel: 'submissions' | 'edit') => setOpen((x) => (x?.id === id && x.panel === panel ? null : { id, panel }))
  return (
    <div className="grid-2">
      <div>
        <h3>{t('experiments.heading')}</h3>
        <QueryView query={list}>
          {(items) =>
            items.length === 0 ? (
              <Empty>{t('experiments.none')}</Empty>
            ) : (
              <ul className="plain stack">
                {items.map((e) => (
                  <li key={e.id} className="row-item">
                    <div className="item-head">
                      <Link to={`/experiments/${e.id}?courseId=${course.id}`}>{e.title}</Link>
                      <span className="meta">
                        {t('experiments.due')} <Time iso={e.dueAt} />
                      </span>
                      <button
                        aria-label={t('experiments.submissionsOf', { title: e.title })}
                        type="button"
                        className="btn btn-small"
                        aria-expanded={open?.id === e.id && open.panel === 'submissions'}
                        onClick={() => toggle(e.id, 'submissions')}
                      >
                        {t('experiments.submissions')}
                      </button>
                      <button
                        aria-label={t('experiments.editLabel', { title: e.title })}
                        type="button"
                        className="btn btn-small btn-ghost"
                        aria-expanded={open?.id === e.id && open.panel === 'edit'}
                        onClick={() => toggle(e.id, 'edit')}
                      >
                        {t('common.edit')}
                      </button>
                      <DeleteButton
                        label={t('experiments.deleteLabel', { title: e.title })}
                        confirm={t('experiments.confirmDelete', { title: e.title })}
                        path={`/courses/${course.id}/experiments/${e.id}`}
                        onDeleted={() => {
                          if (open?.id === e.id) setOpen(null)
                          void queryClient.invalidateQueries({ queryKey: keys.experiments(course.id) })
                        }}
                      />
                    </div>
                    {open?.id === e.id && open.panel === 'submissions' && <ExperimentGrading experimentId={e.id} courseId={course.id} />}
                    {open?.id === e.id && open.panel === 'edit' && <ExperimentForm courseId={course.id} experiment={e} onDone={() => setOpen(null)} />}
                  </li>
                ))}
              </ul>
            )
          }
        </QueryView>
      </div>
      <ExperimentForm courseId={course.id} />
    </div>
  )
}

/** Publish a new experiment (POST) or edit one (PATCH); the draft survives a re-login. */
function ExperimentForm({ courseId, experiment, onDone }: { courseId: string; experiment?: Experiment; onDone?: () => void }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const initial = useState(() => ({
    title: experiment?.title ?? '',
    description: experiment?.description ?? '',
    dueAt: toLocalInput(experiment?.dueAt ?? new Date(Date.now() + 14 * 86400_000).toISOString()),
    gradeRelease: (experiment?.gradeRelease ?? 'AUTOMATIC') as GradeRelease,
  }))[0]
  const [d, setD, clearDraft] = useDraft(`experiment:${courseId}:${experiment?.id ?? 'new'}`, initial)
  const release = d.gradeRelease ?? 'AUTOMATIC' // drafts kept from before have none
  const dirty = d.title !== initial.title || d.description !== initial.description || d.dueAt !== initial.dueAt || release !== initial.gradeRelease
  const [errors, setErrors] = useState<Record<string, string>>({})
  const save = useMutation({
    mutationFn: () => {
      const body = { title: d.title.trim(), description: d.description, dueAt: fromLocalInput(d.dueAt), gradeRelease: release }
      return experiment
        ? api<Experiment>('PATCH', `/courses/${courseId}/experiments/${experiment.id}`, body)
        : api<Experiment>('POST', `/courses/${courseId}/experiments`, body)
    },
    onSuccess: () => {
      clearDraft()
      void queryClient.invalidateQueries({ queryKey: keys.experiments(courseId) })
      if (experiment) void queryClient.invalidateQueries({ queryKey: keys.experiment(courseId, experiment.id) })
      onDone?.()
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })
  useUnsavedChanges(dirty && !save.isPending)
  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!d.title.trim()) errs.title = t('experiments.errors.title')
    if (!d.description.trim()) errs.description = t('experiments.errors.description')
    if (!fromLocalInput(d.dueAt)) errs.dueAt = t('experiments.errors.dueAt')
    setErrors(errs)
    if (!Object.keys(errs).length) save.mutate()
  }
  return (
    <form onSubmit={submit} noValidate aria-label={experiment ? t('experiments.editLabel', { title: experiment.title }) : t('experiments.new')}>
      {!experiment && <h3>{t('experiments.new')}</h3>}
      <TextField label={t('experiments.title')} value={d.title} onChange={(e) => setD({ ...d, title: e.target.value })} error={errors.title} maxLength={200} required />
      <RichEditor label={t('experiments.description')} value={d.description} onChange={(description) => setD({ ...d, description })} error={errors.description} />
      <TextField label={t('experiments.dueAt')} type="datetime-local" value={d.dueAt} onChange={(e) => setD({ ...d, dueAt: e.target.value })} error={errors.dueAt} required />
      <div className="field">
        <RadioGroup<GradeRelease>
          legend={t('taskForm.gradeRelease')}
          name="experiment-grade-release"
          value={release}
          onChange={(gradeRelease) => setD({ ...d, gradeRelease })}
          options={[
            { value: 'AUTOMATIC', label: t('taskForm.releaseAutomatic') },
            { value: 'MANUAL', label: t('taskForm.releaseManual') },
          ]}
        />
        <p className="hint">{t('taskForm.gradeReleaseHint')}</p>
      </div>
      {save.error && !Object.keys(errors).length && <ErrorNotice error={save.error} />}
      <div className="actions">
        <SubmitButton pending={save.isPending} pendingLabel={t('common.saving')} label={experiment ? t('common.save') : t('experiments.publish')} />
        {onDone && (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => {
              clearDraft()
              onDone()
            }}
          >
            {t('common.cancel')}
          </button>
        )}
      </div>
      {save.isSuccess && !experiment && <Success>{t('experiments.published')}</Success>}
    </form>
  )
}
