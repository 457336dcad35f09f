/** The languages the service speaks. `en` is the fallback for everything else. */
export const LOCALES = ['en', 'zh-CN'] as const
export type Locale = (typeof LOCALES)[number]
export const DEFAULT_LOCALE: Locale = 'en'

export const isLocale = (v: unknown): v is Locale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v)

/** An RFC 9110 §12.4.2 qvalue: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/

/**
 * The q-value of one entry's parameters: 1 when it has none, NaN when it has one that is not a
 * qvalue (`NaN`, `-1`, `1e309`, `2`, empty): such an entry is ignored, never taken as q=1.
 */
function qOf(params: string[]): number {
  const q = params.map((p) => /^\s*q\s*=\s*(.*?)\s*$/i.exec(p)).find(Boolean)
  if (!q) return 1
  return QVALUE.test(q[1]!) ? Number(q[1]) : Number.NaN
}

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
      return { tag: tag.trim().toLowerCase(), q: qOf(params), i }
    })
    .filter((r) => r.tag && r.q > 0)
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
