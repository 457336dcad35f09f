import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startService, type ServiceProcess } from '../support/processes.ts'

/** A body of `pieces` × 64 KiB between `head` and `tail`, streamed: sent chunked, no Content-Length. */
function streamed(head: string, pieces: number, tail: string) {
  const enc = new TextEncoder()
  const piece = new Uint8Array(64 * 1024).fill(0x78)
  let i = 0
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (i === 0) c.enqueue(enc.encode(head))
      if (i++ < pieces) c.enqueue(piece)
      else {
        c.enqueue(enc.encode(tail))
        c.close()
      }
    },
  })
}

/**
 * Issue 27, finding 8: a JSON body over its limit answers 413 in the envelope whatever
 * MAX_UPLOAD_BYTES is; Bun's own cap (a bare 413, no envelope, no request id) never trips first.
 * A real process, so Bun's limit is the one server.ts derives.
 */
describe('a JSON body over its limit (issue 27.8)', () => {
  let svc: ServiceProcess
  beforeAll(async () => {
    svc = await startService({ env: { MAX_UPLOAD_BYTES: String(1024 * 1024), REMINDER_SCAN_CRON: 'off', JWT_SECRET: 'json-body-limit-secret-0123456789abcdef' } })
  }, 90_000)
  afterAll(() => svc?.stop())

  const post = (body: ReadableStream<Uint8Array>, type: string) =>
    fetch(`${svc.url}/api/v1/auth/register`, { method: 'POST', headers: { 'content-type': type }, body, duplex: 'half' } as RequestInit)

  test.each([3, 10])('a %i MB chunked JSON body with MAX_UPLOAD_BYTES = 1 MiB → 413 (41300) in the envelope', async (mb) => {
    const res = await post(streamed('{"username":"', Math.ceil((mb * 1e6) / 65536), '"}'), 'application/json')
    expect(res.status).toBe(413)
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(await res.json()).toMatchObject({ code: 41300, data: { limitBytes: 1024 * 1024 } })
  })

  test('a chunked JSON body under the limit still works (validation answers)', async () => {
    const res = await post(streamed('{"username":"', 2, '"}'), 'application/json')
    expect(res.status).toBe(400)
    expect(((await res.json()) as any).code).toBe(40001)
  })

  test('a 5 MB chunked multipart body on a JSON route → 415 in the envelope, before it is read (not Bun\'s bare 413)', async () => {
    const body = streamed('--xyz\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\n', 80, '\r\n--xyz--\r\n')
    const res = await fetch(`${svc.url}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body,
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(415)
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(((await res.json()) as any).code).toBe(41500)
  })
})
