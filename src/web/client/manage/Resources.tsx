import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useRef, useState, type FormEvent } from 'react'
import { fieldErrors, upload } from '../api.ts'
import type { TabProps } from './types.ts'
import { keys, useResources } from '../queries.ts'
import { useT } from '../i18n/index.ts'
import { NS } from './messages.ts'
import { FileInput } from '../ui/FileInput.tsx'
import { DeleteButton } from './DeleteButton.tsx'
import type { Resource, ResourceType } from '../types.ts'
import { SelectField, TextField, SubmitButton } from '../ui/form.tsx'
import { Empty, ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'
import { ResourcesSection } from '../workspace/sections.tsx'
import { UploadProgress } from '../ui/UploadProgress.tsx'

export function ResourcesTab({ course }: TabProps) {
  const { t } = useT(NS)
  return (
    <div className="grid-2">
      <div>
        <h3>{t('resources.heading')}</h3>
        <ResourcesSection course={course} isTeacher />
        <ResourceDeletes courseId={course.id} />
      </div>
      <UploadResource courseId={course.id} />
    </div>
  )
}

/** Each resource with its delete button (a resource still used by a FILE task is refused: 409). */
function ResourceDeletes({ courseId }: { courseId: string }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const list = useResources(courseId)
  return (
    <details className="resource-deletes">
      <summary>{t('resources.remove')}</summary>
      <QueryView query={list}>
        {(items) =>
          items.length === 0 ? (
            <Empty>{t('resources.none')}</Empty>
          ) : (
            <ul className="plain stack">
              {items.map((r) => (
                <li key={r.id} className="item-head">
                  <span className="roster-name">{r.name}</span>
                  <DeleteButton
                    label={t('resources.deleteLabel', { name: r.name })}
                    confirm={t('resources.confirmDelete', { name: r.name })}
                    path={`/courses/${courseId}/resources/${r.id}`}
                    onDeleted={() => void queryClient.invalidateQueries({ queryKey: keys.resources(courseId) })}
                  />
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </details>
  )
}

/** Files go up through XMLHttpRequest so the progress bar can follow the upload. */
function UploadResource({ courseId }: { courseId: string }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const fileRef = useRef<HTMLInputElement>(null)
  const [name, setName] = useState('')
  const [type, setType] = useState<ResourceType>('FILE')
  const [category, setCategory] = useState('')
  const [externalUrl, setExternalUrl] = useState('')
  const [progress, setProgress] = useState<number | null>(null)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const send = useMutation({
    mutationFn: (form: FormData) => upload<Resource>(`/courses/${courseId}/resources`, form, setProgress),
    onSuccess: () => {
      setName('')
      setCategory('')
      setExternalUrl('')
      if (fileRef.current) fileRef.current.value = ''
      void queryClient.invalidateQueries({ queryKey: keys.resources(courseId) })
    },
    onError: (e) => setErrors(fieldErrors(e)),
    onSettled: () => setProgress(null),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    const file = fileRef.current?.files?.[0]
    if (!name.trim()) errs.name = t('resources.errors.name')
    if (type === 'FILE' && !file) errs.file = t('resources.errors.file')
    if (type !== 'FILE' && !/^https?:\/\/\S+$/i.test(externalUrl.trim())) errs.externalUrl = t('resources.errors.url')
    setErrors(errs)
    if (Object.keys(errs).length) return
    const form = new FormData()
    form.set('name', name.trim())
    form.set('type', type)
    if (category.trim()) form.set('category', category.trim())
    if (type === 'FILE') form.set('file', file!)
    else form.set('externalUrl', externalUrl.trim())
    send.mutate(form)
  }
  return (
    <form onSubmit={submit} noValidate aria-label={t('resources.add')}>
      <h3>{t('resources.add')}</h3>
      <TextField label={t('resources.name')} value={name} onChange={(e) => setName(e.target.value)} error={errors.name} maxLength={200} required />
      <SelectField label={t('resources.type')} value={type} onChange={(e) => setType(e.target.value as ResourceType)}>
        <option value="FILE">{t('resources.typeFile')}</option>
        <option value="VIDEO">{t('resources.typeVideo')}</option>
        <option value="LINK">{t('resources.typeLink')}</option>
      </SelectField>
      <TextField label={t('resources.category')} value={category} onChange={(e) => setCategory(e.target.value)} hint={t('resources.categoryHint')} maxLength={100} />
      {type === 'FILE' ? (
        // The styled input the hand-in forms use: its "No file chosen" wraps instead of "N…" at 390 px (issue 56.5f).
        <FileInput id="resource-file" label={t('resources.file')} ref={fileRef} error={errors.file} />
      ) : (
        <TextField label={t('resources.address')} type="url" value={externalUrl} onChange={(e) => setExternalUrl(e.target.value)} error={errors.externalUrl} required />
      )}
      {progress != null && <UploadProgress id="resource-progress" label={t('resources.uploading')} value={progress} />}
      {send.error && !Object.keys(errors).length && <ErrorNotice error={send.error} />}
      <SubmitButton pending={send.isPending} pendingLabel={t('resources.uploadingEllipsis')} label={t('resources.addButton')} />
      {send.isSuccess && <Success>{t('resources.added')}</Success>}
    </form>
  )
}
