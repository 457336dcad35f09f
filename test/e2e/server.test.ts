import { beforeAll, describe, expect, test } from 'bun:test'
import { CONTENT_SECURITY_POLICY } from '../../src/web/routes.ts'
import { testApp, type TestContext } from '../support/harness.ts'

// How the service serves the web front end (no browser needed).
describe('web front end: serving', () => {
  let app: TestContext['app']
  const get = (path: string, init: RequestInit = {}) => app.handle(new Request(`http://localhost${path}`, init))

  // The first testApp() of a process boots the database (seconds on the embedded one).
  beforeAll(async () => {
    app = (await testApp()).app
  }, 60_000)

  test.each(['/login', '/register', '/courses', '/courses/0190a0a0-0000-7000-8000-000000000001', '/courses/abc/manage', '/experiments/x', '/homeworks', '/messages', '/courses/'])(
    'client route %s gets index.html with no-cache and a strict CSP',
    async (path) => {
      const res = await get(path)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('no-cache')
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY)
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('x-request-id')).toBeTruthy()
      const html = await res.text()
      expect(html).toContain('<div id="root"></div>')
      // No inline script anywhere: every <script> has a src.
      for (const tag of html.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\bsrc="\/assets\/[^"]+"/)
      expect(html).not.toMatch(/<style\b|\sstyle=/)
    },
  )

  test('the CSP allows this origin only and no inline code', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'")
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
    expect(CONTENT_SECURITY_POLICY).toContain("object-src 'none'")
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'")
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe')
  })

  test('/ redirects to /courses', async () => {
    const res = await get('/')
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/courses')
  })

  test('unknown non-API paths get the SPA (its not-found page) with 404', async () => {
    const res = await get('/no/such/page')
    expect(res.status).toBe(404)
    expect(await res.text()).toContain('<div id="root"></div>')
  })

  test('hashed assets are immutable, gzip-encoded on request, and HEAD has no body', async () => {
    const html = await (await get('/login')).text()
    const urls = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!)
    expect(urls.some((u) => /^\/assets\/main-[a-z0-9]+\.js$/.test(u))).toBe(true)
    expect(urls.some((u) => /^\/assets\/main-[a-z0-9]+\.css$/.test(u))).toBe(true)
    for (const url of urls) {
      const plain = await get(url, { headers: { 'accept-encoding': 'identity' } })
      expect(plain.status).toBe(200)
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      expect(plain.headers.get('content-encoding')).toBeNull()
      const bytes = new Uint8Array(await plain.arrayBuffer())
      expect(Number(plain.headers.get('content-length'))).toBe(bytes.byteLength)

      const gz = await get(url, { headers: { 'accept-encoding': 'gzip, br' } })
      expect(gz.headers.get('content-encoding')).toBe('gzip')
      expect(gz.headers.get('vary')).toBe('accept-encoding')
      const compressed = new Uint8Array(await gz.arrayBuffer())
      // app.handle does not decode; the body is the gzip stream itself.
      expect(Bun.gunzipSync(compressed)).toEqual(bytes)
    }
    const js = urls.find((u) => u.endsWith('.js'))!
    expect((await get(js)).headers.get('content-type')).toContain('javascript')
    const head = await get(js, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect((await head.arrayBuffer()).byteLength).toBe(0)
  })

  test('an unknown asset is a plain 404, not the SPA', async () => {
    const res = await get('/assets/main-doesnotexist.js')
    expect(res.status).toBe(404)
    expect(await res.text()).not.toContain('<div id="root">')
  })

  test.each([
    ['GET', '/api/v1/no-such-route', 404, 40400],
    ['GET', '/core/api/v1/no-such-route', 404, 40400],
    ['GET', '/api', 404, 40400],
    ['GET', '/core/api/v1', 404, 40400],
    ['POST', '/login', 404, 40400],
    ['DELETE', '/courses', 404, 40400],
    ['GET', '/core/api/v1/auth/me', 401, 40100],
    ['DELETE', '/api/v1/auth/login', 405, 40500],
  ])('%s %s stays with the API (%i, code %i)', async (method, path, status, code) => {
    const res = await get(path, { method })
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toContain('application/json')
    expect(((await res.json()) as { code: number }).code).toBe(code)
  })

  test('health, the OpenAPI document and the docs UI are untouched; the web routes are not in the API docs', async () => {
    const health = await get('/status/health')
    expect(health.status).toBe(200)
    expect(((await health.json()) as { data: { status: string } }).data.status).toBe('UP')
    const doc = (await (await get('/v3/api-docs')).json()) as { paths: Record<string, unknown> }
    expect(Object.keys(doc.paths).some((p) => p === '/login' || p.startsWith('/assets'))).toBe(false)
    const ui = await get('/docs-ui.html')
    expect(await ui.text()).toContain('swagger-ui')
  })
})
