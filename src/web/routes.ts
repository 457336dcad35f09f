import { Elysia } from 'elysia'
import { tryRequestUrl } from '../http/request-url.ts'
import type { Logger } from '../lib/log.ts'
import { ASSET_PREFIX, webBundle, type WebAsset } from './assets.ts'

/** Paths that belong to the API, the docs and the health check: the web front end never answers them. */
const RESERVED = /^\/(?:api|core|v3|status|calendar|lti)(?:\/|$)|^\/docs-ui/

/** The client routes (SPA pages); anything else non-reserved gets the SPA's not-found page with a 404. */
const CLIENT_ROUTES = [
  /^\/login$/,
  /^\/register$/,
  /^\/verify-email$/,
  /^\/forgot-password$/,
  /^\/reset-password$/,
  /^\/unsubscribe$/,
  /^\/courses$/,
  /^\/courses\/[^/]+$/,
  /^\/courses\/[^/]+\/manage$/,
  /^\/experiments\/[^/]+$/,
  /^\/homeworks$/,
  /^\/messages$/,
  /^\/settings$/,
]

/** Scripts, styles and connections from this origin only; no inline code, no framing. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "media-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const IMMUTABLE = 'public, max-age=31536000, immutable'

function assetResponse(a: WebAsset, request: Request) {
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
  const body = gzip ? a.gzip : a.body
  const headers: Record<string, string> = {
    'content-type': a.type,
    'cache-control': IMMUTABLE,
    'content-length': String(body.byteLength),
    vary: 'accept-encoding',
  }
  if (gzip) headers['content-encoding'] = 'gzip'
  return new Response(request.method === 'HEAD' ? null : body, { headers })
}

function htmlResponse(html: string, status: number, request: Request) {
  return new Response(request.method === 'HEAD' ? null : html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-frame-options': 'DENY',
    },
  })
}

const plain = (status: number, text: string) =>
  new Response(text, { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } })

/** Answers a GET/HEAD for the web front end, or returns undefined to let the API routes handle it. */
export async function serveWeb(request: Request, log?: Logger, prebuiltDir?: string): Promise<Response | undefined> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined
  // Unparsable (malformed Host): left to the plumbing's 400.
  const path = tryRequestUrl(request)?.pathname
  if (path === undefined) return undefined
  if (RESERVED.test(path)) return undefined
  if (path === '/') return new Response(null, { status: 302, headers: { location: '/courses', 'cache-control': 'no-cache' } })

  let bundle
  try {
    bundle = await webBundle(prebuiltDir)
  } catch (e) {
    log?.error('web build failed', { error: String((e as Error)?.message ?? e) })
    return plain(503, 'The web front end could not be built; see the service log.')
  }

  if (path.startsWith(ASSET_PREFIX)) {
    const a = bundle.assets.get(path.slice(ASSET_PREFIX.length))
    return a ? assetResponse(a, request) : plain(404, 'No such asset.')
  }
  const clean = path.length > 1 ? path.replace(/\/+$/, '') : path
  const known = CLIENT_ROUTES.some((r) => r.test(clean))
  return htmlResponse(bundle.indexHtml, known ? 200 : 404, request)
}

/**
 * The single-page app at the root: hashed assets under /assets/ (cached for a year) and
 * index.html (no-cache, strict CSP) for the client routes. It answers in `onRequest`, before
 * routing, and only for GET/HEAD outside the API's prefixes: a catch-all route would make the
 * route table claim every path and turn the API's 404s for unknown paths into 405s.
 */
export function webRoutes(deps: { log: Logger; config: { webDistDir?: string | undefined } }) {
  return new Elysia({ name: 'web' }).onRequest(({ request }) => serveWeb(request, deps.log, deps.config.webDistDir))
}
