import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { API_BASE, fieldErrors, get, upload } from '../api.ts'
import { defineMessages, useT } from '../i18n/index.ts'
import en from '../i18n/messages/en/transfer.ts'
import zh from '../i18n/messages/zh-CN/transfer.ts'
import { keys } from '../queries.ts'
import { FileInput } from '../ui/FileInput.tsx'
import { TableWrap, TextField } from '../ui/form.tsx'
import { ErrorNotice, Success } from '../ui/Notice.tsx'
import { UploadProgress } from '../ui/UploadProgress.tsx'

const NS = defineMessages('transfer', en, zh)

interface CourseImport {
  id: string
  state: 'QUEUED' | 'RUNNING' | 'DONE' | 'FAILED'
  progress: number
  fileName: string
  courseId: string | null
  report: {
    created: { units: number; points: number; tasks: number; quizzes: number; questions: number; homework: number; resources: number; files: number }
    skipped: { kind: string; title: string; reason: string }[]
  } | null
  error: { code: number; message: string } | null
}

/**
 * "Import a course" (issue 51): the package is uploaded with a progress bar, then the import's
 * state is polled until it is done; the report lists what was created and what was skipped, why.
 */
export function ImportCourse() {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const fileRef = useRef<HTMLInputElement>(null)
  const [shiftDays, setShiftDays] = useState('0')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [uploadProgress, setUploadProgress] = useState<number | null>(null)
  const [importId, setImportId] = useState<string | null>(null)
  const send = useMutation({
    mutationFn: (form: FormData) => upload<CourseImport>('/courses/imports', form, setUploadProgress),
    onSuccess: (job) => {
      setImportId(job.id)
      if (fileRef.current) fileRef.current.value = ''
    },
    onError: (e) => setErrors(fieldErrors(e)),
    onSettled: () => setUploadProgress(null),
  })
  const job = useQuery({
    queryKey: ['course-import', importId],
    queryFn: () => get<CourseImport>(`/courses/imports/${importId}`),
    enabled: importId !== null,
    refetchInterval: (q) => (q.state.data && (q.state.data.state === 'DONE' || q.state.data.state === 'FAILED') ? false : 1000),
  })
  const data = job.data
  const done = data?.state === 'DONE'
  useEffect(() => {
    if (done) void queryClient.invalidateQueries({ queryKey: keys.courses })
  }, [done, queryClient])

  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    const file = fileRef.current?.files?.[0]
    if (!file) errs.file = t('import.errors.file')
    const days = shiftDays.trim() === '' ? 0 : Number(shiftDays)
    if (!Number.isInteger(days) || Math.abs(days) > 3650) errs.shiftDays = t('import.errors.shiftDays')
    setErrors(errs)
    if (Object.keys(errs).length) return
    const form = new FormData()
    form.set('file', file!)
    form.set('shiftDays', String(days))
    setImportId(null)
    send.mutate(form)
  }

  return (
    <form onSubmit={submit} noValidate aria-label={t('import.heading')} data-testid="import-course">
      <h2>{t('import.heading')}</h2>
      <p className="meta">{t('import.intro')}</p>
      <FileInput id="import-file" label={t('import.file')} ref={fileRef} error={errors.file} accept=".mbz,.imscc,.zip,application/zip,application/gzip" />
      <TextField
        label={t('import.shiftDays')}
        type="number"
        inputMode="numeric"
        value={shiftDays}
        onChange={(e) => setShiftDays(e.target.value)}
        hint={t('import.shiftDaysHint')}
        error={errors.shiftDays}
      />
      {uploadProgress != null && <UploadProgress id="import-upload-progress" label={t('import.uploadProgress')} value={uploadProgress} />}
      {send.error && !Object.keys(errors).length && <ErrorNotice error={send.error} />}
      <button type="submit" className="btn btn-primary" disabled={send.isPending || (data != null && (data.state === 'QUEUED' || data.state === 'RUNNING'))}>
        {send.isPending ? t('import.uploading') : t('import.submit')}
      </button>
      {job.error != null && <ErrorNotice error={job.error} />}
      {data && <ImportReport job={data} />}
    </form>
  )
}

function ImportReport({ job }: { job: CourseImport }) {
  const { t } = useT(NS)
  const running = job.state === 'QUEUED' || job.state === 'RUNNING'
  return (
    <div data-testid="import-report" aria-live="polite">
      {running && (
        <div className="progress">
          <label htmlFor="import-progress">{t('import.progress')}</label>
          <progress id="import-progress" max={100} value={job.progress}>
            {job.progress}%
          </progress>
          <span>{t(`import.state.${job.state}`, { progress: job.progress })}</span>
        </div>
      )}
      {job.state === 'FAILED' && (
        <div className="notice notice-error" role="alert">
          <strong>{t('import.state.FAILED')}</strong> {job.error?.message}
        </div>
      )}
      {job.state === 'DONE' && job.report && (
        <>
          <Success>{t('import.state.DONE')}</Success>
          <p data-testid="import-created">{t('import.created', job.report.created)}</p>
          {job.courseId && (
            <p>
              <Link to={`/courses/${job.courseId}/manage`} className="btn btn-small">
                {t('import.openCourse')}
              </Link>
            </p>
          )}
          <h3>{t('import.skippedHeading')}</h3>
          {job.report.skipped.length === 0 ? (
            <p>{t('import.skippedNone')}</p>
          ) : (
            <TableWrap label={t('import.skippedHeading')}>
              <table data-testid="import-skipped">
                <thead>
                  <tr>
                    <th scope="col">{t('import.kind')}</th>
                    <th scope="col">{t('import.title')}</th>
                    <th scope="col">{t('import.reason')}</th>
                  </tr>
                </thead>
                <tbody>
                  {job.report.skipped.map((s, i) => (
                    <tr key={i}>
                      <td>{s.kind}</td>
                      <td>{s.title}</td>
                      <td>{s.reason}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </>
      )}
    </div>
  )
}

/** "Export" on the course's settings: the Common Cartridge download (the session cookie authorises it). */
export function ExportCourse({ courseId }: { courseId: string }) {
  const { t } = useT(NS)
  return (
    <section aria-labelledby="export-heading">
      <h3 id="export-heading">{t('export.heading')}</h3>
      <p className="meta">{t('export.intro')}</p>
      <a className="btn" href={`${API_BASE}/courses/${courseId}/export.imscc`} download data-testid="export-course">
        {t('export.download')}
      </a>
    </section>
  )
}
