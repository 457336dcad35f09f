import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useRef, useState, type FormEvent } from 'react'
import { fieldErrors, upload } from '../api.ts'
import type { TabProps } from './types.ts'
import { keys } from '../queries.ts'
import type { Resource, ResourceType } from '../types.ts'
import { SelectField, TextField } from '../ui/form.tsx'
import { ErrorNotice, Success } from '../ui/Notice.tsx'
import { ResourcesSection } from '../workspace/sections.tsx'

export function ResourcesTab({ course }: TabProps) {
  return (
    <div className="grid-2">
      <div>
        <h3>Resources</h3>
        <ResourcesSection course={course} isTeacher />
      </div>
      <UploadResource courseId={course.id} />
    </div>
  )
}

/** Files go up through XMLHttpRequest so the progress bar can follow the upload. */
function UploadResource({ courseId }: { courseId: string }) {
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
    if (!name.trim()) errs.name = 'Name the resource.'
    if (type === 'FILE' && !file) errs.file = 'Choose a file to upload.'
    if (type !== 'FILE' && !/^https?:\/\/\S+$/i.test(externalUrl.trim())) errs.externalUrl = 'Enter a web address starting with http:// or https://.'
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
    <form onSubmit={submit} noValidate aria-label="Add a resource">
      <h3>Add a resource</h3>
      <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} error={errors.name} maxLength={200} required />
      <SelectField label="Type" value={type} onChange={(e) => setType(e.target.value as ResourceType)}>
        <option value="FILE">File upload</option>
        <option value="VIDEO">Video link</option>
        <option value="LINK">Web link</option>
      </SelectField>
      <TextField label="Category" value={category} onChange={(e) => setCategory(e.target.value)} hint="Optional, for example Slides or Reading." maxLength={100} />
      {type === 'FILE' ? (
        <div className="field">
          <label htmlFor="resource-file">File</label>
          <input id="resource-file" type="file" ref={fileRef} aria-invalid={errors.file ? true : undefined} aria-describedby={errors.file ? 'resource-file-error' : undefined} />
          {errors.file && (
            <p className="field-error" id="resource-file-error">
              {errors.file}
            </p>
          )}
        </div>
      ) : (
        <TextField label="Address" type="url" placeholder="https://" value={externalUrl} onChange={(e) => setExternalUrl(e.target.value)} error={errors.externalUrl} required />
      )}
      {progress != null && (
        <div className="progress">
          <label htmlFor="resource-progress">Uploading</label>
          <progress id="resource-progress" max={1} value={progress}>
            {Math.round(progress * 100)}%
          </progress>
          <span>{Math.round(progress * 100)}%</span>
        </div>
      )}
      {send.error && !Object.keys(errors).length && <ErrorNotice error={send.error} />}
      <button type="submit" className="btn btn-primary" disabled={send.isPending}>
        {send.isPending ? 'Uploading…' : 'Add resource'}
      </button>
      {send.isSuccess && <Success>Resource added.</Success>}
    </form>
  )
}
