import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { api, get } from '../api.ts'
import { defineMessages, useT } from '../i18n/index.ts'
import en from '../i18n/messages/en/settings.ts'
import zh from '../i18n/messages/zh-CN/settings.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { useMe } from '../queries.ts'
import type { Notification } from '../types.ts'
import { Checkbox } from '../ui/form.tsx'
import { LanguageSwitcher } from '../ui/LanguageSwitcher.tsx'
import { ErrorNotice, QueryView, Success } from '../ui/Notice.tsx'
import { AccountSection } from './account/AccountSection.tsx'

const NS = defineMessages('settings', en, zh)

/** The server's notification types (src/modules/notifications/types.ts). */
type EmailType = Notification['type']
interface Preferences {
  email: Record<EmailType, boolean>
}

const KEY = ['notification-preferences'] as const
const TYPES: EmailType[] = ['HOMEWORK_REMINDER', 'SUBMISSION_GRADED', 'ANNOUNCEMENT', 'SUBMISSION_RECEIVED', 'PRIVATE_COMMENT', 'COMMENT_REPLY']
/** Only teachers (and admins, who may teach) receive these; a student is not offered the switch. */
const TEACHING: EmailType[] = ['SUBMISSION_RECEIVED']

/** /settings: which notifications also come by e-mail. Each switch saves at once. */
export default function SettingsPage() {
  const { t } = useT(NS)
  usePageTitle(t('title'))
  const me = useMe()
  const qc = useQueryClient()
  const prefs = useQuery({ queryKey: KEY, queryFn: () => get<Preferences>('/me/notification-preferences') })
  // The switch must move in the same render as the click (a controlled checkbox whose state
  // changes a tick later is put back by React); the server's answer then settles it.
  const [moving, setMoving] = useState<Partial<Record<EmailType, boolean>>>({})
  const save = useMutation({
    mutationFn: (change: Partial<Record<EmailType, boolean>>) => api<Preferences>('PUT', '/me/notification-preferences', { email: change }),
    onSuccess: (data) => qc.setQueryData(KEY, data),
    onError: () => void qc.invalidateQueries({ queryKey: KEY }),
    onSettled: (_data, _error, change) => setMoving((m) => Object.fromEntries(Object.entries(m).filter(([k]) => !(k in change)))),
  })
  return (
    <>
      <div className="page-head">
        <h1>{t('title')}</h1>
      </div>
      <section className="card" aria-labelledby="email-heading">
        <h2 id="email-heading">{t('emailHeading')}</h2>
        <p className="hint">{t('emailHint')}</p>
        <QueryView query={prefs}>
          {(data: Preferences) => (
            <div data-testid="email-preferences">
              {TYPES.filter((type) => me.data?.role !== 'STUDENT' || !TEACHING.includes(type)).map((type) => (
                <Checkbox
                  key={type}
                  label={t(`types.${type}.label`)}
                  hint={t(`types.${type}.hint`)}
                  checked={moving[type] ?? data.email[type]}
                  onChange={(v) => {
                    setMoving((m) => ({ ...m, [type]: v }))
                    save.mutate({ [type]: v })
                  }}
                />
              ))}
            </div>
          )}
        </QueryView>
        {save.isSuccess && <Success>{t('saved')}</Success>}
        {save.error && <ErrorNotice error={save.error} />}
      </section>
      <section className="card" aria-labelledby="language-heading">
        <h2 id="language-heading">{t('languageHeading')}</h2>
        <p className="hint">{t('languageHint')}</p>
        <LanguageSwitcher user={me.data} />
      </section>
      {me.data && <AccountSection user={me.data} />}
    </>
  )
}
