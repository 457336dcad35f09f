import { afterAll, describe, expect, test } from 'bun:test'
import { SseReader } from './sse.ts'
import { signUp, testApp } from '../support/harness.ts'
import { waitFor } from '../support/wait.ts'

/**
 * Issue 27, finding 3: the live-stream cap (10 per user) holds under a burst of parallel
 * connects. Here on one instance (both databases); across two real processes in
 * stream-cap-instances.test.ts (PostgreSQL).
 */
describe('stream cap under a burst (issue 27.3)', async () => {
  const readers: SseReader[] = []
  afterAll(async () => {
    for (const r of readers) await r.close()
  })

  const burst = async (app: { handle(r: Request): Promise<Response> }, token: string, n: number) => {
    const all = await Promise.all(
      Array.from({ length: n }, () => app.handle(new Request('http://localhost/api/v1/notifications/stream', { headers: { authorization: `Bearer ${token}` } }))),
    )
    const open: SseReader[] = []
    const refused: any[] = []
    for (const res of all) {
      if (res.status === 200) {
        const r = new SseReader(res.body!)
        readers.push(r)
        open.push(r)
      } else refused.push({ status: res.status, body: await res.json() })
    }
    return { open, refused }
  }

  test('40 parallel connects on a fresh instance → exactly 10 streams, 30 × 429 (42900)', async () => {
    const { app, api } = await testApp({ config: { streamHeartbeatSeconds: 1 } })
    const u = await signUp(api)
    const { open, refused } = await burst(app, u.token, 40)
    expect(open.length).toBe(10)
    expect(refused.length).toBe(30)
    for (const r of refused) expect(r).toMatchObject({ status: 429, body: { code: 42900, data: null } })
    // Another user is not affected by the first one's cap.
    const other = await signUp(api)
    expect((await burst(app, other.token, 3)).open.length).toBe(3)
  })

  test('on a warm instance too; closed streams give their places back', async () => {
    const { app, api } = await testApp({ config: { streamHeartbeatSeconds: 1 } })
    const warm = await signUp(api)
    await (await burst(app, warm.token, 1)).open[0]!.close()
    const u = await signUp(api)
    const first = await burst(app, u.token, 40)
    expect(first.open.length).toBe(10)
    for (const r of first.open.slice(0, 4)) await r.close()
    // The places come back once the closes are recorded (asynchronously): poll.
    let again = await burst(app, u.token, 40)
    await waitFor(
      async () => {
        if (again.open.length >= 4) return true
        for (const r of again.open) await r.close()
        again = await burst(app, u.token, 40)
        return again.open.length >= 4
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    ).catch(() => {})
    expect(again.open.length).toBe(4)
  })
})
