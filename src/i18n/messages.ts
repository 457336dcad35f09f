import { DEFAULT_LOCALE, type Locale } from './locale.ts'
import en from './messages/en.ts'
import zh from './messages/zh-CN.ts'

/**
 * The server's message catalogue (./messages/<locale>.ts) and its renderer.
 *
 * Code writes the English sentence (`forbidden('You are not a member of this course.')`); the
 * English text is the message id. `findMessage` recovers its key and parameters — placeholders
 * `{{name}}` match any value — and `localizeText` renders it in the reader's language. A text the
 * catalogue does not know stays as written.
 */
export type Section = 'error' | 'field'
export type Params = Record<string, string>

const CATALOGUES: Record<Locale, typeof en> = { en, 'zh-CN': zh }

interface Entry {
  section: Section
  key: string
  names: string[]
  re: RegExp
}

const exact = new Map<string, { section: Section; key: string }>()
const templated: Entry[] = []
for (const section of ['error', 'field'] as const) {
  for (const [key, text] of Object.entries(en[section])) {
    const names = [...text.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]!)
    if (!names.length) {
      exact.set(text, { section, key })
      continue
    }
    const source = text
      .split(/\{\{\w+\}\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('([^]+?)')
    templated.push({ section, key, names, re: new RegExp(`^${source}$`) })
  }
}

/** The catalogue entry an English text was written from, with the values of its placeholders. */
export function findMessage(text: string, only?: Section): { section: Section; key: string; params: Params } | null {
  const hit = exact.get(text)
  if (hit && (!only || hit.section === only)) return { ...hit, params: {} }
  for (const e of templated) {
    if (only && e.section !== only) continue
    const m = e.re.exec(text)
    if (m) return { section: e.section, key: e.key, params: Object.fromEntries(e.names.map((n, i) => [n, m[i + 1]!])) }
  }
  return null
}

const TERMS = new Map(Object.entries(en.term).map(([k, v]) => [v, k as keyof typeof en.term]))

/** Renders a catalogue entry; English words in parameters that the catalogue knows are translated too. */
export function renderMessage(locale: Locale, section: Section | 'issue', key: string, params: Params = {}): string {
  const cat = CATALOGUES[locale] ?? CATALOGUES[DEFAULT_LOCALE]
  const template = (cat[section] as Record<string, string>)[key] ?? (en[section] as Record<string, string>)[key] ?? key
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const v = params[name] ?? ''
    const term = TERMS.get(v)
    return term ? cat.term[term] : v
  })
}

/**
 * A notification text (the catalogue's `notification` section) in the reader's language. The
 * parameters are other people's words (course and task titles) and are never translated.
 */
export function renderText(locale: Locale, key: keyof typeof en.notification, params: Record<string, string | number> = {}): string {
  const cat = CATALOGUES[locale] ?? CATALOGUES[DEFAULT_LOCALE]
  return cat.notification[key].replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(params[name] ?? ''))
}

/** An English text of ours in the reader's language (unchanged when unknown or when English is wanted). */
export function localizeText(text: string, locale: Locale, only?: Section): string {
  if (locale === 'en') return text
  const m = findMessage(text, only)
  return m ? renderMessage(locale, m.section, m.key, m.params) : text
}

interface Issue {
  code?: string
  message?: string
  expected?: string
  origin?: string
  format?: string
  minimum?: number | bigint
  maximum?: number | bigint
  values?: unknown[]
  keys?: string[]
  divisor?: number
  input?: unknown
}

/**
 * A schema issue's field message: the schema's own message from the catalogue when it has one,
 * otherwise a text chosen by the issue's code (zod 4 issue codes). English keeps zod's text.
 */
export function localizeIssue(issue: Issue, locale: Locale): string {
  const message = issue.message ?? ''
  if (locale === 'en') return message || en.field.isInvalid
  const own = findMessage(message, 'field')
  if (own) return renderMessage(locale, 'field', own.key, own.params)
  const r = (key: keyof typeof en.issue, params: Params = {}) => renderMessage(locale, 'issue', key, params)
  const kind = issue.origin === 'string' ? 'string' : issue.origin === 'array' || issue.origin === 'set' ? 'array' : 'number'
  switch (issue.code) {
    case 'invalid_type':
      return ('input' in issue ? issue.input === undefined : /received undefined$/.test(message)) ? r('missing') : r('invalid_type', { expected: String(issue.expected ?? '') })
    case 'too_small':
      return r(`too_small_${kind}`, { minimum: String(issue.minimum) })
    case 'too_big':
      return r(`too_big_${kind}`, { maximum: String(issue.maximum) })
    case 'invalid_format': {
      const f = issue.format
      if (f === 'email' || f === 'url' || f === 'datetime' || f === 'uuid' || f === 'guid') return r(`invalid_format_${f === 'guid' ? 'uuid' : f}`)
      return r('invalid_format')
    }
    case 'invalid_value':
      return r('invalid_value', { values: (issue.values ?? []).map((v) => String(v)).join(', ') })
    case 'unrecognized_keys':
      return r('unrecognized_keys', { keys: (issue.keys ?? []).join(', ') })
    case 'not_multiple_of':
      return issue.divisor === 1 ? r('not_integer') : r('not_multiple_of', { divisor: String(issue.divisor) })
    default:
      return r('invalid')
  }
}

/** `field: message; …` in the reader's language, for the envelope's sentence. */
export function fieldSummary(fields: { field: string; message: string }[], locale: Locale): string {
  const text = fields.map((f) => (locale === 'en' ? `${f.field}: ${f.message}` : `${f.field}：${f.message}`)).join(locale === 'en' ? '; ' : '；')
  return renderMessage(locale, 'error', 'invalidRequest', { summary: text }).slice(0, 500)
}
