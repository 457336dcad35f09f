import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router'
import { api, fieldErrors, get } from '../api.ts'
import { applyUserLocale, defineMessages, pickedBeforeLogin, rememberPick, useT } from '../i18n/index.ts'
import ssoEn from '../i18n/messages/en/sso.ts'
import ssoZh from '../i18n/messages/zh-CN/sso.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys } from '../queries.ts'
import type { LoginProviders, LoginResult } from '../types.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { TextField, SubmitButton } from '../ui/form.tsx'
import { LanguageSwitcher } from '../ui/LanguageSwitcher.tsx'
import { IdentifierField } from './account/fields.tsx'

const SSO = defineMessages('sso', ssoEn, ssoZh)

/** Only same-site paths are followed after login (no `//evil.example`, no absolute URLs). */
export function safeNext(next: string | null) {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/courses'
  if (/^\/(login|register)\b/.test(next)) return '/courses'
  return next
}

export default function LoginPage() {
  const { t } = useT()
  const { t: ts } = useT(SSO)
  usePageTitle(t('login.title'))
  // How one logs in here (GET /auth/providers): the password form, single sign-on, or both.
  const providers = useQuery({ queryKey: ['auth-providers'], queryFn: () => get<LoginProviders>('/auth/providers', { anonymous: true }), staleTime: 5 * 60_000 })
  const oidc = providers.data?.oidc ?? null
  const passwordOn = providers.data?.password !== false
  const [params] = useSearchParams()
  const location = useLocation()
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const next = params.get('next')
  const loggedOut = Boolean((location.state as { loggedOut?: boolean } | null)?.loggedOut)
  const registered = params.get('registered') === '1'
  const ssoFailed = params.get('error') === 'sso'
  // Single sign-on found an account with the same address whose address was never confirmed: not linked (issue 48).
  const ssoUnverifiedLocal = params.get('error') === 'sso-unverified-local'

  const [identifier, setIdentifier] = useState('')
  const [password, setPassword] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})

  const login = useMutation({
    mutationFn: () => api<LoginResult>('POST', '/auth/login', { identifier: identifier.trim(), password }, { anonymous: true }),
    onSuccess: async (result) => {
      queryClient.clear()
      // The account's language wins; an account without one takes the language picked on this page.
      const picked = pickedBeforeLogin()
      rememberPick(null)
      let user = result.user
      if (!user.locale && picked) user = await api<typeof user>('PATCH', '/auth/me', { locale: picked }).catch(() => user)
      applyUserLocale(user)
      queryClient.setQueryData(keys.me, user)
      await navigate(safeNext(next), { replace: true })
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })

  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (!identifier.trim()) errs.identifier = t('login.identifierRequired')
    if (!password) errs.password = t('login.passwordRequired')
    setErrors(errs)
    if (Object.keys(errs).length === 0) login.mutate()
  }

  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <p className="brand-large">{t('brand')}</p>
        <h1>{t('login.title')}</h1>
        {next && !loggedOut && (
          <p className="notice notice-info" role="status" data-testid="login-hint">
            {t('login.continueHint')}
          </p>
        )}
        {loggedOut && (
          <p className="notice notice-success" role="status">
            {t('login.loggedOut')}
          </p>
        )}
        {registered && (
          <p className="notice notice-success" role="status">
            {t('login.registered')}
          </p>
        )}
        {ssoFailed && (
          <p className="notice notice-error" role="alert" data-testid="sso-error">
            {ts('failed')}
          </p>
        )}
        {ssoUnverifiedLocal && (
          <div className="notice notice-error" role="alert" data-testid="sso-unverified-local">
            <p>{ts('unverifiedLocal')}</p>
            <p>
              {ts('unverifiedLocalWhatToDo')} <Link to="/forgot-password">{ts('unverifiedLocalReset')}</Link>
            </p>
          </div>
        )}
        {oidc && (
          <>
            {!passwordOn && <p>{ts('only', { name: oidc.displayName })}</p>}
            {/* A full page load: the browser goes to the provider and comes back logged in. */}
            <a className="btn btn-primary btn-block" href={`${oidc.startUrl}?next=${encodeURIComponent(safeNext(next))}`}>
              {ts('signInWith', { name: oidc.displayName })}
            </a>
            {passwordOn && <p className="auth-or">{ts('or')}</p>}
          </>
        )}
        {login.error && !Object.keys(errors).length && <ErrorNotice error={login.error} />}
        {passwordOn && (
          <form onSubmit={submit} noValidate>
            <IdentifierField label={t('login.identifier')} value={identifier} onChange={(e) => setIdentifier(e.target.value)} error={errors.identifier} />
            <TextField
              label={t('login.password')}
              name="password"
              type="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              error={errors.password}
              required
            />
            <SubmitButton className="btn btn-primary btn-block" pending={login.isPending} pendingLabel={t('login.submitting')} label={t('login.submit')} />
          </form>
        )}
        {passwordOn && (
          <p className="auth-switch">
            <Link to="/forgot-password">{t('login.forgot')}</Link>
          </p>
        )}
        {passwordOn && (
          <p className="auth-switch">
            {t('login.newHere')} <Link to={next ? `/register?next=${encodeURIComponent(next)}` : '/register'}>{t('login.createAccount')}</Link>
          </p>
        )}
        <LanguageSwitcher />
      </div>
    </main>
  )
}
