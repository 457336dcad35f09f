import { afterAll, describe, expect, test } from 'bun:test'
import { testApp } from '../support/harness.ts'
import { capturingLog, rawRequest } from './support.ts'

/** Issue 27, finding 2: a malformed Host header is the client's mistake (400), never a 500. */
describe('a malformed Host header (issue 27.2)', async () => {
  const { lines, log } = capturingLog()
  const { app } = await testApp({ deps: { log } })
  app.listen({ port: 0, hostname: '127.0.0.1' })
  const port = app.server!.port!
  afterAll(() => app.stop(true))

  const hosts = ['a@b', 'a b', '', 'x:99999', '[::1', 'a/b', '%']
  const paths = [
    ['GET', '/status/health'],
    ['HEAD', '/status/health'],
    ['GET', '/api/v1/auth/me'],
    ['GET', '/api/v1/me/calendar'],
    ['GET', '/login'],
    ['GET', '/assets/nothing.js'],
    ['GET', '/nowhere'],
    ['GET', '/calendar/abc.ics'],
    ['GET', '/api/v1/courses/01a20000-0000-7000-8000-000000000000/resources/01a20000-0000-7000-8000-000000000000/download?inline=1'],
    ['POST', '/api/v1/email/unsubscribe?token=x'],
  ] as const

  test.each(hosts)('Host: %p → 400 in the envelope on every route, nothing logged as an error', async (host) => {
    for (const [method, path] of paths) {
      const body = method === 'POST' ? 'List-Unsubscribe=One-Click' : ''
      const extra = method === 'POST' ? `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n` : ''
      const r = await rawRequest(port, `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`, body)
      expect([method, path, r.status]).toEqual([method, path, 400])
      expect(r.headers['x-request-id']).toBeTruthy()
      if (method !== 'HEAD') expect(JSON.parse(r.body)).toEqual({ code: 40000, message: 'The Host header is not a valid host name.', data: null })
    }
    expect(lines.filter((l) => l.level === 'error')).toEqual([])
    expect(lines.some((l) => 'stack' in l)).toBe(false)
  })

  test('the sentence is translated like every other', async () => {
    const r = await rawRequest(port, `GET /status/health HTTP/1.1\r\nHost: a@b\r\nAccept-Language: zh-CN\r\nConnection: close\r\n\r\n`)
    expect(r.status).toBe(400)
    expect(JSON.parse(r.body).message).not.toBe('The Host header is not a valid host name.')
  })

  test('a good Host still works', async () => {
    const r = await rawRequest(port, `GET /status/health HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`)
    expect(r.status).toBe(200)
  })
})

test('the metrics port answers a malformed Host with 400 too (issue 27.2)', async () => {
  const { serveMetrics } = await import('../../src/metrics.ts')
  const { testDatabase } = await import('../support/harness.ts')
  const { lines, log } = capturingLog()
  const server = serveMetrics({ port: 0, hostname: '127.0.0.1', sql: (await testDatabase()).sql, log })
  try {
    const r = await rawRequest(server.port!, 'GET /metrics HTTP/1.1\r\nHost: a@b\r\nConnection: close\r\n\r\n')
    expect(r.status).toBe(400)
    expect(lines).toEqual([])
  } finally {
    server.stop(true)
  }
})
