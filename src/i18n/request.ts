import { isLocale, negotiateLocale, type Locale } from './locale.ts'
import { fieldSummary, localizeIssue, localizeText } from './messages.ts'

/**
 * The language a request is answered in: the signed-in user's own setting (recorded by the auth
 * plugin once it knows the user), otherwise the request's Accept-Language.
 */
const userLocales = new WeakMap<Request, Locale>()

export function rememberUserLocale(request: Request, locale: string | null | undefined) {
  if (isLocale(locale)) userLocales.set(request, locale)
}

export const requestLocale = (request: Request): Locale =>
  userLocales.get(request) ?? negotiateLocale(request.headers.get('accept-language'))

interface Body {
  code: number
  message: string
  data: unknown
}
type FieldRow = { field: string; message: string }

const isEnvelope = (v: unknown): v is Body =>
  typeof v === 'object' && v !== null && typeof (v as Body).code === 'number' && typeof (v as Body).message === 'string'

/** Schema issues (with their codes) of an Elysia validation error, when the validator is a Standard Schema. */
async function rawIssues(error: any): Promise<any[] | null> {
  try {
    const v = error?.validator
    const schema = v && ('~standard' in v ? v : v.schema)
    if (!schema?.['~standard']) return null
    const result = await schema['~standard'].validate(error.value)
    return Array.isArray(result?.issues) ? result.issues : null
  } catch {
    return null
  }
}

const pathOf = (i: any) => (Array.isArray(i?.path) ? i.path.map((p: any) => (typeof p === 'object' && p !== null ? p.key : p)).join('.') : '')

/**
 * The error envelope in the reader's language: the sentence and every field message; codes and
 * everything else unchanged. Validation failures of a route's schema are re-rendered from the
 * schema's issues, so messages zod writes itself are chosen by issue code.
 */
export async function localizeEnvelope(body: unknown, ctx: { request: Request; code?: unknown; error?: unknown }): Promise<unknown> {
  if (!isEnvelope(body) || body.code === 0) return body
  const locale = requestLocale(ctx.request)
  if (locale === 'en') return body
  const data = body.data as { fields?: FieldRow[] } | null
  const fields = Array.isArray(data?.fields) ? data.fields : null
  if (!fields) return { ...body, message: localizeText(body.message, locale) }

  let localized: FieldRow[] | null = null
  if (ctx.code === 'VALIDATION') {
    const issues = await rawIssues(ctx.error)
    if (issues?.length) {
      const on = (ctx.error as { type?: string })?.type ?? 'body'
      localized = issues.map((i) => ({ field: pathOf(i) || on, message: localizeIssue(i, locale) }))
    }
  }
  localized ??= fields.map((f) => ({ field: f.field, message: localizeText(f.message, locale, 'field') }))
  // An AppError (src/http/errors.ts) carries its catalogue name; read by shape, so i18n imports nothing of http.
  const thrown = typeof (ctx.error as { errorName?: unknown } | null)?.errorName === 'string' ? (ctx.error as { errorName: string }) : null
  // One sentence naming the fields, whichever way the English one was put together.
  const message = thrown && thrown.errorName !== 'VALIDATION_FAILED' ? localizeText(body.message, locale) : fieldSummary(localized, locale)
  return { ...body, message, data: { ...data, fields: localized } }
}
