import { toOpenAPISchema } from '@elysiajs/openapi'
import { Elysia } from 'elysia'
import { dirname, join } from 'node:path'
import { z } from 'zod'
import { ERROR_CATALOGUE } from '../http/errors.ts'

const catalogueTable = [
  '| code | HTTP | meaning |',
  '|---|---|---|',
  ...Object.values(ERROR_CATALOGUE).map((e) => `| ${e.code} | ${e.status} | ${e.description} |`),
].join('\n')

const DESCRIPTION = `
Course-learning backend. Every response is an envelope \`{ code, message, data }\`:
\`code\` 0 on success, otherwise one of the catalogue codes below.

Authentication: log in with \`POST /api/v1/auth/login\`; the response sets an HttpOnly cookie
(\`cls_session\`) and returns the same login state as \`accessToken\` for
\`Authorization: Bearer <token>\`. Every route is also served under \`/core/api/v1\`.

Ids are UUIDv7 strings; timestamps are ISO-8601 UTC with milliseconds. Growing lists take
\`page\` (1-based) and \`pageSize\` (default 50, max 200).

## Error catalogue

${catalogueTable}
`

type Json = { [k: string]: unknown }

/** Replaces local `#/$defs/X` references with the definitions themselves (our schemas have no cycles). */
function inlineDefs(node: unknown, defs: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineDefs(n, defs))
  if (!node || typeof node !== 'object') return node
  const obj = node as Json
  const ref = typeof obj.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(obj.$ref) : null
  if (ref && defs[ref[1]!]) {
    const { $ref: _ignored, ...rest } = obj
    return { ...(inlineDefs(defs[ref[1]!], defs) as Json), ...rest }
  }
  const out: Json = {}
  for (const [k, v] of Object.entries(obj)) {
    if (k === '$defs' || k === '$schema') continue
    out[k] = inlineDefs(v, defs)
  }
  return out
}

/** zod → JSON Schema for OpenAPI: request shapes as accepted (defaults optional), self-contained. */
export function zodToOpenApi(schema: z.ZodType) {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Json
  return inlineDefs(json, (json.$defs as Record<string, unknown>) ?? {})
}

const DOCUMENTATION = {
  openapi: '3.1.0',
  info: { title: 'Course Learning Service API', version: '1.0.0', description: DESCRIPTION },
  tags: [
    { name: 'Auth', description: 'Accounts, login and logout' },
    { name: 'Infrastructure', description: 'Health' },
    { name: 'Courses', description: 'Courses, invite codes, members' },
    { name: 'Announcements', description: 'Course announcements' },
    { name: 'Workspace', description: 'Workspace module configuration' },
    { name: 'Learning', description: 'Units, knowledge points, tasks, answer sheets, grading, ordering' },
    { name: 'Homework', description: 'Homework centre and reminder schedules' },
    { name: 'Notifications', description: 'In-app inbox' },
    { name: 'Experiments', description: 'Experiments, file submissions and grading' },
    { name: 'Resources', description: 'Course resources and file downloads' },
    { name: 'Grades', description: 'Per-student grade overview and CSV export' },
    { name: 'Analytics', description: 'Charts for teachers: score distribution, hand-in timeline, per-question share correct, totals (issue 54)' },
  ],
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      cookieAuth: { type: 'apiKey', in: 'cookie', name: 'cls_session' },
    },
    schemas: {
      ErrorEnvelope: {
        type: 'object',
        description: 'Every error: a catalogue code, a sentence a person can act on, and null or details.',
        required: ['code', 'message', 'data'],
        properties: {
          code: { type: 'integer', enum: Object.values(ERROR_CATALOGUE).map((e) => e.code) },
          message: { type: 'string' },
          data: {
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                properties: {
                  fields: {
                    type: 'array',
                    items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
                  },
                },
              },
            ],
          },
        },
      },
    },
  },
}

const EXCLUDE = { paths: [/^\/core\//, /^\/docs-ui/, '/v3/api-docs'], staticFile: false }

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
})

/** Routes any logged-in user may call: they refuse nobody with 403. */
const NEVER_FORBIDDEN = new Set(['/api/v1/auth/me', '/api/v1/auth/logout', '/api/v1/notifications', '/api/v1/notifications/read-all', '/api/v1/notifications/{notificationId}/read'])

/**
 * Adds the catalogue's error responses each operation can give, derived from what it takes:
 * credentials (401, 403), input (400, 413, 415), path ids (404). Elysia's generator keeps
 * only the declared success responses, so this is done once here for every route.
 */
function withErrorResponses(paths: Record<string, Record<string, Json>>) {
  for (const [path, ops] of Object.entries(paths)) {
    for (const op of Object.values(ops)) {
      const responses = (op.responses ??= {}) as Json
      const add = (status: number, description: string) => {
        responses[String(status)] ??= errorResponse(description)
      }
      const security = Array.isArray(op.security) ? op.security : []
      if (security.length) {
        // Macros can contribute the same requirement twice.
        op.security = [...new Map(security.map((s) => [JSON.stringify(s), s])).values()]
      }
      const hasInput = Boolean(op.requestBody) || (Array.isArray(op.parameters) && op.parameters.length > 0)
      if (hasInput) add(400, `${ERROR_CATALOGUE.MALFORMED_REQUEST.description} ${ERROR_CATALOGUE.VALIDATION_FAILED.description}`)
      if (security.length) add(401, ERROR_CATALOGUE.UNAUTHENTICATED.description)
      if (security.length && !NEVER_FORBIDDEN.has(path)) add(403, ERROR_CATALOGUE.FORBIDDEN.description)
      if (path.includes('{')) add(404, ERROR_CATALOGUE.NOT_FOUND.description)
      if (op.requestBody) {
        add(413, ERROR_CATALOGUE.PAYLOAD_TOO_LARGE.description)
        add(415, ERROR_CATALOGUE.UNSUPPORTED_MEDIA_TYPE.description)
      }
      if (path === '/api/v1/auth/login') add(429, ERROR_CATALOGUE.TOO_MANY_REQUESTS.description)
      // An upload is stored as it arrives: file storage unreachable (50301) or full (50701).
      if ((op.requestBody as { content?: Record<string, unknown> } | undefined)?.content?.['multipart/form-data']) {
        add(503, ERROR_CATALOGUE.STORAGE_UNAVAILABLE.description)
        add(507, ERROR_CATALOGUE.STORAGE_FULL.description)
      }
      add(500, ERROR_CATALOGUE.INTERNAL.description)
    }
  }
  return paths
}

type AnyApp = Parameters<typeof toOpenAPISchema>[0]

/**
 * The app as the generator sees it, minus the plumbing's global parse function (JSON counted as
 * it is read): given any parse function, the generator documents a body with no media type.
 * Without it, a JSON route is documented as application/json, as it is.
 */
function withoutParseFunctions(app: AnyApp): AnyApp {
  const strip = (parse: unknown) => {
    if (!Array.isArray(parse)) return parse
    const kept = parse.filter((p) => typeof (p as { fn?: unknown })?.fn !== 'function')
    return kept.length ? kept : undefined
  }
  type Route = { hooks?: { parse?: unknown } }
  const source = app as unknown as { getGlobalRoutes(): Route[] }
  const view = Object.create(app) as { getGlobalRoutes(): Route[] }
  view.getGlobalRoutes = () => source.getGlobalRoutes().map((r) => ({ ...r, hooks: { ...r.hooks, parse: strip(r.hooks?.parse) } }))
  return view as unknown as AnyApp
}

/** Builds the OpenAPI 3.1 document of an app (every route but the excluded ones). */
export function openApiDocument(app: AnyApp) {
  const { paths, components } = toOpenAPISchema(withoutParseFunctions(app), EXCLUDE, undefined, { zod: zodToOpenApi }, '3.1.0') as {
    paths: Record<string, Record<string, Json>>
    components: { schemas?: Record<string, unknown> }
  }
  return {
    ...DOCUMENTATION,
    paths: withErrorResponses(structuredClone(paths)),
    components: { ...DOCUMENTATION.components, schemas: { ...components.schemas, ...DOCUMENTATION.components.schemas } },
  }
}

/** `GET /v3/api-docs`: the document of the app it is mounted in, rebuilt when routes change. */
export function docs(getApp: () => AnyApp) {
  let cache: { routes: number; doc: ReturnType<typeof openApiDocument> } | undefined
  return new Elysia({ name: 'api-docs' }).get(
    '/v3/api-docs',
    () => {
      const app = getApp()
      if (cache?.routes !== app.routes.length) cache = { routes: app.routes.length, doc: openApiDocument(app) }
      return cache.doc
    },
    { detail: { hide: true } },
  )
}

const SWAGGER_DIR = dirname(Bun.resolveSync('swagger-ui-dist/package.json', import.meta.dir))

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Course Learning Service API</title>
  <link rel="stylesheet" href="/docs-ui/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs-ui/swagger-ui-bundle.js"></script>
  <script src="/docs-ui/init.js"></script>
</body>
</html>`

const INIT_JS = `window.ui = SwaggerUIBundle({ url: '/v3/api-docs', dom_id: '#swagger-ui', deepLinking: true, withCredentials: true, persistAuthorization: true });`

/** The interactive UI, served from the swagger-ui-dist package: no CDN, works offline. */
export function docsUi() {
  const assets: Record<string, string> = { 'swagger-ui.css': 'text/css', 'swagger-ui-bundle.js': 'text/javascript' }
  return new Elysia({ name: 'docs-ui' })
    .get('/docs-ui.html', () => new Response(DOCS_HTML, { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
      detail: { hide: true },
    })
    .get('/docs-ui/init.js', () => new Response(INIT_JS, { headers: { 'content-type': 'text/javascript' } }), {
      detail: { hide: true },
    })
    .get(
      '/docs-ui/:asset',
      ({ params, set }) => {
        const type = assets[params.asset]
        if (!type) {
          set.status = 404
          return { code: 40400, message: 'No such documentation asset.', data: null }
        }
        return new Response(Bun.file(join(SWAGGER_DIR, params.asset)), {
          headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
        })
      },
      { detail: { hide: true } },
    )
}
