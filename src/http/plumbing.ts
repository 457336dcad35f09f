import { Elysia } from 'elysia'
import postgres from 'postgres'
import type { Logger } from '../lib/log.ts'
import { localizeEnvelope } from '../i18n/request.ts'
import { observeRequest, UNMATCHED_ROUTE } from '../metrics.ts'
import { AppError, ERROR_CATALOGUE, isStorageFull, storageFull, type ErrorName, type FieldError } from './errors.ts'
import { requestUrl } from './request-url.ts'

/** JSON bodies are small; uploads (multipart) have their own, configurable limit. */
export const MAX_JSON_BYTES = 1024 * 1024
/** Room for multipart boundaries, part headers and the small text fields next to a file. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024

/**
 * Bun's own limit (maxRequestBodySize), twice the largest body the app accepts: a body over
 * Bun's limit gets Bun's bare 413 (no envelope, no request id), so the app's limits must always
 * trip first. They do: every body is counted while it is read (JSON by the parser below, at
 * MAX_JSON_BYTES; uploads by readMultipart, at MAX_UPLOAD_BYTES + framing), so the app answers
 * 413 in the envelope halfway to this ceiling, whatever MAX_UPLOAD_BYTES is.
 */
export const bodyCeiling = (maxUploadBytes: number) => 2 * (Math.max(maxUploadBytes, MAX_JSON_BYTES) + MULTIPART_OVERHEAD_BYTES)

/** Deeper JSON is refused before validation: no payload of ours nests beyond a few levels. */
export const MAX_JSON_DEPTH = 32

/**
 * A JSON body read as it arrives and counted: over MAX_JSON_BYTES → 413 at once, whether the
 * body declared its length or not (a chunked one does not), long before Bun's own cap.
 * Undefined for an empty body (Elysia's own parser then decides, as before).
 */
export async function readJsonCounted(request: Request): Promise<unknown> {
  const reader = request.body?.getReader()
  if (!reader) return undefined
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_JSON_BYTES) {
      reader.cancel().catch(() => {})
      throw new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${MAX_JSON_BYTES} bytes.`, { limitBytes: MAX_JSON_BYTES })
    }
    chunks.push(value)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? JSON.parse(text) : undefined
}

/** True when `value` nests objects/arrays deeper than `limit`. Iterative, stops early. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    if (depth >= limit) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1])
    }
  }
  return false
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
// Forms (urlencoded) are not an API format here: refusing them, and multipart outside the upload
// routes, means a cross-site HTML form can never produce a request the API acts on.
const ACCEPTED_BODY_TYPES = ['application/json', 'multipart/form-data']
// The one exception: RFC 8058 one-click unsubscribe, which mail providers POST as
// `List-Unsubscribe=One-Click` in application/x-www-form-urlencoded (signed token, no login).
const isOneClickUnsubscribe = (request: Request, type: string) =>
  type === 'application/x-www-form-urlencoded' && request.method === 'POST' && requestUrl(request).pathname.endsWith('/email/unsubscribe')

// And a class list as CSV (POST /courses/{id}/roster): a cross-site form cannot send text/csv.
const isRosterCsv = (request: Request, type: string) =>
  type === 'text/csv' && request.method === 'POST' && /\/courses\/[^/]+\/roster$/.test(new URL(request.url).pathname)

// And the LTI protocol endpoints (docs/lti.md), which tools call as OAuth 2 and IMS specify:
// form posts (token, authorization) and the IMS score media type.
const isLtiProtocol = (request: Request, type: string) =>
  (type === 'application/x-www-form-urlencoded' || type === 'application/vnd.ims.lis.v1.score+json') &&
  request.method === 'POST' &&
  new URL(request.url).pathname.startsWith('/lti/')

/** The request's media type without parameters, in lower case ('' when none is declared). */
export const mediaType = (request: Request) => (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()

/** The content type Bun's `Response.json` gives a body that has none. */
export const JSON_CONTENT_TYPE = 'application/json;charset=utf-8'

/**
 * The JSON text of a value Elysia would answer with `Response.json` (a plain object or array,
 * or an object without a prototype), else undefined (strings, Responses, files, streams, errors…
 * are left to Elysia).
 */
export function jsonText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const ctor = (value as { constructor?: { name?: string } }).constructor
  if (ctor !== undefined && ctor !== Object && ctor !== Array) return undefined
  return JSON.stringify(value)
}

interface RequestMeta {
  id: string
  start: number
}
const meta = new WeakMap<Request, RequestMeta>()
export const requestIdOf = (request: Request) => meta.get(request)?.id ?? 'unknown'

const envelopeOf = (name: ErrorName, message: string, data: unknown = null) => ({
  code: ERROR_CATALOGUE[name].code,
  message,
  data,
})

/** Turns a schema-validation failure (zod via Standard Schema) into `{ field, message }` rows. */
function validationFields(error: any): FieldError[] {
  const on: string = error?.type ?? error?.on ?? 'body'
  let issues: any[] = []
  try {
    issues = Array.isArray(error?.all) ? error.all : []
  } catch {
    issues = []
  }
  const rows = issues.map((i: any) => {
    const path = Array.isArray(i?.path)
      ? i.path.map((p: any) => (typeof p === 'object' && p !== null ? p.key : p)).join('.')
      : typeof i?.path === 'string'
        ? i.path.replace(/^\//, '').replaceAll('/', '.')
        : ''
    const message = typeof i?.message === 'string' ? i.message : typeof i?.summary === 'string' ? i.summary : 'is invalid'
    return { field: path || on, message }
  })
  return rows.length ? rows : [{ field: on, message: 'is invalid' }]
}

/** Socket and postgres.js codes of a connection that is gone or cannot be made. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOENT',
  // A name that does not resolve (now): DNS down, or the database's host not yet in it.
  'ENOTFOUND', 'EAI_AGAIN',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
])

/**
 * The database (or the way to it) is unavailable: answered 503, and a job may retry. SQLSTATE
 * class 08 (connection exception), 57P01-57P05 (the backend was terminated, crashed, cannot
 * connect now, or timed out idle) and 53300 (too many connections).
 */
export function isConnectionError(e: any) {
  const c = e?.code
  return typeof c === 'string' && (CONNECTION_CODES.has(c) || c.startsWith('08') || /^57P0[1-5]$/.test(c) || c === '53300')
}

/**
 * What the process does with a promise rejection nobody handled. A database connection error
 * (a driver's dangling promise: porsager/postgres #1192 did this on every terminated start-up
 * until patches/postgres@3.4.9.patch) is logged and the service carries on: a database blip
 * must not end a process whose requests were answered 503 already. Anything else still ends
 * the process, as Bun's default would: its state is unknown.
 */
export function onUnhandledRejection(log: Logger, reason: unknown): 'continue' | 'exit' {
  const fields = {
    code: (reason as any)?.code,
    error: String((reason as any)?.message ?? reason),
    stack: (reason as any)?.stack,
  }
  if (isConnectionError(reason)) {
    // An outage, not a bug: its stack says nothing (node:net frames) and floods the log.
    log.error('unhandled rejection (database connection); carrying on', { ...fields, stack: undefined })
    return 'continue'
  }
  log.error('unhandled rejection; exiting', fields)
  return 'exit'
}

/** PostgreSQL SQLSTATEs are translated here, once. */
function fromPostgres(e: postgres.PostgresError): { status: number; body: ReturnType<typeof envelopeOf> } | null {
  switch (e.code) {
    case '23505':
      return { status: 409, body: envelopeOf('CONFLICT', 'This already exists.') }
    case '23503':
      return { status: 404, body: envelopeOf('NOT_FOUND', 'A referenced record does not exist.') }
    case '22P02':
    case '22007':
    case '22008':
    case '22003':
    case '22001':
    case '23514':
    case '22023':
    case '22021': // invalid byte sequence (e.g. NUL) in text
    case '22P05': // untranslatable character
    case '54000': // value too large for an index row
      return { status: 400, body: envelopeOf('MALFORMED_REQUEST', 'A value in the request is not valid.') }
    case '40001':
    case '40P01':
      return { status: 503, body: envelopeOf('UNAVAILABLE', 'The database was busy; please retry.') }
  }
  return null
}

/**
 * Wraps the error handler: what it answers is rendered in the request's language. The context
 * is destructured, never passed whole: Elysia reads a hook's parameter list to decide what each
 * request must prepare, and a hook taking the whole context made every route build an object of
 * all headers, parse the cookies and more, on every request (issue 55: a fifth of the inbox's CPU).
 */
type ErrorContext = { code: unknown; error: unknown; set: any; request: Request; path: string }
const inReadersLanguage =
  (handler: (ctx: ErrorContext) => unknown) =>
  ({ code, error, set, request, path }: ErrorContext): Promise<unknown> =>
    localizeEnvelope(handler({ code, error, set, request, path }), { request, code, error })

export interface PlumbingOptions {
  log: Logger
  /** Lists the methods served for a path; lets an unknown method answer 405 instead of 404. */
  methodsFor: (path: string) => string[]
  /** MAX_UPLOAD_BYTES: a multipart body declaring a larger length is refused before it is read. */
  maxUploadBytes: number
  /** True for the routes that read their body themselves (`parse: 'none'`: uploads, one-click unsubscribe). */
  readsOwnBody?: (method: string, path: string) => boolean
  /** The service's clock (Deps.clock): sent as `X-Server-Time` so the web app's deadlines follow it. */
  now?: () => Date
}

/**
 * Cross-cutting HTTP behaviour: request ids, one log line per request, security headers,
 * body-size and content-type checks, and the single error handler that turns every failure
 * into the `{ code, message, data }` envelope.
 */
export function plumbing({ log, methodsFor, maxUploadBytes, readsOwnBody = () => false, now = () => new Date() }: PlumbingOptions) {
  return new Elysia({ name: 'plumbing' })
    .onRequest(({ request, set }) => {
      const incoming = request.headers.get('x-request-id')
      const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID()
      meta.set(request, { id, start: performance.now() })
      set.headers['x-request-id'] = id
      set.headers['x-content-type-options'] = 'nosniff'
      set.headers['referrer-policy'] = 'same-origin'
      // The service's own time with milliseconds (the Date header has seconds and is the host's
      // clock, not the service's Clock): countdowns and badges in the web app follow it.
      set.headers['x-server-time'] = now().toISOString()
      // A malformed Host header makes request.url unparsable: 400 here, before any route reads it.
      requestUrl(request)

      if (!BODY_METHODS.has(request.method)) return
      const declared = request.headers.get('content-length')
      const length = Number(declared ?? '0')
      const type = mediaType(request)
      const hasBody = declared !== null ? length > 0 : request.body !== null
      // Media types are case-insensitive (RFC 9110): `Application/JSON` is JSON. Elysia picks its
      // parser by the header's exact text, so the media type is written back in lower case.
      const raw = request.headers.get('content-type')
      if (raw && type && raw.split(';')[0]!.trim() !== type) {
        request.headers.set('content-type', type + raw.slice(raw.indexOf(';') === -1 ? raw.length : raw.indexOf(';')))
      }
      if (hasBody && type && !ACCEPTED_BODY_TYPES.includes(type) && !isOneClickUnsubscribe(request, type) && !isRosterCsv(request, type) && !isLtiProtocol(request, type)) {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${type} is not accepted; send application/json or multipart/form-data.`)
      }
      // A multipart body's size is judged by the upload route after identity and permission
      // (readMultipart): an outsider's oversized upload is a 403, not a 413.
      if (type !== 'multipart/form-data' && length > MAX_JSON_BYTES) {
        throw new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${MAX_JSON_BYTES} bytes.`, {
          limitBytes: MAX_JSON_BYTES,
        })
      }
    })
    // JSON is counted as it is read; multipart reaching a JSON route is refused before a byte is
    // read. Routes that read their own body (`parse: 'none'`) are left alone: a global parse hook
    // would otherwise override their 'none', so it answers null (parsed: nothing) for them.
    .onParse({ as: 'global' }, ({ request, path }, contentType) => {
      if (readsOwnBody(request.method, path)) return null
      const type = contentType.toLowerCase()
      if (type === 'application/json') return readJsonCounted(request)
      if (type === 'multipart/form-data') throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'This endpoint takes application/json.')
    })
    // Validating a pathologically nested body costs time quadratic in its depth (a 200 KB
    // body of brackets took seconds), so it is refused as soon as it is parsed.
    .onTransform({ as: 'global' }, ({ body, request }) => {
      // Upload routes read multipart themselves (`parse: 'none'`), so a multipart body that
      // Elysia parsed into an object reached a JSON route.
      if (body !== null && typeof body === 'object' && mediaType(request) === 'multipart/form-data') {
        throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'This endpoint takes application/json.')
      }
      if (body !== null && typeof body === 'object' && nestsDeeperThan(body, MAX_JSON_DEPTH)) {
        throw new AppError('MALFORMED_REQUEST', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`)
      }
    })
    // A route's JSON answer is written with JSON.stringify instead of Elysia's `Response.json`:
    // Bun's Response.json took 2-3× as long as JSON.stringify for the same object (an inbox page
    // of 25 KB: 35-60 µs against 17-27 µs), a fifth of the difference between GET /notifications
    // and a bare server (issue 55). Same bytes, same status and headers: the content type
    // Response.json would add (`application/json;charset=utf-8`) unless one is set already.
    // Answered as a string, which Elysia sends as `new Response(text, set)`.
    .mapResponse({ as: 'global' }, ({ responseValue, set }) => {
      const json = jsonText(responseValue)
      if (json === undefined) return
      if (set.headers['content-type'] === undefined) set.headers['content-type'] = JSON_CONTENT_TYPE
      return json as unknown as Response
    })
    // Every error envelope leaves in the reader's language (src/i18n/request.ts).
    .onError({ as: 'global' }, inReadersLanguage(({ code, error: thrown, set, request, path }) => {
      const requestId = requestIdOf(request)
      set.headers['content-type'] = 'application/json; charset=utf-8'
      // Elysia wraps what a parser throws in a ParseError; our own errors keep their meaning.
      const cause = (thrown as { cause?: unknown })?.cause
      const error = code === 'PARSE' && cause instanceof AppError ? cause : thrown
      if (error instanceof AppError) {
        set.status = error.status
        Object.assign(set.headers, error.headers)
        return envelopeOf(error.errorName, error.message, error.data)
      }
      switch (code) {
        case 'VALIDATION': {
          const fields = validationFields(error)
          set.status = 400
          const summary = fields.map((f) => `${f.field}: ${f.message}`).join('; ')
          return envelopeOf('VALIDATION_FAILED', `Invalid request. ${summary}`.slice(0, 500), { fields })
        }
        case 'PARSE':
          set.status = 400
          return envelopeOf('MALFORMED_REQUEST', 'The request body could not be parsed; send well-formed JSON or multipart/form-data.')
        case 'INVALID_COOKIE_SIGNATURE':
          set.status = 401
          return envelopeOf('UNAUTHENTICATED', 'Your login cookie is not valid. Please log in again.')
        case 'NOT_FOUND': {
          const allowed = methodsFor(path)
          if (allowed.length && !allowed.includes(request.method)) {
            set.status = 405
            set.headers['allow'] = allowed.join(', ')
            return envelopeOf('METHOD_NOT_ALLOWED', `${request.method} is not supported here. Allowed: ${allowed.join(', ')}.`)
          }
          set.status = 404
          return envelopeOf('NOT_FOUND', `No route for ${request.method} ${path}.`)
        }
      }
      // A full disk (the embedded database's files answer SQLSTATE 53100, a file write ENOSPC):
      // nothing was stored, and the same request succeeds once space is freed.
      if (isStorageFull(error)) {
        const full = storageFull()
        set.status = full.status
        log.warn('storage full', { requestId, code: (error as any)?.code, error: String((error as any)?.message ?? error) })
        return envelopeOf(full.errorName, full.message)
      }
      if (error instanceof postgres.PostgresError) {
        const mapped = fromPostgres(error)
        if (mapped) {
          set.status = mapped.status
          return mapped.body
        }
      }
      if ((error as any)?.name === 'RangeError' && /call stack/i.test(String((error as any)?.message))) {
        set.status = 400
        return envelopeOf('MALFORMED_REQUEST', 'The request body is nested too deeply.')
      }
      if ((error as any)?.name === 'RangeError' && /body|size|large/i.test(String((error as any)?.message))) {
        set.status = 413
        return envelopeOf('PAYLOAD_TOO_LARGE', 'The request body is too large.')
      }
      if (isConnectionError(error)) {
        set.status = 503
        log.error('dependency unavailable', { requestId, error: String((error as any)?.message ?? error) })
        return envelopeOf('UNAVAILABLE', 'The database is unavailable right now; please retry shortly.')
      }
      set.status = 500
      log.error('unhandled error', {
        requestId,
        code,
        error: String((error as any)?.message ?? error),
        stack: (error as any)?.stack,
      })
      return envelopeOf('INTERNAL', `Something went wrong on our side. Request id: ${requestId}.`)
    }))
    .onAfterResponse({ as: 'global' }, ({ request, set, route, path }) => {
      const m = meta.get(request)
      const status = typeof set.status === 'number' ? set.status : 200
      // The route template (never the raw path: label values must stay few).
      if (m) observeRequest(request.method, route || UNMATCHED_ROUTE, status, (performance.now() - m.start) / 1000)
      log.info('request', {
        requestId: m?.id,
        method: request.method,
        route: route || path,
        status: typeof set.status === 'number' ? set.status : 200,
        durationMs: m ? Math.round((performance.now() - m.start) * 100) / 100 : undefined,
      })
    })
}

/**
 * A route that matches every path for one method (the CORS plugin's `OPTIONS /*` preflight
 * answer) says nothing about which paths exist: counted, it would make every unknown path a 405.
 */
const isCatchAll = (r: { method: string; path: string }) => r.path === '/*' || r.path === '*'

interface RouteEntry {
  method: string
  path: string
  hooks?: { parse?: unknown }
}

const compile = (r: RouteEntry) =>
  new RegExp('^' + r.path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+').replace(/\*/g, '.*') + '/?$')

/** Builds `methodsFor` from the app's route table: `/a/:id` becomes `^/a/[^/]+$`. */
export function routeMethodIndex(routes: () => RouteEntry[]) {
  let compiled: { re: RegExp; method: string }[] | null = null
  return (path: string) => {
    compiled ??= routes().filter((r) => !isCatchAll(r)).map((r) => ({ method: r.method, re: compile(r) }))
    const methods = new Set(compiled.filter((r) => r.re.test(path)).map((r) => r.method))
    if (methods.has('GET')) methods.add('HEAD')
    return [...methods].filter((m) => m !== 'ALL')
  }
}

const parsesNothing = (parse: unknown) =>
  parse === 'none' || (Array.isArray(parse) && parse.some((p) => p === 'none' || (p as { fn?: unknown })?.fn === 'none'))

/** Builds `readsOwnBody` from the app's route table: the routes declared with `parse: 'none'`. */
export function ownBodyIndex(routes: () => RouteEntry[]) {
  let compiled: { re: RegExp; method: string }[] | null = null
  return (method: string, path: string) => {
    compiled ??= routes().filter((r) => parsesNothing(r.hooks?.parse)).map((r) => ({ method: r.method, re: compile(r) }))
    return compiled.some((r) => r.method === method && r.re.test(path))
  }
}
