import { describe, expect, test } from 'bun:test'
import { testApp } from '../support/harness.ts'

/** Issue 27, finding 1: the CORS plugin's `OPTIONS /*` preflight route is not a method of every path. */
describe('unknown routes with CORS_ORIGINS set (issue 27.1)', async () => {
  const FRONT = 'http://localhost:5173'
  const { api } = await testApp({ config: { corsOrigins: [FRONT] } })

  test.each([
    ['GET', '/nonexistent'],
    ['POST', '/nonexistent'],
    ['DELETE', '/courses/01a20000-0000-7000-8000-000000000000/nothing-here'],
    ['GET', '//core/api/v1/nope'],
  ])('%s %s → 404, as without CORS', async (method, path) => {
    for (const headers of [{}, { origin: FRONT }] as Record<string, string>[]) {
      const r = await api.call(method, path, { headers, json: method === 'GET' ? undefined : {} })
      expect([r.status, r.code]).toEqual([404, 40400])
      expect(r.headers.get('allow')).toBeNull()
    }
  })

  test('a known path with another method is still 405, and Allow names its own methods only', async () => {
    const r = await api.call('PUT', '/auth/login', { json: {}, headers: { origin: FRONT } })
    expect([r.status, r.code]).toEqual([405, 40500])
    expect(r.headers.get('allow')).toBe('POST')
  })

  test('preflights still answer 204', async () => {
    const r = await api.call('OPTIONS', '/nonexistent', { headers: { origin: FRONT, 'access-control-request-method': 'GET' } })
    expect(r.status).toBe(204)
  })
})
