import { useId, type ReactNode } from 'react'
import { useT } from '../i18n/index.ts'

interface Common {
  label: string
  error?: string
  hint?: ReactNode
  required?: boolean
}

/** The hint and error paragraphs under a field, with the ids its control's aria-describedby names. */
export function Described({ id, error, hint }: { id: string; error?: string; hint?: ReactNode }) {
  return (
    <>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </>
  )
}

/** The aria-describedby of a control with this hint and error (undefined when neither). */
export const describedBy = (id: string, error?: string, hint?: ReactNode) =>
  [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined

/** The attributes that tie a field's control to its label, hint and error. */
const controlProps = (id: string, { error, hint, required }: Omit<Common, 'label'>) => ({
  id,
  required,
  'aria-invalid': error ? true : undefined,
  'aria-describedby': describedBy(id, error, hint),
})

/** A `.field`: the label, the control, then its hint and error. */
function Field({ id, label, error, hint, children }: Common & { id: string; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>
        {label}
      </label>
      {children}
      <Described id={id} error={error} hint={hint} />
    </div>
  )
}

/**
 * A labelled input; its error and hint are tied to it with aria-describedby. `maxLength` is not
 * handed to the browser, which cuts a longer paste silently (issue 29.10): a longer text is
 * kept and the field says how long it is and what the limit is (the server refuses it too).
 */
export function TextField({
  label,
  error,
  hint,
  required,
  maxLength,
  ...input
}: Common & Omit<React.InputHTMLAttributes<HTMLInputElement>, 'required'>) {
  const id = useId()
  const { t } = useT()
  const length = typeof input.value === 'string' ? input.value.trim().length : 0
  if (!error && maxLength !== undefined && length > maxLength) error = t('ui.tooLong', { max: maxLength, count: length })
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      <input {...controlProps(id, { error, hint, required })} {...input} />
    </Field>
  )
}

export function TextArea({ label, error, hint, required, ...input }: Common & Omit<React.TextareaHTMLAttributes<HTMLTextAreaElement>, 'required'>) {
  const id = useId()
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      <textarea {...controlProps(id, { error, hint, required })} {...input} />
    </Field>
  )
}

export function SelectField({
  label,
  error,
  hint,
  required,
  children,
  ...input
}: Common & Omit<React.SelectHTMLAttributes<HTMLSelectElement>, 'required'>) {
  const id = useId()
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      <select {...controlProps(id, { error, hint, required })} {...input}>
        {children}
      </select>
    </Field>
  )
}

export function Checkbox({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: (v: boolean) => void; hint?: string }) {
  const id = useId()
  return (
    <div className="check">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </div>
  )
}

/** A group of radio buttons in a fieldset with a legend. */
export function RadioGroup<T extends string>({
  legend,
  name,
  value,
  options,
  onChange,
}: {
  legend: string
  name: string
  value: T
  options: { value: T; label: string }[]
  onChange: (v: T) => void
}) {
  const id = useId()
  return (
    <fieldset className="radio-group">
      <legend>{legend}</legend>
      {options.map((o) => (
        <span className="check" key={o.value}>
          <input
            type="radio"
            id={`${id}-${o.value}`}
            name={`${name}-${id}`}
            value={o.value}
            checked={value === o.value}
            onChange={() => onChange(o.value)}
          />
          <label htmlFor={`${id}-${o.value}`}>{o.label}</label>
        </span>
      ))}
    </fieldset>
  )
}

/** A scrollable table wrapper that keyboard users can focus and scroll. */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  )
}

/**
 * A form's submit button: disabled while the request is `pending` (or when `disabled` says so),
 * and saying `pendingLabel` then instead of `label`.
 */
export function SubmitButton({
  pending,
  label,
  pendingLabel,
  className = 'btn btn-primary',
  disabled,
}: {
  pending: boolean
  label: ReactNode
  pendingLabel: ReactNode
  className?: string
  disabled?: boolean
}) {
  return (
    <button type="submit" className={className} disabled={disabled ?? pending}>
      {pending ? pendingLabel : label}
    </button>
  )
}
