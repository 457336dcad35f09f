import { cors } from '@elysiajs/cors'
import { Elysia } from 'elysia'

/** What a front end on an allowed origin may send (preflight answers). */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']
export const CORS_HEADERS = ['Content-Type', 'Authorization', 'X-Request-Id', 'Range']
/** Response headers a cross-origin script may read. */
export const CORS_EXPOSED = ['X-Request-Id', 'Content-Disposition', 'Content-Range', 'Retry-After', 'Allow']

const stripCors = (headers: Record<string, unknown>) => {
  for (const name of Object.keys(headers)) if (name.startsWith('access-control-')) delete headers[name]
}

/**
 * CORS_ORIGINS: exact origins (scheme, host, port) that may call the API from a browser with
 * credentials, through @elysiajs/cors. Preflights from them answer 204 with the allowed
 * methods and headers. Requests from any other origin (or none) get no CORS headers at all:
 * the plugin adds some to every response, so they are removed again for those, and another
 * origin's OPTIONS is answered here (204, nothing allowed) before the plugin sees it.
 * Empty list → no plugin, no CORS.
 */
export function corsPolicy(origins: string[]) {
  const app = new Elysia({ name: 'cors-policy' })
  if (!origins.length) return app
  const allowed = new Set(origins)
  const isAllowed = (request: Request) => allowed.has(request.headers.get('origin') ?? '')
  return app
    .onRequest(({ request, set }) => {
      if (isAllowed(request)) return
      stripCors(set.headers)
      // The plugin answers every OPTIONS with CORS headers; another origin's gets none.
      if (request.method === 'OPTIONS') {
        set.headers.vary = 'Origin'
        return new Response(null, { status: 204 })
      }
    })
    .use(
      cors({
        origin: origins,
        credentials: true,
        methods: CORS_METHODS,
        allowedHeaders: CORS_HEADERS,
        exposeHeaders: CORS_EXPOSED,
        maxAge: 600,
        preflight: true,
      }),
    )
    .onRequest(({ request, set }) => {
      if (!isAllowed(request)) stripCors(set.headers)
    })
}
