import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { createLogger } from '../../src/lib/log.ts'
import { isConnectionError, jsonText, nestsDeeperThan, onUnhandledRejection, plumbing } from '../../src/http/plumbing.ts'
import { client, testApp, testDatabase } from '../support/harness.ts'
import { waitFor } from '../support/wait.ts'

describe('HTTP conventions', async () => {
  const { api, app } = await testApp()

  test('unknown route → 404 envelope', async () => {
    const r = await api.get('/nope/nothing')
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ code: 40400, message: expect.stringContaining('/api/v1/nope/nothing'), data: null })
  })

  test('known route, wrong method → 405 with Allow', async () => {
    const r = await api.del('/auth/login')
    expect(r.status).toBe(405)
    expect(r.code).toBe(40500)
    expect(r.headers.get('allow')).toContain('POST')
  })

  test('malformed JSON → 400 40000, nothing written', async () => {
    const r = await api.post('/auth/register', { raw: '{"username": "abc",', headers: { 'content-type': 'application/json' } })
    expect(r.status).toBe(400)
    expect(r.code).toBe(40000)
    expect(r.data).toBeNull()
  })

  test('validation failure → 400 40001 with a field list', async () => {
    const r = await api.post('/auth/register', { json: { username: 'a', email: 'not-an-email', password: 123 } })
    expect(r.status).toBe(400)
    expect(r.code).toBe(40001)
    const fields = r.data.fields.map((f: { field: string }) => f.field).sort()
    expect(fields).toEqual(['email', 'password', 'username'])
    for (const f of r.data.fields) expect(typeof f.message).toBe('string')
  })

  test.each([
    ['unknown enum value', { role: 'ADMIN' }, 'role'],
    ['wrong type', { displayName: 42 }, 'displayName'],
    ['200 KB string', { displayName: 'x'.repeat(200_000) }, 'displayName'],
  ])('%s → 400 naming the field', async (_label, extra, field) => {
    const r = await api.post('/auth/register', {
      json: { username: 'valid_name', email: 'valid@example.test', password: 'long enough password', ...extra },
    })
    expect(r.status).toBe(400)
    expect(r.code).toBe(40001)
    expect(r.data.fields.map((f: { field: string }) => f.field)).toContain(field)
  })

  test('deeply nested JSON is refused before validation → 400 40000, promptly', async () => {
    const nested = (depth: number) => '{"identifier":' + '['.repeat(depth) + ']'.repeat(depth) + ',"password":"x"}'
    for (const depth of [40, 200_000]) {
      const r = await api.post('/auth/login', { raw: nested(depth), headers: { 'content-type': 'application/json' } })
      expect([r.status, r.code]).toEqual([400, 40000])
      expect(r.message).toContain('32 levels')
    }
    // Ordinary nesting is untouched: the same request shallowly nested fails validation instead.
    const shallow = await api.post('/auth/login', { raw: nested(3), headers: { 'content-type': 'application/json' } })
    expect([shallow.status, shallow.code]).toEqual([400, 40001])
  })

  test('nesting depth counts containers: exactly the limit passes, one more is refused', () => {
    const levels = (n: number): unknown => (n === 0 ? 'leaf' : n % 2 ? { k: levels(n - 1) } : [levels(n - 1)])
    expect(nestsDeeperThan(levels(32), 32)).toBe(false)
    expect(nestsDeeperThan(levels(33), 32)).toBe(true)
    expect(nestsDeeperThan({ a: 1, b: [1, 2, { c: null }] }, 2)).toBe(true)
    expect(nestsDeeperThan({ a: 1, b: [1, 2, 3] }, 2)).toBe(false)
  })

  test('unsupported content type → 415', async () => {
    const r = await api.post('/auth/login', { raw: 'identifier=x', headers: { 'content-type': 'text/plain' } })
    expect(r.status).toBe(415)
    expect(r.code).toBe(41500)
  })

  test('HTML-form encodings on JSON routes → 415, nothing written (no cross-site form can drive the API)', async () => {
    const username = `form_${Date.now().toString(36)}`
    const fields = { username, email: `${username}@example.test`, password: 'long enough password', role: 'STUDENT' }
    const urlencoded = await api.post('/auth/register', {
      raw: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect([urlencoded.status, urlencoded.code]).toEqual([415, 41500])
    const form = new FormData()
    for (const [k, v] of Object.entries(fields)) form.append(k, v)
    const multipart = await api.post('/auth/register', { form })
    expect([multipart.status, multipart.code]).toEqual([415, 41500])
    const login = await api.post('/auth/login', { json: { identifier: username, password: fields.password } })
    expect(login.status).toBe(401)
  })

  test('JSON body over the limit → 413 envelope', async () => {
    const raw = JSON.stringify({ identifier: 'x'.repeat(1_100_000), password: 'y' })
    // Declared length: refused before the body is read.
    const declared = await api.post('/auth/login', { raw, headers: { 'content-type': 'application/json', 'content-length': String(raw.length) } })
    expect(declared.status).toBe(413)
    expect(declared.code).toBe(41300)
    // Without a declared length (chunked) it is measured once parsed: 413 as well (issue 17).
    const chunked = await api.post('/auth/login', { raw, headers: { 'content-type': 'application/json' } })
    expect([chunked.status, chunked.code]).toEqual([413, 41300])
  })

  test('every response carries a request id; a sane incoming one is kept', async () => {
    const r1 = await api.get('/nope')
    expect(r1.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const r2 = await api.get('/nope', { headers: { 'x-request-id': 'trace-123' } })
    expect(r2.headers.get('x-request-id')).toBe('trace-123')
    const r3 = await api.get('/nope', { headers: { 'x-request-id': 'bad id with spaces <script>' } })
    expect(r3.headers.get('x-request-id')).not.toContain('<')
    expect(r1.headers.get('x-content-type-options')).toBe('nosniff')
  })

  test('a JSON answer leaves as Response.json would write it: same bytes, same content type (issue 55: written with JSON.stringify)', async () => {
    const value = { code: 0, message: 'OK', data: { items: [{ id: 'a', title: '作业 "1"\n', at: new Date(0), n: 1.5, none: null, skipped: undefined }], list: [1, 'two'] } }
    const small = new Elysia()
      .use(plumbing({ log: createLogger('silent'), methodsFor: () => [], maxUploadBytes: 1024 }))
      .get('/object', () => value)
      .get('/array', () => [value, null])
      .get('/typed', ({ set }) => {
        set.headers['content-type'] = 'application/vnd.example+json'
        return { a: 1 }
      })
      .get('/created', ({ set }) => {
        set.status = 201
        return { b: 2 }
      })
      .get('/text', () => 'plain words')
    for (const [path, expected, status] of [
      ['/object', Response.json(value), 200],
      ['/array', Response.json([value, null]), 200],
      ['/typed', Response.json({ a: 1 }, { headers: { 'content-type': 'application/vnd.example+json' } }), 200],
      ['/created', Response.json({ b: 2 }), 201],
    ] as const) {
      const r = await small.handle(new Request(`http://localhost${path}`))
      expect([path, r.status]).toEqual([path, status])
      expect(r.headers.get('content-type')).toBe(expected.headers.get('content-type'))
      expect(await r.text()).toBe(await expected.text())
    }
    const text = await small.handle(new Request('http://localhost/text'))
    expect(await text.text()).toBe('plain words')
    // What is handed to JSON.stringify and what is left to Elysia (strings, Responses, files, class instances).
    expect(jsonText({ a: [1] })).toBe('{"a":[1]}')
    expect(jsonText([1, 2])).toBe('[1,2]')
    expect(jsonText(Object.assign(Object.create(null), { x: 1 }))).toBe('{"x":1}')
    for (const other of ['{"a":1}', null, undefined, 3, new Response('x'), new Blob(['x']), new Date(0), new Uint8Array(2)]) expect(jsonText(other)).toBeUndefined()
  })

  test('routes are served under /core/api/v1 as well', async () => {
    const core = client(app, '/core/api/v1')
    const r = await core.post('/auth/login', { json: { identifier: 'nobody-here', password: 'whatever1' } })
    expect(r.status).toBe(401)
    expect(r.code).toBe(40101)
  })
})

describe('error handler', async () => {
  const db = await testDatabase()
  const lines: string[] = []
  const log = createLogger('info', (l) => lines.push(l))
  const app = new Elysia()
    .use(plumbing({ log, methodsFor: () => [], maxUploadBytes: 1024 * 1024 }))
    .get('/boom', () => {
      throw new Error('secret internal detail: password=hunter2')
    })
    .get('/bad-uuid', async () => {
      await db.sql`select ${'not-a-uuid'}::uuid`
    })
    .get('/dup', async () => {
      // One transaction: a temporary table lives on one pooled connection only.
      await db.sql.begin(async (tx) => {
        await tx`create temporary table dup_probe (id int primary key) on commit drop`
        await tx`insert into dup_probe values (1)`
        await tx`insert into dup_probe values (1)`
      })
    })
    .get('/down', () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    })
  const api = client(app, '')

  test('an unexpected error → 500 without internals, logged with the request id', async () => {
    const r = await api.get('/boom')
    expect(r.status).toBe(500)
    expect(r.code).toBe(50000)
    expect(JSON.stringify(r.body)).not.toContain('hunter2')
    const id = r.headers.get('x-request-id')!
    expect(r.message).toContain(id)
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error')
    expect(logged.requestId).toBe(id)
  })

  test('invalid text representation → 400; unique violation → 409', async () => {
    expect((await api.get('/bad-uuid')).status).toBe(400)
    const dup = await api.get('/dup')
    expect(dup.status).toBe(409)
    expect(dup.code).toBe(40900)
  })

  test('database unreachable → 503', async () => {
    const r = await api.get('/down')
    expect(r.status).toBe(503)
    expect(r.code).toBe(50300)
  })

  test('one structured log line per request', async () => {
    lines.length = 0
    const r = await api.get('/bad-uuid')
    const id = r.headers.get('x-request-id')
    const ofRequest = () => lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.requestId === id)
    // The line is written once the response has gone out: wait for it, then for nothing more.
    await waitFor(() => ofRequest().length > 0, { timeoutMs: 2_000, intervalMs: 5 })
    const req = ofRequest()
    expect(req).toHaveLength(1)
    expect(req[0]).toMatchObject({ method: 'GET', route: '/bad-uuid', status: 400, requestId: r.headers.get('x-request-id') })
    expect(typeof req[0].durationMs).toBe('number')
  })
})

describe('isConnectionError: what is answered 503 (50300) instead of 500', () => {
  test('a connection that is gone or cannot be made, and PostgreSQL refusing or ending the session', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECT_TIMEOUT', '08006', '08P01', '57P01', '57P02', '57P03', '57P05', '53300'])
      expect([code, isConnectionError({ code })]).toEqual([code, true])
    for (const code of ['23505', '22P02', '40001', '57014', 'XX000', undefined, 42])
      expect([code, isConnectionError({ code })]).toEqual([code, false])
    expect(isConnectionError(null)).toBe(false)
  })
})

describe('onUnhandledRejection: a database blip never ends the process', () => {
  const logged = () => {
    const lines: Record<string, unknown>[] = []
    const log = createLogger('debug', (l) => void lines.push(JSON.parse(l)))
    return { log, lines }
  }

  test('a connection error that escaped as a rejection is logged, and the process carries on', () => {
    for (const code of ['57P01', 'ECONNRESET', 'CONNECTION_CLOSED']) {
      const { log, lines } = logged()
      const reason = Object.assign(new Error('terminating connection due to administrator command'), { code })
      expect(onUnhandledRejection(log, reason)).toBe('continue')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatchObject({ level: 'error', msg: 'unhandled rejection (database connection); carrying on', code })
    }
  })

  test('any other rejection (a bug, a constraint) is logged with its stack, and the process exits', () => {
    for (const reason of [new TypeError('x is undefined'), Object.assign(new Error('duplicate key'), { code: '23505' }), 'a string', undefined]) {
      const { log, lines } = logged()
      expect(onUnhandledRejection(log, reason)).toBe('exit')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatchObject({ level: 'error', msg: 'unhandled rejection; exiting' })
    }
    const { log, lines } = logged()
    onUnhandledRejection(log, new TypeError('x is undefined'))
    expect(String(lines[0]!.stack)).toContain('TypeError: x is undefined')
  })
})
