import { useMutation } from '@tanstack/react-query'
import { Link } from 'react-router'
import { api } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { LanguageSwitcher } from '../ui/LanguageSwitcher.tsx'
import { EMAIL_TYPES, NS } from './unsubscribe/messages.ts'
import { useLinkToken } from './account/linkToken.ts'

interface UnsubscribeResult {
  type: string
  email: false
}

/**
 * /unsubscribe?token=…: the unsubscribe link in a notification mail's body. No login. It asks
 * first and posts the token only on a button press, so a mail scanner that opens links turns
 * nothing off (the List-Unsubscribe header targets the POST route itself, RFC 8058).
 */
export default function UnsubscribePage() {
  const { t } = useT(NS)
  usePageTitle(t('title'))
  const token = useLinkToken()
  // The signed token reads `<user>.<TYPE>.<signature>`; the type only names what is asked.
  const named = token.split('.')[1] ?? ''
  const typeLabel = (type: string) => ((EMAIL_TYPES as string[]).includes(type) ? t(`types.${type}`) : '')
  const unsubscribe = useMutation({
    mutationFn: () => api<UnsubscribeResult>('POST', `/email/unsubscribe?token=${encodeURIComponent(token)}`, undefined, { anonymous: true }),
  })
  const asked = typeLabel(named)
  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <h1>{t('title')}</h1>
        {!token && <p className="notice notice-info">{t('missing')}</p>}
        {unsubscribe.error && <ErrorNotice error={unsubscribe.error} />}
        {unsubscribe.data ? (
          <>
            <p className="notice notice-success" role="status" data-testid="unsubscribed">
              {t('done', { type: typeLabel(unsubscribe.data.type) || unsubscribe.data.type })}
            </p>
            <Link className="btn btn-block" to="/settings">
              {t('toSettings')}
            </Link>
          </>
        ) : (
          token && (
            <>
              <p id="unsubscribe-ask">{asked ? t('ask', { type: asked }) : t('askAny')}</p>
              <button
                type="button"
                className="btn btn-primary btn-block"
                aria-describedby="unsubscribe-ask"
                disabled={unsubscribe.isPending}
                onClick={() => unsubscribe.mutate()}
              >
                {unsubscribe.isPending ? t('working') : t('confirm')}
              </button>
            </>
          )
        )}
        <LanguageSwitcher />
      </div>
    </main>
  )
}
