import { useMutation } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api, fieldErrors, isStatus } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { SubmitButton } from '../ui/form.tsx'
import { LanguageSwitcher } from '../ui/LanguageSwitcher.tsx'
import { NS } from './account/messages.ts'
import { IdentifierField } from './account/fields.tsx'

/** /forgot-password: asks for a reset link. The answer is the same whether the account exists. */
export default function ForgotPasswordPage() {
  const { t } = useT(NS)
  usePageTitle(t('forgot.title'))
  const [identifier, setIdentifier] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const ask = useMutation({
    mutationFn: () => api<null>('POST', '/auth/password/forgot', { identifier: identifier.trim() }, { anonymous: true }),
    onError: (e) => setErrors(fieldErrors(e)),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    if (!identifier.trim()) return setErrors({ identifier: t('forgot.identifierRequired') })
    setErrors({})
    ask.mutate()
  }
  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <h1>{t('forgot.title')}</h1>
        {ask.isSuccess ? (
          <p className="notice notice-success" role="status" data-testid="forgot-sent">
            {t('forgot.sent')}
          </p>
        ) : (
          <>
            <p className="hint">{t('forgot.hint')}</p>
            {ask.error &&
              !Object.keys(errors).length &&
              (isStatus(ask.error, 409) ? <p className="notice notice-info" role="status">{t('forgot.unavailable')}</p> : <ErrorNotice error={ask.error} />)}
            <form onSubmit={submit} noValidate>
              <IdentifierField label={t('forgot.identifier')} value={identifier} onChange={(e) => setIdentifier(e.target.value)} error={errors.identifier} />
              <SubmitButton className="btn btn-primary btn-block" pending={ask.isPending} pendingLabel={t('forgot.submitting')} label={t('forgot.submit')} />
            </form>
          </>
        )}
        <p className="auth-switch">
          <Link to="/login">{t('forgot.back')}</Link>
        </p>
        <LanguageSwitcher />
      </div>
    </main>
  )
}
