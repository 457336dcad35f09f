import type { ComponentProps } from 'react'
import { TextField } from '../../ui/form.tsx'

type FieldProps = Omit<ComponentProps<typeof TextField>, 'type' | 'autoComplete' | 'required'>

/** The "username or email" field of the login and forgot-password forms (required). */
export function IdentifierField(props: FieldProps) {
  return <TextField name="identifier" autoComplete="username" required {...props} />
}

/** A field where a new password is chosen or confirmed (register, reset): the browser may suggest one. */
export function NewPasswordField(props: FieldProps) {
  return <TextField type="password" autoComplete="new-password" required {...props} />
}
