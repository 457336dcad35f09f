import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { api, ApiError, fieldErrors, get } from '../api.ts'
import { applyUserLocale, defineMessages, pickedBeforeLogin, rememberPick, translate, useT } from '../i18n/index.ts'
import en from '../i18n/messages/en/register.ts'
import zh from '../i18n/messages/zh-CN/register.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys } from '../queries.ts'
import type { LoginProviders, LoginResult, Role, User } from '../types.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { RadioGroup, TextField, SubmitButton } from '../ui/form.tsx'
import { LanguageSwitcher } from '../ui/LanguageSwitcher.tsx'
import { safeNext } from './Login.tsx'
import { NewPasswordField } from './account/fields.tsx'

const NS = defineMessages('register', en, zh)
const msg = (key: keyof typeof en.errors) => translate(`errors.${key}`, { ns: NS })

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
  if (!u) e.username = msg('usernameRequired')
  else if (u.length < 3 || u.length > 32) e.username = msg('usernameLength')
  else if (!/^[A-Za-z0-9_.-]+$/.test(u)) e.username = msg('usernameChars')
  const m = f.email.trim()
  if (!m) e.email = msg('emailRequired')
  else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(m)) e.email = msg('emailInvalid')
  if (!f.password) e.password = msg('passwordRequired')
  else if (f.password.length < 8) e.password = msg('passwordShort')
  else if (f.password.length > 128) e.password = msg('passwordLong')
  if (f.password && f.confirm !== f.password) e.confirm = msg('mismatch')
  if (f.displayName.length > 64) e.displayName = msg('displayNameLong')
  return e
}

export default function RegisterPage() {
  const { t } = useT(NS)
  usePageTitle(t('title'))
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const queryClient = useQueryClient()
  const [form, setForm] = useState<Form>({ username: '', email: params.get('email') ?? '', password: '', confirm: '', displayName: '', role: 'STUDENT' })
  const [errors, setErrors] = useState<Record<string, string>>({})
  // With PASSWORD_LOGIN=false (GET /auth/providers says `password: false`) there is no registering here.
  const providers = useQuery({ queryKey: ['auth-providers'], queryFn: () => get<LoginProviders>('/auth/providers', { anonymous: true }), staleTime: 5 * 60_000 })
  const passwordOff = providers.data?.password === false
  const set = (k: keyof Form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [k]: e.target.value }))

  const register = useMutation({
    mutationFn: async () => {
      const body = {
        username: form.username.trim(),
        email: form.email.trim(),
        password: form.password,
        role: form.role,
        ...(form.displayName.trim() ? { displayName: form.displayName.trim() } : {}),
        // A language picked on this page becomes the account's; otherwise the browser keeps deciding.
        ...(pickedBeforeLogin() ? { locale: pickedBeforeLogin() } : {}),
      }
      await api<User>('POST', '/auth/register', body, { anonymous: true })
      return api<LoginResult>('POST', '/auth/login', { identifier: body.username, password: body.password }, { anonymous: true })
    },
    onSuccess: async (result) => {
      queryClient.clear()
      rememberPick(null)
      applyUserLocale(result.user)
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
  if (passwordOff)
    return (
      <main id="main" className="auth-page">
        <div className="auth-card">
          <p className="brand-large">{t('brand', { ns: 'common' })}</p>
          <h1>{t('title')}</h1>
          <p className="notice notice-info" data-testid="registration-off">
            {t('off')}
          </p>
          <Link className="btn btn-primary btn-block" to="/login">
            {t('logIn')}
          </Link>
          <LanguageSwitcher />
        </div>
      </main>
    )
  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <p className="brand-large">{t('brand', { ns: 'common' })}</p>
        <h1>{t('title')}</h1>
        <div id="register-errors" tabIndex={-1}>
          {count > 0 && (
            <p className="notice notice-error" role="alert">
              {t('errorCount', { count })}
            </p>
          )}
        </div>
        {register.error && count === 0 && <ErrorNotice error={register.error} />}
        <form onSubmit={submit} noValidate>
          <TextField
            label={t('username')}
            name="username"
            autoComplete="username"
            value={form.username}
            onChange={set('username')}
            error={errors.username}
            hint={t('usernameHint')}
            required
          />
          <TextField label={t('email')} name="email" type="email" autoComplete="email" value={form.email} onChange={set('email')} error={errors.email} required />
          <TextField
            label={t('displayName')}
            name="displayName"
            autoComplete="name"
            value={form.displayName}
            onChange={set('displayName')}
            error={errors.displayName}
            hint={t('displayNameHint')}
          />
          <NewPasswordField label={t('password')} name="password" value={form.password} onChange={set('password')} error={errors.password} hint={t('passwordHint')} />
          <NewPasswordField label={t('confirm')} name="confirm" value={form.confirm} onChange={set('confirm')} error={errors.confirm} />
          <RadioGroup<Role>
            legend={t('roleLegend')}
            name="role"
            value={form.role}
            onChange={(role) => setForm((f) => ({ ...f, role }))}
            options={[
              { value: 'STUDENT', label: t('student') },
              { value: 'TEACHER', label: t('teacher') },
            ]}
          />
          <SubmitButton className="btn btn-primary btn-block" pending={register.isPending} pendingLabel={t('submitting')} label={t('submit')} />
        </form>
        <p className="auth-switch">
          {t('already')} <Link to="/login">{t('logIn')}</Link>
        </p>
        <LanguageSwitcher />
      </div>
    </main>
  )
}
