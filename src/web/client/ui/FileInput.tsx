import { forwardRef, useId, useState, type InputHTMLAttributes } from 'react'
import { useT } from '../i18n/index.ts'
import '../layout/shell.ts'
import { Described, describedBy } from './form.tsx'
import { formatBytes } from './time.tsx'

/**
 * A file input that looks like the other controls: the native input stays (keyboard, screen
 * readers, drag and drop onto it) but is drawn as a button with the chosen file's name.
 */
export const FileInput = forwardRef<HTMLInputElement, Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & { label: string; error?: string; hint?: string }>(
  function FileInput({ label, error, hint, id: givenId, onChange, ...rest }, ref) {
    const { t } = useT('shell')
    const auto = useId()
    const id = givenId ?? auto
    const [chosen, setChosen] = useState<{ name: string; size: number } | null>(null)
    const described = describedBy(id, error, hint)
    return (
      <div className={`field file-field${error ? ' has-error' : ''}`}>
        <label htmlFor={id}>{label}</label>
        <div className="file-input">
          <input
            {...rest}
            ref={ref}
            id={id}
            type="file"
            aria-invalid={error ? true : undefined}
            aria-describedby={described}
            onChange={(e) => {
              // Several files (a `multiple` input: phone photos and a PDF): every name, the total size.
              const files = Array.from(e.target.files ?? [])
              setChosen(files.length ? { name: files.map((f) => f.name).join(', '), size: files.reduce((n, f) => n + f.size, 0) } : null)
              onChange?.(e)
            }}
          />
          <span className="btn file-input-button" aria-hidden="true">
            {t('file.choose')}
          </span>
          <span className="file-input-name" aria-hidden="true">
            {chosen ? `${chosen.name} (${formatBytes(chosen.size)})` : t('file.none')}
          </span>
        </div>
        <Described id={id} error={error} hint={hint} />
      </div>
    )
  },
)
