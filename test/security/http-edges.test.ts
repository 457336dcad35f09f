import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { insertCourse } from '../support/fixtures.ts'
import { signUp, teacherWithCourse, testApp, testConfig } from '../support/harness.ts'
import { startService, type ServiceProcess } from '../support/processes.ts'

/** A JWT signed by hand (HMAC with the given hash), so the test does not lean on a library. */
async function hmacJwt(alg: 'HS256' | 'HS384' | 'HS512', payload: Record<string, unknown>, secret: string) {
  const b64 = (b: Uint8Array | string) => Buffer.from(b).toString('base64url')
  const input = `${b64(JSON.stringify({ alg, typ: 'JWT' }))}.${b64(JSON.stringify(payload))}`
  const hash = { HS256: 'SHA-256', HS384: 'SHA-384', HS512: 'SHA-512' }[alg]
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash }, false, ['sign'])
  return `${input}.${b64(new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(input))))}`
}

/** Issue 17, finding 7: the edges of the HTTP layer. */
describe('HTTP edges (issue 17)', async () => {
  const { api, deps } = await testApp({ config: { maxUploadBytes: 4096 } })
  const teacher = await signUp(api, 'TEACHER')
  const outsider = await signUp(api, 'STUDENT')
  const course = await insertCourse(deps.sql, teacher.id)

  test('Content-Type: Application/JSON is JSON (media types are case-insensitive)', async () => {
    const r = await api.post('/courses', {
      token: teacher.token,
      raw: JSON.stringify({ title: 'Mixed case', description: '' }),
      headers: { 'content-type': 'Application/JSON; Charset=UTF-8' },
    })
    expect([r.status, r.code]).toEqual([201, 0])
    expect(r.data.title).toBe('Mixed case')
  })

  test('a token signed with the secret under HS512 → 401; HS256 only', async () => {
    const [session] = await deps.sql<{ id: string }[]>`select id from sessions where user_id = ${teacher.id} limit 1`
    const exp = Math.floor(Date.now() / 1000) + 3600
    const sign = (alg: 'HS256' | 'HS384' | 'HS512') => hmacJwt(alg, { sid: session!.id, sub: teacher.id, exp }, testConfig().jwtSecret!)
    expect((await api.get('/auth/me', { token: await sign('HS256') })).status).toBe(200)
    const r = await api.get('/auth/me', { token: await sign('HS512') })
    expect([r.status, r.code]).toEqual([401, 40100])
    expect((await api.get('/auth/me', { token: await sign('HS384') })).status).toBe(401)
  })

  test("an outsider's oversized upload is refused with 403 before its size is judged, and nothing is stored", async () => {
    const form = new FormData()
    form.append('name', 'Big')
    form.append('type', 'FILE')
    form.append('file', new File([new Uint8Array(200_000)], 'big.bin'))
    const before = (await deps.sql<{ n: number }[]>`select count(*)::int as n from course_resources where course_id = ${course.id}`)[0]!.n
    const r = await api.post(`/courses/${course.id}/resources`, { token: outsider.token, form })
    expect([r.status, r.code]).toEqual([403, 40300])
    expect(r.headers.get('x-request-id')).toBeTruthy()
    const own = await api.post(`/courses/${course.id}/resources`, { token: teacher.token, form })
    expect([own.status, own.code]).toEqual([413, 41300])
    const after = (await deps.sql<{ n: number }[]>`select count(*)::int as n from course_resources where course_id = ${course.id}`)[0]!.n
    expect(after).toBe(before)
  })
})

// On both databases: in the embedded pass the process runs the embedded default in a DATA_DIR of
// its own, and the teacher and course are made over HTTP.
describe('HTTP edges on a real server (issue 17)', () => {
  let svc: ServiceProcess
  let token = ''
  let courseId = ''
  beforeAll(async () => {
    svc = await startService({ env: { JWT_SECRET: testConfig().jwtSecret, MAX_UPLOAD_BYTES: '4096' } })
    const made = await teacherWithCourse(svc.api)
    token = made.teacher.token
    courseId = made.courseId
  }, 120_000)
  afterAll(async () => {
    await svc?.stop()
  }, 60_000)

  const chunked = (bytes: Uint8Array, size = 64 * 1024) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < bytes.length; i += size) c.enqueue(bytes.subarray(i, i + size))
        c.close()
      },
    })

  test('a chunked JSON body over the cap → 413 in the envelope, with X-Request-Id', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ title: 'x', description: 'y'.repeat(1_200_000) }))
    const r = await fetch(`${svc.url}/api/v1/courses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: chunked(body),
    })
    expect(r.status).toBe(413)
    expect(r.headers.get('x-request-id')).toBeTruthy()
    expect((await r.json()).code).toBe(41300)
  }, 30_000)

  test('a chunked upload over the cap → 413 in the envelope, with X-Request-Id', async () => {
    const boundary = 'xyzBOUNDARY'
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nBig\r\n--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nFILE\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`
    const bytes = new Uint8Array([...new TextEncoder().encode(head), ...new Uint8Array(200_000), ...new TextEncoder().encode(`\r\n--${boundary}--\r\n`)])
    const r = await fetch(`${svc.url}/api/v1/courses/${courseId}/resources`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${token}` },
      body: chunked(bytes),
    })
    expect(r.status).toBe(413)
    expect(r.headers.get('x-request-id')).toBeTruthy()
    expect((await r.json()).code).toBe(41300)
  }, 30_000)

  test('an unknown method (FOO): Bun closes the connection before the app sees it, or the app answers 405 in the envelope', async () => {
    // fetch() would send FOO as GET, so the request is written by hand.
    const raw = await new Promise<string>((resolve, reject) => {
      let text = ''
      Bun.connect({
        hostname: '127.0.0.1',
        port: svc.port,
        socket: {
          open(s) {
            s.write('FOO /api/v1/courses HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n')
          },
          data(_s, d) {
            text += new TextDecoder().decode(d)
          },
          close() {
            resolve(text)
          },
          error(_s, e) {
            reject(e)
          },
        },
      }).catch(reject)
    })
    // Bun 1.4 refuses the method itself: no bytes come back (documented in docs/api.md). Should a
    // later Bun hand the request to the app, it must be the 405 envelope with a request id.
    if (raw !== '') {
      expect(raw).toStartWith('HTTP/1.1 405')
      expect(raw.toLowerCase()).toContain('x-request-id:')
      expect(raw).toContain('"code":40500')
    }
    expect(raw === '' || raw.startsWith('HTTP/1.1 405')).toBe(true)
  }, 30_000)
})
