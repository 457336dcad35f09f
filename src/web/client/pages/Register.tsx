import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { api, ApiError, fieldErrors } from '../api.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys } from '../queries.ts'
import type { LoginResult, Role, User } from '../types.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { RadioGroup, TextField } from '../ui/form.tsx'
import { safeNext } from './Login.tsx'

interface Form {
  username: string
  email: string
  password: string
  confirm: string
  displayName: string
  role: Role
}

/** The same rules as the API (API-CONTRACT.md, "Users and authentication"), checked before sending. */
export function validateRegistration(f: Form) {
  const e: Partial<Record<keyof Form, string>> = {}
  const u = f.username.trim()
  if (!u) e.username = 'Choose a username.'
  else if (u.length < 3 || u.length > 32) e.username = 'Use 3 to 32 characters.'
  else if (!/^[A-Za-z0-9_.-]+$/.test(u)) e.username = 'Use only letters, digits, underscore, dot and hyphen.'
  const m = f.email.trim()
  if (!m) e.email = 'Enter your email address.'
  else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(m)) e.email = 'Enter a valid email address, like name@example.com.'
  if (!f.password) e.password = 'Choose a password.'
  else if (f.password.length < 8) e.password = 'Use at least 8 characters.'
  else if (f.password.length > 128) e.password = 'Use at most 128 characters.'
  if (f.password && f.confirm !== f.password) e.confirm = 'The passwords do not match.'
  if (f.displayName.length > 64) e.displayName = 'Use at most 64 characters.'
  return e
}

export default function RegisterPage() {
  usePageTitle('Create an account')
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const queryClient = useQueryClient()
  const [form, setForm] = useState<Form>({ username: '', email: '', password: '', confirm: '', displayName: '', role: 'STUDENT' })
  const [errors, setErrors] = useState<Record<string, string>>({})
  const set = (k: keyof Form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [k]: e.target.value }))

  const register = useMutation({
    mutationFn: async () => {
      const body = {
        username: form.username.trim(),
        email: form.email.trim(),
        password: form.password,
        role: form.role,
        ...(form.displayName.trim() ? { displayName: form.displayName.trim() } : {}),
      }
      await api<User>('POST', '/auth/register', body, { anonymous: true })
      return api<LoginResult>('POST', '/auth/login', { identifier: body.username, password: body.password }, { anonymous: true })
    },
    onSuccess: async (result) => {
      queryClient.clear()
      queryClient.setQueryData(keys.me, result.user)
      await navigate(safeNext(params.get('next')), { replace: true })
    },
    onError: (e) => {
      const f = fieldErrors(e)
      if (e instanceof ApiError && e.code === 40901) f.username = e.message
      if (e instanceof ApiError && e.code === 40902) f.email = e.message
      setErrors(f)
    },
  })

  function submit(e: FormEvent) {
    e.preventDefault()
    const errs = validateRegistration(form)
    setErrors(errs as Record<string, string>)
    if (Object.keys(errs).length === 0) register.mutate()
    else document.getElementById('register-errors')?.focus()
  }

  const count = Object.keys(errors).length
  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <p className="brand-large">Course Learning</p>
        <h1>Create an account</h1>
        <div id="register-errors" tabIndex={-1}>
          {count > 0 && (
            <p className="notice notice-error" role="alert">
              Please fix {count === 1 ? 'the field' : `the ${count} fields`} marked below.
            </p>
          )}
        </div>
        {register.error && count === 0 && <ErrorNotice error={register.error} />}
        <form onSubmit={submit} noValidate>
          <TextField
            label="Username"
            name="username"
            autoComplete="username"
            value={form.username}
            onChange={set('username')}
            error={errors.username}
            hint="3 to 32 letters, digits, _ . or -"
            required
          />
          <TextField label="Email" name="email" type="email" autoComplete="email" value={form.email} onChange={set('email')} error={errors.email} required />
          <TextField
            label="Display name"
            name="displayName"
            autoComplete="name"
            value={form.displayName}
            onChange={set('displayName')}
            error={errors.displayName}
            hint="Shown to your classmates and teachers. Optional."
          />
          <TextField
            label="Password"
            name="password"
            type="password"
            autoComplete="new-password"
            value={form.password}
            onChange={set('password')}
            error={errors.password}
            hint="At least 8 characters."
            required
          />
          <TextField
            label="Repeat password"
            name="confirm"
            type="password"
            autoComplete="new-password"
            value={form.confirm}
            onChange={set('confirm')}
            error={errors.confirm}
            required
          />
          <RadioGroup<Role>
            legend="I am a"
            name="role"
            value={form.role}
            onChange={(role) => setForm((f) => ({ ...f, role }))}
            options={[
              { value: 'STUDENT', label: 'Student' },
              { value: 'TEACHER', label: 'Teacher' },
            ]}
          />
          <button type="submit" className="btn btn-primary btn-block" disabled={register.isPending}>
            {register.isPending ? 'Creating your account…' : 'Create account'}
          </button>
        </form>
        <p className="auth-switch">
          Already registered? <Link to="/login">Log in</Link>
        </p>
      </div>
    </main>
  )
}
