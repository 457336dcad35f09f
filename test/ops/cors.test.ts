import { beforeAll, describe, expect, test } from 'bun:test'
import { signUp, testApp, type TestContext } from '../support/harness.ts'

const FRONT = 'http://localhost:5173'
const OTHER = 'https://evil.example'
const corsHeaders = (h: Headers) => [...h.keys()].filter((k) => k.startsWith('access-control-')).sort()

let ctx: TestContext
let plain: TestContext
beforeAll(async () => {
  ctx = await testApp({ config: { corsOrigins: [FRONT, 'https://app.example.com'] } })
  plain = await testApp()
}, 60_000)

const preflight = (app: TestContext, path: string, origin: string, method = 'POST', headers = 'content-type, authorization') =>
  app.app.handle(
    new Request(`http://localhost${path}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    }),
  )

describe('CORS_ORIGINS', () => {
  test.each(['/api/v1/courses', '/api/v1/courses/01a20000-0000-7000-8000-000000000000/resources', '/core/api/v1/auth/login'])(
    'a preflight from an allowed origin → 204 with origin, credentials, methods and headers (%s)',
    async (path) => {
      const res = await preflight(ctx, path, FRONT)
      expect(res.status).toBe(204)
      expect(res.headers.get('access-control-allow-origin')).toBe(FRONT)
      expect(res.headers.get('access-control-allow-credentials')).toBe('true')
      expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, PATCH, DELETE')
      expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization, X-Request-Id, Range')
      expect(res.headers.get('vary')).toContain('Origin')
    },
  )

  test('an actual request from an allowed origin carries the CORS headers, errors included', async () => {
    const t = await signUp(ctx.api, 'TEACHER')
    const ok = await ctx.api.get('/auth/me', { token: t.token, headers: { origin: FRONT } })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('access-control-allow-origin')).toBe(FRONT)
    expect(ok.headers.get('access-control-allow-credentials')).toBe('true')
    expect(ok.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
    const refused = await ctx.api.get('/auth/me', { headers: { origin: 'https://app.example.com' } })
    expect([refused.status, refused.code]).toEqual([401, 40100])
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
  })

  test('another origin gets no CORS headers, preflight or not', async () => {
    const pre = await preflight(ctx, '/api/v1/courses', OTHER)
    expect(corsHeaders(pre.headers)).toEqual([])
    const get = await ctx.api.get('/auth/me', { headers: { origin: OTHER } })
    expect(get.status).toBe(401)
    expect(corsHeaders(get.headers)).toEqual([])
    // A look-alike of an allowed origin (other scheme, other port) is another origin.
    for (const o of ['https://localhost:5173', 'http://localhost:5174', 'http://app.example.com']) {
      expect(corsHeaders((await preflight(ctx, '/api/v1/courses', o)).headers)).toEqual([])
    }
    // No Origin at all (curl, server to server): nothing either.
    expect(corsHeaders((await ctx.api.get('/auth/me')).headers)).toEqual([])
  })

  test('the 405 and 415 plumbing still holds for actual requests', async () => {
    const put = await ctx.api.call('PUT', '/auth/login', { json: {}, headers: { origin: FRONT } })
    expect([put.status, put.code]).toEqual([405, 40500])
    const form = await ctx.api.post('/auth/login', { raw: 'a=b', headers: { origin: FRONT, 'content-type': 'application/x-www-form-urlencoded' } })
    expect([form.status, form.code]).toEqual([415, 41500])
  })

  test('unset: no CORS at all (a preflight is refused as before, without CORS headers)', async () => {
    const res = await preflight(plain, '/api/v1/courses', FRONT)
    expect(res.status).toBe(405)
    expect(corsHeaders(res.headers)).toEqual([])
  })
})

test('CORS_ORIGINS takes exact origins only', async () => {
  const { loadConfig, ConfigError } = await import('../../src/config.ts')
  expect(loadConfig({ CORS_ORIGINS: ' http://localhost:5173 , https://app.example.com ' }).corsOrigins).toEqual(['http://localhost:5173', 'https://app.example.com'])
  expect(loadConfig({}).corsOrigins).toEqual([])
  for (const bad of ['*', 'localhost:5173', 'https://app.example.com/', 'https://app.example.com/path']) {
    expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(ConfigError)
  }
})
