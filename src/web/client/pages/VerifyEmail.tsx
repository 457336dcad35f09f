import { useMutation, useQueryClient } from '@tanstack/react-query'
import { Link } from 'react-router'
import { api } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { keys } from '../queries.ts'
import type { User } from '../types.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { LanguageSwitcher } from '../ui/LanguageSwitcher.tsx'
import { NS } from './account/messages.ts'
import { useLinkToken } from './account/linkToken.ts'

/**
 * /verify-email?token=…: the link of a verification or address-change mail. The token is posted
 * by a button press, not on load, so a mail scanner that opens links confirms nothing.
 */
export default function VerifyEmailPage() {
  const { t } = useT(NS)
  usePageTitle(t('verify.title'))
  const token = useLinkToken()
  const qc = useQueryClient()
  const verify = useMutation({
    mutationFn: () => api<User>('POST', '/auth/email/verify', { token }, { anonymous: true }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: keys.me }),
  })
  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <h1>{t('verify.title')}</h1>
        {!token && <p className="notice notice-info">{t('verify.missing')}</p>}
        {verify.error && <ErrorNotice error={verify.error} />}
        {verify.data ? (
          <>
            <p className="notice notice-success" role="status" data-testid="verified">
              {t('verify.done', { email: verify.data.email })}
            </p>
            <Link className="btn btn-primary btn-block" to="/courses">
              {t('verify.continue')}
            </Link>
          </>
        ) : (
          token && (
            <button type="button" className="btn btn-primary btn-block" disabled={verify.isPending} onClick={() => verify.mutate()}>
              {verify.isPending ? t('verify.working') : t('verify.title')}
            </button>
          )
        )}
        <LanguageSwitcher />
      </div>
    </main>
  )
}
