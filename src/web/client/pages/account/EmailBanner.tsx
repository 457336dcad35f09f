import { useMutation, useQuery } from '@tanstack/react-query'
import { api, get } from '../../api.ts'
import { useT } from '../../i18n/index.ts'
import type { User } from '../../types.ts'
import { ErrorNotice } from '../../ui/Notice.tsx'
import { EMAIL_SETTINGS_KEY, NS, type EmailSettings } from './messages.ts'

export const useEmailSettings = () =>
  useQuery({ queryKey: EMAIL_SETTINGS_KEY, queryFn: () => get<EmailSettings>('/auth/email/settings', { anonymous: true }), staleTime: Infinity })

/** Shown on every page while the address is unverified and the server sends e-mail. */
export function EmailBanner({ user }: { user: User }) {
  const { t } = useT(NS)
  const settings = useEmailSettings()
  const resend = useMutation({ mutationFn: () => api<null>('POST', '/auth/email/verification') })
  if (user.emailVerified || !settings.data?.enabled) return null
  return (
    <section className="notice notice-info email-banner" aria-label={t('verify.title')} data-testid="email-banner">
      <p>{t('banner.text', { email: user.email })}</p>
      {resend.isSuccess ? (
        <p role="status">{t('banner.sent')}</p>
      ) : (
        <button type="button" className="btn btn-small" disabled={resend.isPending} onClick={() => resend.mutate()}>
          {t('banner.resend')}
        </button>
      )}
      {resend.error && <ErrorNotice error={resend.error} />}
    </section>
  )
}
