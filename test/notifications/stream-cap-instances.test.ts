import { beforeAll, describe, expect, test } from 'bun:test'
import { SseReader } from './sse.ts'
import { signUp } from '../support/harness.ts'
import { closedAfter, twoInstances, type ServiceProcess } from '../support/processes.ts'
import { waitFor } from '../support/wait.ts'

/*
 * Issue 27, finding 3, across processes: two real service processes on one PostgreSQL database
 * share the cap of 10 streams per user under a burst of 40 parallel connects; slots come back
 * when streams close and when a process dies (its leases lapse after 3 heartbeats).
 */
describe.skipIf(!process.env.DATABASE_URL)('stream cap across two instances (issue 27.3)', () => {
  const two = twoInstances('cls_cap', { JWT_SECRET: 'stream-cap-instances-0123456789abcdef', REMINDER_SCAN_CRON: 'off', STREAM_HEARTBEAT_SECONDS: '1' })
  const readers: SseReader[] = closedAfter(two)
  let a: ServiceProcess, b: ServiceProcess
  beforeAll(() => void ({ a, b } = two))

  const token = async (svc: ServiceProcess) => (await signUp(svc.api, 'STUDENT')).token

  /** `n` parallel connects, spread over the given instances in turn. */
  const burst = async (svcs: ServiceProcess[], auth: string, n: number) => {
    const all = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const svc = svcs[i % svcs.length]!
        const res = await fetch(`${svc.url}/api/v1/notifications/stream`, { headers: { authorization: `Bearer ${auth}` } })
        if (res.status !== 200) return { svc, status: res.status, code: ((await res.json()) as any).code, reader: null }
        const reader = new SseReader(res.body!)
        readers.push(reader)
        return { svc, status: 200, code: 0, reader }
      }),
    )
    for (const r of all) if (r.status !== 200) expect([r.status, r.code]).toEqual([429, 42900])
    return all.filter((r) => r.reader).map((r) => ({ svc: r.svc, reader: r.reader! }))
  }

  test('40 parallel connects over two instances → exactly 10; closes and a killed process give the places back', async () => {
    const auth = await token(a)
    const open = await burst([a, b], auth, 40)
    expect(open.length).toBe(10)
    // Every accepted stream is a real one: it got its counts.
    for (const o of open) expect(await o.reader.until((r) => r.of('counts').length > 0, 5000)).toBe(true)

    // A second burst while all ten are open gets nothing, on either instance.
    expect((await burst([b, a], auth, 20)).length).toBe(0)

    // Closing three streams (wherever they are) frees exactly three places (taken on A here).
    for (const o of open.slice(0, 3)) await o.reader.close()
    const reopened: typeof open = []
    const gather = async (into: typeof open, from: ServiceProcess, n: number) => (into.push(...(await burst([from], auth, 10))), into.length >= n)
    await waitFor(() => gather(reopened, a, 3), { timeoutMs: 15_000, intervalMs: 100 }).catch(() => {})
    expect(reopened.length).toBe(3)

    // Kill A: its streams' places come back once their leases lapse (3 heartbeats of 1 s), never more.
    const alive = [...open.slice(3), ...reopened]
    const onA = alive.filter((o) => o.svc === a).length
    const onB = alive.length - onA
    expect(onA + onB).toBe(10)
    expect(onA).toBeGreaterThanOrEqual(3)
    await a.kill()
    const taken: typeof open = []
    await waitFor(() => gather(taken, b, onA), { timeoutMs: 20_000, intervalMs: 200 }).catch(() => {})
    expect(taken.length).toBe(onA)
    expect((await burst([b], auth, 10)).length).toBe(0)
  }, 90_000)
})
