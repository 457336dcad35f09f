import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { api, fieldErrors, get } from '../../api.ts'
import { useT } from '../../i18n/index.ts'
import { formatDateTime } from '../../i18n/format.ts'
import type { User } from '../../types.ts'
import { ErrorNotice, QueryView, Success } from '../../ui/Notice.tsx'
import { TextField } from '../../ui/form.tsx'
import { useEmailSettings } from './EmailBanner.tsx'
import { describeAgent } from './agent.ts'
import { NS } from './messages.ts'

interface Session {
  id: string
  createdAt: string
  lastUsedAt: string
  userAgent: string | null
  address: string | null
  current: boolean
}
const SESSIONS = ['sessions'] as const

/** Settings → Account: the address and its state, change password, change e-mail, active sessions. */
export function AccountSection({ user }: { user: User }) {
  const { t } = useT(NS)
  return (
    <section className="card" aria-labelledby="account-heading">
      <h2 id="account-heading">{t('settings.heading')}</h2>
      <p data-testid="account-email">
        {t('settings.emailStatus', { email: user.email })} ({user.emailVerified ? t('settings.verified') : t('settings.unverified')})
      </p>
      <ChangePassword />
      <ChangeEmail />
      <Sessions />
    </section>
  )
}

function ChangePassword() {
  const { t } = useT(NS)
  const qc = useQueryClient()
  const [current, setCurrent] = useState('')
  const [next, setNext] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const change = useMutation({
    mutationFn: () => api<null>('POST', '/auth/password/change', { currentPassword: current, newPassword: next }),
    onSuccess: () => {
      setCurrent('')
      setNext('')
      setErrors({})
      void qc.invalidateQueries({ queryKey: SESSIONS })
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    change.mutate()
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="password-heading">
      <h3 id="password-heading">{t('settings.passwordHeading')}</h3>
      <TextField label={t('settings.currentPassword')} name="currentPassword" type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} error={errors.currentPassword} required />
      <TextField label={t('settings.newPassword')} name="newPassword" type="password" autoComplete="new-password" value={next} onChange={(e) => setNext(e.target.value)} error={errors.newPassword} required />
      {change.error && !Object.keys(errors).length && <ErrorNotice error={change.error} />}
      {change.isSuccess && <Success>{t('settings.passwordChanged')}</Success>}
      <button type="submit" className="btn" disabled={change.isPending}>
        {t('settings.changePassword')}
      </button>
    </form>
  )
}

function ChangeEmail() {
  const { t } = useT(NS)
  const settings = useEmailSettings()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const change = useMutation({
    mutationFn: () => api<null>('POST', '/auth/email/change', { newEmail: email.trim(), currentPassword: password }),
    onSuccess: () => {
      setPassword('')
      setErrors({})
    },
    onError: (e) => setErrors(fieldErrors(e)),
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    change.mutate()
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="email-change-heading">
      <h3 id="email-change-heading">{t('settings.emailHeading')}</h3>
      {settings.data && !settings.data.enabled ? (
        <p className="hint">{t('settings.emailUnavailable')}</p>
      ) : (
        <>
          <TextField label={t('settings.newEmail')} name="newEmail" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} error={errors.newEmail} required />
          <TextField label={t('settings.currentPassword')} name="emailCurrentPassword" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} error={errors.currentPassword} required />
          {change.error && !Object.keys(errors).length && <ErrorNotice error={change.error} />}
          {change.isSuccess && <Success>{t('settings.emailSent', { email: email.trim() })}</Success>}
          <button type="submit" className="btn" disabled={change.isPending}>
            {t('settings.changeEmail')}
          </button>
        </>
      )}
    </form>
  )
}

function Sessions() {
  const { t } = useT(NS)
  const qc = useQueryClient()
  const sessions = useQuery({ queryKey: SESSIONS, queryFn: () => get<Session[]>('/auth/sessions') })
  const end = useMutation({
    mutationFn: (id: string) => api<null>('DELETE', `/auth/sessions/${encodeURIComponent(id)}`),
    onSettled: () => void qc.invalidateQueries({ queryKey: SESSIONS }),
  })
  return (
    <div aria-labelledby="sessions-heading">
      <h3 id="sessions-heading">{t('settings.sessionsHeading')}</h3>
      <p className="hint">{t('settings.sessionsHint')}</p>
      <QueryView query={sessions}>
        {(list: Session[]) => (
          <ul className="session-list" data-testid="sessions">
            {list.map((s) => {
              const agent = describeAgent(s.userAgent)
              return (
                <li key={s.id} className="session-item">
                  {/* The raw string stays available on hover, for whoever needs it. */}
                  <div className="session-text" title={s.userAgent ?? undefined}>
                    <strong>{s.current ? t('settings.thisDevice') : agent}</strong>
                    {s.current && <span className="hint"> {agent}</span>}
                    <p className="hint">
                      {t('settings.since', { when: formatDateTime(s.createdAt), address: s.address || t('settings.unknownAddress') })} ·{' '}
                      {t('settings.lastUsed', { when: formatDateTime(s.lastUsedAt) })}
                    </p>
                  </div>
                  {!s.current && (
                    <button type="button" className="btn btn-small" aria-label={t('settings.signOutLabel', { agent })} disabled={end.isPending} onClick={() => end.mutate(s.id)}>
                      {t('settings.signOut')}
                    </button>
                  )}
                </li>
              )
            })}
          </ul>
        )}
      </QueryView>
      {end.error && <ErrorNotice error={end.error} />}
    </div>
  )
}
