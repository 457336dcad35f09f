import { openapi } from '@elysiajs/openapi'
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

export function docs() {
  return openapi({
    path: '/docs-ui.html',
    specPath: '/v3/api-docs',
    provider: null,
    exclude: { paths: [/^\/core\//, /^\/docs-ui/, '/v3/api-docs'], staticFile: false },
    mapJsonSchema: { zod: zodToOpenApi },
    documentation: {
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
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          cookieAuth: { type: 'apiKey', in: 'cookie', name: 'cls_session' },
        },
        schemas: {
          ErrorEnvelope: {
            type: 'object',
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
    },
  })
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
