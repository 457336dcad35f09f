import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api, fieldErrors } from '../api.ts'
import { ExperimentGrading } from '../grading/ExperimentGrading.tsx'
import type { TabProps } from './types.ts'
import { keys, useExperiments } from '../queries.ts'
import type { Experiment } from '../types.ts'
import { TextField } from '../ui/form.tsx'
import { Empty, ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'
import { RichEditor } from '../ui/RichEditor.tsx'
import { fromLocalInput, Time, toLocalInput } from '../ui/time.tsx'

export function ExperimentsTab({ course }: TabProps) {
  const list = useExperiments(course.id)
  const [open, setOpen] = useState<string | null>(null)
  return (
    <div className="grid-2">
      <div>
        <h3>Experiments</h3>
        <QueryView query={list}>
          {(items) =>
            items.length === 0 ? (
              <Empty>No experiments yet.</Empty>
            ) : (
              <ul className="plain stack">
                {items.map((e) => (
                  <li key={e.id} className="row-item">
                    <div className="item-head">
                      <Link to={`/experiments/${e.id}?courseId=${course.id}`}>{e.title}</Link>
                      <span className="meta">
                        due <Time iso={e.dueAt} />
                      </span>
                      <button aria-label={`Submissions: ${e.title}`} type="button" className="btn btn-small" aria-expanded={open === e.id} onClick={() => setOpen((x) => (x === e.id ? null : e.id))}>
                        Submissions
                      </button>
                    </div>
                    {open === e.id && <ExperimentGrading experimentId={e.id} courseId={course.id} />}
                  </li>
                ))}
              </ul>
            )
          }
        </QueryView>
      </div>
      <CreateExperiment courseId={course.id} />
    </div>
  )
}

function CreateExperiment({ courseId }: { courseId: string }) {
  const queryClient = useQueryClient()
  const [title, setTitle] = useState('')
  const [description, setDescription] = useState('')
  const [dueAt, setDueAt] = useState(() => toLocalInput(new Date(Date.now() + 14 * 86400_000).toISOString()))
  const [errors, setErrors] = useState<Record<string, string>>({})
  const create = useMutation({
    mutationFn: () => api<Experiment>('POST', `/courses/${courseId}/experiments`, { title: title.trim(), description, dueAt: fromLocalInput(dueAt) }),
    onSuccess: () => {
      setTitle('')
      setDescription('')
      void queryClient.invalidateQueries({ queryKey: keys.experiments(courseId) })
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!title.trim()) errs.title = 'Give the experiment a title.'
    if (!description.trim()) errs.description = 'Describe what students should do.'
    if (!fromLocalInput(dueAt)) errs.dueAt = 'Choose when it is due.'
    setErrors(errs)
    if (!Object.keys(errs).length) create.mutate()
  }
  return (
    <form onSubmit={submit} noValidate aria-label="New experiment">
      <h3>New experiment</h3>
      <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} error={errors.title} maxLength={200} required />
      <RichEditor label="Description" value={description} onChange={setDescription} error={errors.description} />
      <TextField label="Due at" type="datetime-local" value={dueAt} onChange={(e) => setDueAt(e.target.value)} error={errors.dueAt} required />
      {create.error && !Object.keys(errors).length && <ErrorNotice error={create.error} />}
      <button type="submit" className="btn btn-primary" disabled={create.isPending}>
        {create.isPending ? 'Publishing…' : 'Publish experiment'}
      </button>
      {create.isSuccess && <Success>Experiment published.</Success>}
    </form>
  )
}
