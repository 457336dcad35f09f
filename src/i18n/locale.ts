/** The languages the service speaks. `en` is the fallback for everything else. */
export const LOCALES = ['en', 'zh-CN'] as const
export type Locale = (typeof LOCALES)[number]
export const DEFAULT_LOCALE: Locale = 'en'

export const isLocale = (v: unknown): v is Locale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v)

/**
 * The best of our locales for an `Accept-Language` header (RFC 9110 §12.5.4): the tags in
 * order of their q-values, any Chinese tag (zh, zh-CN, zh-Hans, zh-SG) maps to zh-CN.
 */
export function negotiateLocale(acceptLanguage: string | null | undefined): Locale {
  if (!acceptLanguage) return DEFAULT_LOCALE
  const ranked = acceptLanguage
    .split(',')
    .slice(0, 20)
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean)
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), i }
    })
    .filter((r) => r.tag && r.q > 0 && !Number.isNaN(r.q))
    .sort((a, b) => b.q - a.q || a.i - b.i)
  for (const { tag } of ranked) {
    if (tag === 'zh' || tag.startsWith('zh-')) return 'zh-CN'
    if (tag === 'en' || tag.startsWith('en-')) return 'en'
  }
  return DEFAULT_LOCALE
}

/** The user's own choice wins; without one, the request's Accept-Language. */
export function resolveLocale(userLocale: string | null | undefined, acceptLanguage: string | null | undefined): Locale {
  return isLocale(userLocale) ? userLocale : negotiateLocale(acceptLanguage)
}
