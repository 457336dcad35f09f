import { useId, useRef } from 'react'
import { useT } from '../i18n/index.ts'
import '../layout/shell.ts'
import { FilePreview } from './FilePreview.tsx'
import { formatBytes } from './time.tsx'

/** Most files one hand-in takes (the server's MAX_FILES). */
export const MAX_HAND_IN_FILES = 10

/**
 * Pictures first, so a phone offers its camera; then the documents homework usually is. The
 * server takes any type; this only shapes what the picker offers.
 */
const ACCEPT =
  'image/*,application/pdf,.pdf,.doc,.docx,.odt,.rtf,.txt,.md,.ppt,.pptx,.odp,.xls,.xlsx,.ods,.csv,.zip,audio/*,video/*'

const sameFile = (a: File, b: File) => a.name === b.name && a.size === b.size && a.lastModified === b.lastModified

/**
 * Several files for one hand-in (issue 29.7): each pick adds to the list (a photo now, another
 * later), every chosen file is listed with its size and a remove button, and the total shows
 * against nothing the browser cannot know: the server's limit answers 413 if it is passed.
 */
export function FilesPicker({
  label,
  files,
  onChange,
  error,
  disabled,
}: {
  label: string
  files: File[]
  onChange: (files: File[], problem?: string) => void
  error?: string
  disabled?: boolean
}) {
  const { t } = useT('shell')
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const total = files.reduce((n, f) => n + f.size, 0)
  function add(chosen: File[]) {
    const empty = chosen.filter((f) => f.size === 0)
    const fresh = chosen.filter((f) => f.size > 0 && !files.some((g) => sameFile(f, g)))
    const next = [...files, ...fresh]
    let problem: string | undefined
    if (empty.length) problem = t('files.empty', { names: empty.map((f) => f.name).join(', ') })
    if (next.length > MAX_HAND_IN_FILES) problem = t('files.tooMany', { max: MAX_HAND_IN_FILES })
    onChange(next.slice(0, MAX_HAND_IN_FILES), problem)
  }
  const described = [`${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ')
  return (
    <div className={`field file-field files-picker${error ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <div className="file-input">
        <input
          ref={input}
          id={id}
          type="file"
          multiple
          accept={ACCEPT}
          disabled={disabled || files.length >= MAX_HAND_IN_FILES}
          aria-invalid={error ? true : undefined}
          aria-describedby={described}
          onChange={(e) => {
            add(Array.from(e.target.files ?? []))
            // Emptied, so choosing the same photo again after removing it fires again.
            e.target.value = ''
          }}
        />
        <span className="btn file-input-button" aria-hidden="true">
          {files.length ? t('files.addMore') : t('files.choose')}
        </span>
        <span className="file-input-name" aria-hidden="true">
          {files.length ? t('files.chosen', { count: files.length, size: formatBytes(total) }) : t('file.none')}
        </span>
      </div>
      <p className="hint" id={`${id}-hint`}>
        {t('files.hint', { max: MAX_HAND_IN_FILES })}
      </p>
      {files.length > 0 && (
        <ul className="plain chosen-files" aria-label={t('files.listLabel')} data-testid="chosen-files">
          {files.map((f, i) => (
            <li key={`${f.name}-${f.size}-${f.lastModified}-${i}`}>
              <span className="chosen-file-name">{f.name}</span> <span className="meta">({formatBytes(f.size)})</span>{' '}
              <button
                type="button"
                className="btn btn-small"
                disabled={disabled}
                aria-label={t('files.remove', { name: f.name })}
                onClick={() => onChange(files.filter((_, j) => j !== i))}
              >
                {t('files.removeShort')}
              </button>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`} role="alert">
          {error}
        </p>
      )}
    </div>
  )
}

export interface HandedInFile {
  position: number
  fileName: string
  fileSize: number
  contentType: string
  fileUrl: string
}

/** The files handed in with a sheet, each a download with a preview for pictures, audio and video. */
export function HandedInFiles({ files }: { files: HandedInFile[] | undefined }) {
  const { t } = useT('shell')
  if (!files?.length) return null
  return (
    <div className="handed-in-files" data-testid="handed-in-files">
      <p className="label">{t('files.handedIn', { count: files.length })}</p>
      {files.map((f) => (
        <FilePreview key={f.position} url={f.fileUrl} name={f.fileName} contentType={f.contentType} meta={`(${formatBytes(f.fileSize)})`} />
      ))}
    </div>
  )
}
