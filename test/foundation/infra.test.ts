import SwaggerParser from '@apidevtools/swagger-parser'
import { describe, expect, test } from 'bun:test'
import { ERROR_CATALOGUE } from '../../src/http/errors.ts'
import { client, testApp } from '../support/harness.ts'

describe('infrastructure endpoints', async () => {
  const { app } = await testApp()
  const root = client(app, '')

  test('health: UP with the database', async () => {
    const r = await root.get('/status/health')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ code: 0, message: 'OK', data: { status: 'UP', database: 'UP' } })
  })

  test('health: 503 DOWN when the database cannot be reached', async () => {
    const broken = (() => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))) as any
    const down = await testApp({ deps: { sql: broken } })
    const r = await client(down.app, '').get('/status/health')
    expect(r.status).toBe(503)
    expect(r.body).toEqual({ code: 50300, message: expect.any(String), data: { status: 'DOWN', database: 'DOWN' } })
  })

  test('OpenAPI document: valid, documents routes, schemas, both auth schemes and the error catalogue', async () => {
    const r = await root.get('/v3/api-docs')
    expect(r.status).toBe(200)
    const doc = r.body
    await SwaggerParser.validate(structuredClone(doc))
    expect(doc.openapi).toStartWith('3.')
    expect(Object.keys(doc.paths)).toContain('/api/v1/auth/login')
    expect(Object.keys(doc.paths).some((p: string) => p.startsWith('/core/'))).toBe(false)
    const login = doc.paths['/api/v1/auth/login'].post
    expect(login.requestBody.content['application/json'].schema.properties).toHaveProperty('identifier')
    expect(login.responses['200']).toBeDefined()
    expect(doc.paths['/api/v1/auth/me'].get.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }])
    expect(doc.components.securitySchemes).toMatchObject({ bearerAuth: { type: 'http', scheme: 'bearer' }, cookieAuth: { type: 'apiKey', in: 'cookie' } })
    for (const e of Object.values(ERROR_CATALOGUE)) expect(doc.info.description).toContain(String(e.code))
    // Every operation says what it returns.
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        expect({ path, method, hasResponses: Object.keys(op.responses ?? {}).length > 0 }).toEqual({ path, method, hasResponses: true })
      }
    }
  })

  test('docs UI is served with local assets only (works offline)', async () => {
    const html = await app.handle(new Request('http://localhost/docs-ui.html'))
    expect(html.status).toBe(200)
    expect(html.headers.get('content-type')).toContain('text/html')
    const text = await html.text()
    const srcs = [...text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(srcs.length).toBeGreaterThanOrEqual(3)
    for (const src of srcs) {
      expect(src).toStartWith('/')
      const asset = await app.handle(new Request(`http://localhost${src}`))
      expect(asset.status).toBe(200)
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(10)
    }
    expect(text).not.toMatch(/https?:\/\//)
  })
})

test('docs/api.md lists every error code of the catalogue', async () => {
  const readme = await Bun.file(`${import.meta.dir}/../../docs/api.md`).text()
  for (const e of Object.values(ERROR_CATALOGUE)) expect(readme).toContain(`| ${e.code} | ${e.status} |`)
})

test('the OpenAPI document lists the error responses each operation can give', async () => {
  const { app } = await testApp()
  const doc: any = await (await app.handle(new Request('http://localhost/v3/api-docs'))).json()
  const detail = doc.paths['/api/v1/courses/{courseId}'].get
  expect(Object.keys(detail.responses).sort()).toEqual(['200', '400', '401', '403', '404', '500'])
  expect(detail.responses['403'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorEnvelope')
  expect(detail.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }])
  expect(Object.keys(doc.paths['/api/v1/auth/login'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '413', '415', '429']))
  expect(doc.paths['/api/v1/auth/me'].get.responses['403']).toBeUndefined()
  expect(doc.paths['/status/health'].get.responses['401']).toBeUndefined()
})

test('.ci/run runs every twoInstances() file through the pooler (issue 55)', async () => {
  const ci = await Bun.file(`${import.meta.dir}/../../.ci/run`).text()
  const listed = /POOLER_FILES=\(([^)]*)\)/.exec(ci)?.[1]?.split(/\s+/).filter(Boolean) ?? []
  const using: string[] = []
  for await (const path of new Bun.Glob('test/**/*.test.ts').scan({ cwd: `${import.meta.dir}/../..` })) {
    const text = await Bun.file(`${import.meta.dir}/../../${path}`).text()
    // test/scaling/pooler.test.ts goes through its own PgBouncer whatever the pass.
    if (/import \{[^}]*\btwoInstances\b[^}]*\} from '\.\.\/support\/processes\.ts'/.test(text) && path !== 'test/scaling/pooler.test.ts') using.push(path)
  }
  expect(using.length).toBeGreaterThan(0)
  expect([...listed].sort()).toEqual(using.sort())
})
