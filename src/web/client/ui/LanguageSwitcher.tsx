import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useId, useState } from 'react'
import { api } from '../api.ts'
import { applyUserLocale, currentLocale, rememberPick, setLocale, useT, type Locale } from '../i18n/index.ts'
import { LOCALES } from '../../../i18n/locale.ts'
import type { User } from '../types.ts'

/**
 * The language menu (login and registration pages, and the header). The choice applies at once
 * and is remembered on this device; for a signed-in user it is also saved on the account
 * (PATCH /auth/me), so it follows them to other devices. The account's setting, when there is
 * one, is applied as soon as the user is known.
 */
export function LanguageSwitcher({ user }: { user?: Pick<User, 'locale'> | null }) {
  const { t } = useT()
  const id = useId()
  const queryClient = useQueryClient()
  const [saveFailed, setSaveFailed] = useState(false)
  const userLocale = user?.locale ?? null

  useEffect(() => applyUserLocale({ locale: userLocale }), [userLocale])

  async function choose(locale: Locale) {
    setSaveFailed(false)
    await setLocale(locale)
    if (!user) return rememberPick(locale)
    try {
      const saved = await api<User>('PATCH', '/auth/me', { locale })
      queryClient.setQueryData(['me'], saved)
    } catch {
      setSaveFailed(true)
    }
  }

  return (
    <div className="language-switcher">
      <label htmlFor={id} className="sr-only">
        {t('language.label')}
      </label>
      <select
        id={id}
        className="language-select"
        data-testid="language-switcher"
        value={currentLocale()}
        onChange={(e) => void choose(e.target.value as Locale)}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {t(`language.${l}`)}
          </option>
        ))}
      </select>
      {saveFailed && (
        <span className="field-error" role="status">
          {t('language.saveFailed')}
        </span>
      )}
    </div>
  )
}
