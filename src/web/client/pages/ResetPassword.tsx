import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api, fieldErrors } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import type { User } from '../types.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { SubmitButton } from '../ui/form.tsx'
import { LanguageSwitcher } from '../ui/LanguageSwitcher.tsx'
import { NS } from './account/messages.ts'
import { NewPasswordField } from './account/fields.tsx'
import { useLinkToken } from './account/linkToken.ts'

/** /reset-password?token=…: chooses a new password with the link from the mail. */
export default function ResetPasswordPage() {
  const { t } = useT(NS)
  usePageTitle(t('reset.title'))
  const token = useLinkToken()
  const qc = useQueryClient()
  const [password, setPassword] = useState('')
  const [confirm, setConfirm] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const reset = useMutation({
    mutationFn: () => api<User>('POST', '/auth/password/reset', { token, newPassword: password }, { anonymous: true }),
    // Every session ended: nothing cached belongs to a live login any more.
    onSuccess: () => qc.clear(),
    onError: (e) => setErrors(fieldErrors(e)),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    const errs: Record<string, string> = {}
    if (password.length < 8 || password.length > 128) errs.newPassword = t('reset.tooShort')
    else if (password !== confirm) errs.confirm = t('reset.mismatch')
    setErrors(errs)
    if (!Object.keys(errs).length) reset.mutate()
  }
  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <h1>{t('reset.title')}</h1>
        {!token && <p className="notice notice-info">{t('reset.missing')}</p>}
        {reset.isSuccess ? (
          <>
            <p className="notice notice-success" role="status" data-testid="reset-done">
              {t('reset.done')}
            </p>
            <Link className="btn btn-primary btn-block" to="/login">
              {t('reset.login')}
            </Link>
          </>
        ) : (
          token && (
            <>
              {reset.error && !Object.keys(errors).length && <ErrorNotice error={reset.error} />}
              <form onSubmit={submit} noValidate>
                <NewPasswordField
                  label={t('reset.newPassword')}
                  name="newPassword"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  error={errors.newPassword}
                  hint={t('reset.hint')}
                />
                <NewPasswordField label={t('reset.confirm')} name="confirm" value={confirm} onChange={(e) => setConfirm(e.target.value)} error={errors.confirm} />
                <SubmitButton className="btn btn-primary btn-block" pending={reset.isPending} pendingLabel={t('reset.submitting')} label={t('reset.submit')} />
              </form>
            </>
          )
        )}
        <LanguageSwitcher />
      </div>
    </main>
  )
}
