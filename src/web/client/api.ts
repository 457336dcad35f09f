import { currentLocale, i18next, translate } from './i18n/index.ts'
import type { Page } from './types.ts'
import { noteServerTime } from './teaching/clock.ts'

/** The web front end reaches the API through this prefix; the login cookie rides along. */
export const API_BASE = '/core/api/v1'

export interface FieldError {
  field: string
  message: string
}

/** A failed API call: the HTTP status, the envelope's code and message, and field errors if any. */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly fields: FieldError[] = [],
    /** The envelope's `data` on failure (e.g. the answered questions of a 409). */
    readonly data: unknown = null,
  ) {
    super(message)
  }
}

const NETWORK = 0

type UnauthorizedHandler = () => void
let onUnauthorized: UnauthorizedHandler = () => {}

/** main.tsx installs the redirect to /login?next=…; kept here so the request layer has no router import. */
export function setUnauthorizedHandler(fn: UnauthorizedHandler) {
  onUnauthorized = fn
}

export interface RequestOptions {
  /** Calls that may legitimately answer 401 (login) must not bounce to the login page. */
  anonymous?: boolean
  signal?: AbortSignal
  /** Extra request headers (an Idempotency-Key). */
  headers?: Record<string, string>
}

function fromEnvelope(status: number, body: any): ApiError {
  const code = typeof body?.code === 'number' ? body.code : status * 100
  const message = typeof body?.message === 'string' && body.message ? body.message : translate('errors.requestFailed', { status })
  const fields = Array.isArray(body?.data?.fields) ? (body.data.fields as FieldError[]) : []
  return new ApiError(status, code, message, fields, body?.data ?? null)
}

function settle<T>(status: number, body: any, opts: RequestOptions): T {
  if (status >= 200 && status < 300 && body && body.code === 0) return body.data as T
  const err = body && typeof body === 'object' ? fromEnvelope(status, body) : new ApiError(status, status * 100, translate('errors.unexpectedAnswer', { status }))
  if (status === 401 && !opts.anonymous) onUnauthorized()
  throw err
}

/** Calls the API and unwraps the `{ code, message, data }` envelope; failures throw ApiError. */
export async function api<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  // The server writes its messages in the language the page is shown in.
  const headers: Record<string, string> = { ...opts.headers, accept: 'application/json', 'accept-language': currentLocale() }
  let payload: BodyInit | undefined
  if (body instanceof FormData) payload = body
  else if (body instanceof Blob) {
    // A typed file body (a class list as text/csv).
    headers['content-type'] = body.type
    payload = body
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(body)
  }
  let res: Response
  const sentAt = Date.now()
  try {
    res = await fetch(API_BASE + path, { method, headers, body: payload, credentials: 'same-origin', signal: opts.signal })
    noteServerTime(res.headers.get('x-server-time'), res.headers.get('date'), sentAt, Date.now())
  } catch (e) {
    if ((e as Error)?.name === 'AbortError') throw e
    throw new ApiError(NETWORK, 0, translate('errors.offline'))
  }
  let parsed: any = null
  const text = await res.text()
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    parsed = null
  }
  return settle<T>(res.status, parsed, opts)
}

export const get = <T>(path: string, opts?: RequestOptions) => api<T>('GET', path, undefined, opts)

/**
 * Multipart upload through XMLHttpRequest, because fetch cannot report upload progress.
 * `onProgress` receives a fraction from 0 to 1.
 */
export function upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void, headers: Record<string, string> = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', API_BASE + path)
    xhr.withCredentials = true
    xhr.setRequestHeader('accept', 'application/json')
    xhr.setRequestHeader('accept-language', currentLocale())
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value)
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total)
    }
    xhr.onload = () => {
      let parsed: any = null
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : null
      } catch {
        parsed = null
      }
      try {
        onProgress(1)
        resolve(settle<T>(xhr.status, parsed, {}))
      } catch (e) {
        reject(e)
      }
    }
    xhr.onerror = () => reject(new ApiError(NETWORK, 0, translate('errors.uploadOffline')))
    xhr.onabort = () => reject(new ApiError(NETWORK, 0, translate('errors.uploadCancelled')))
    xhr.send(form)
  })
}

/** Lists may come paginated (`{ items, ... }`) or as a bare array; the pages only need the rows. */
export function listOf<T>(data: T[] | Page<T> | { items: T[] } | null | undefined): T[] {
  if (!data) return []
  if (Array.isArray(data)) return data
  return Array.isArray(data.items) ? data.items : []
}

/** A person-readable explanation of a failure, with the server's own sentence where it helps. */
/**
 * A request field's name in the reader's language: `questions.1.stem` → "Question 2 › Question
 * text"; a name the catalogue does not know stays as it is.
 */
export function fieldLabel(path: string): string {
  const parts: string[] = []
  let list: string | null = null
  for (const seg of path.replace(/^body\./, '').split('.')) {
    if (/^\d+$/.test(seg) && list !== null) {
      const field = parts.pop() ?? list
      const item = `fieldItem.${list}`
      parts.push(i18next.exists(item) ? translate(item, { n: Number(seg) + 1 }) : translate('fieldItem.other', { field, n: Number(seg) + 1 }))
      list = null
      continue
    }
    list = seg
    parts.push(i18next.exists(`fields.${seg}`) ? translate(`fields.${seg}`) : seg)
  }
  return parts.join(' › ')
}

export function describeError(error: unknown): { title: string; detail?: string } {
  if (!(error instanceof ApiError)) return { title: translate('errors.generic'), detail: error instanceof Error ? error.message : undefined }
  switch (true) {
    // Field by field, each named in the reader's language (the server's sentence names them as the API does).
    case error.status === 400 && error.fields.length > 0:
      return { title: translate('errors.invalidInput'), detail: error.fields.map((f) => translate('errors.fieldProblem', { field: fieldLabel(f.field), message: f.message })).join(' ') }
    case error.status === NETWORK:
      return { title: error.message }
    case error.status === 401:
      return { title: translate('errors.loginFirst'), detail: error.message }
    case error.status === 403:
      return {
        title: translate('errors.noAccess'),
        detail: translate('errors.noAccessDetail', { message: error.message }),
      }
    case error.status === 404:
      return { title: translate('errors.notFound'), detail: error.message }
    case error.status === 409:
      return { title: error.message }
    case error.status === 413:
      return { title: translate('errors.tooLarge'), detail: error.message }
    case error.status === 429:
      return { title: translate('errors.tooMany'), detail: error.message }
    case error.status >= 500:
      return { title: translate('errors.server'), detail: error.message }
    default:
      return { title: error.message }
  }
}

/** Field errors of a failed call, keyed by field name (`body.title` and `title` both map to `title`). */
export function fieldErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  if (error instanceof ApiError) {
    for (const f of error.fields) out[f.field.replace(/^body\./, '')] ??= f.message
  }
  return out
}

export const isStatus = (error: unknown, status: number) => error instanceof ApiError && error.status === status
