import i18next from 'i18next'
import { initReactI18next, useTranslation } from 'react-i18next'
import { negotiateLocale, isLocale, type Locale } from '../../../i18n/locale.ts'
import commonEn from './messages/en/common.ts'
import commonZh from './messages/zh-CN/common.ts'

/**
 * The web app's words live in message catalogues, one folder per language
 * (messages/en, messages/zh-CN), one file per namespace. `common` (login, layout, shared
 * widgets) ships with the first page; every other namespace is registered by the page module
 * that uses it (`defineMessages`), so it travels in that page's chunk.
 *
 * Plurals use i18next's `_one`/`_other` suffixes (Intl.PluralRules); dates, times and numbers
 * go through Intl in the reader's locale (./format.ts).
 */

export type { Locale }
export const STORAGE_KEY = 'cls.locale'

import type { Catalogue } from './catalogue.ts'
export type { Catalogue }

function initialLocale(): Locale {
  try {
    const stored = localStorage.getItem(STORAGE_KEY)
    if (isLocale(stored)) return stored
  } catch {
    // storage blocked: fall through to the browser's languages
  }
  const langs = typeof navigator === 'undefined' ? [] : navigator.languages?.length ? navigator.languages : [navigator.language]
  return negotiateLocale(langs.filter(Boolean).join(','))
}

void i18next.use(initReactI18next).init({
  lng: initialLocale(),
  fallbackLng: 'en',
  supportedLngs: ['en', 'zh-CN'],
  load: 'currentOnly',
  defaultNS: 'common',
  ns: ['common'],
  resources: { en: { common: commonEn }, 'zh-CN': { common: commonZh } },
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
  initImmediate: false,
  react: { useSuspense: false },
} as Parameters<typeof i18next.init>[0])

function syncDocument() {
  if (typeof document !== 'undefined') document.documentElement.lang = currentLocale()
}

// A function declaration (hoisted), so it exists before the module-level syncDocument() below.
export function currentLocale(): Locale {
  return isLocale(i18next.language) ? i18next.language : 'en'
}

syncDocument()

/**
 * Switches the language now and remembers it on this device. The signed-in user's own
 * setting (users.locale) is applied through this too, so it follows them across devices.
 */
export async function setLocale(locale: Locale) {
  try {
    localStorage.setItem(STORAGE_KEY, locale)
  } catch {
    // private mode: the choice lasts for this page only
  }
  if (i18next.language !== locale) await i18next.changeLanguage(locale)
  syncDocument()
}

const PICKED_KEY = 'cls.locale.picked'

/**
 * A language picked with the menu on the login or registration page, in this tab: it becomes the
 * account's setting when that account has none (login) or is created (registration). Choosing
 * on a shared device's earlier visit does not count, so nobody inherits another person's choice.
 */
export function pickedBeforeLogin(): Locale | null {
  try {
    const picked = sessionStorage.getItem(PICKED_KEY)
    return isLocale(picked) ? picked : null
  } catch {
    return null
  }
}

export function rememberPick(locale: Locale | null) {
  try {
    if (locale) sessionStorage.setItem(PICKED_KEY, locale)
    else sessionStorage.removeItem(PICKED_KEY)
  } catch {
    // storage blocked: the pick applies to this page only
  }
}

/**
 * The signed-in user's own setting (GET /auth/me, login) wins over this device's: it follows
 * the person across devices. A user who has chosen nothing keeps what this device shows.
 */
export function applyUserLocale(user: { locale?: string | null } | null | undefined) {
  if (user && isLocale(user.locale) && user.locale !== currentLocale()) void setLocale(user.locale)
}

/** Registers a page's namespace in both languages (the zh-CN type forces the same keys). */
export function defineMessages<T extends object>(ns: string, en: T, zh: Catalogue<T>) {
  if (!i18next.hasResourceBundle('en', ns)) {
    i18next.addResourceBundle('en', ns, en)
    i18next.addResourceBundle('zh-CN', ns, zh)
  }
  return ns
}

/** `const { t } = useT('manage')`; with no namespace, `common`. Re-renders on a language change. */
export function useT(ns: string = 'common') {
  return useTranslation(ns)
}

/** For code outside components (error texts built in the request layer). */
export const translate = (key: string, options: Record<string, unknown> = {}) => i18next.t(key, options) as string

export { i18next }
