import { afterAll, describe, expect, test } from 'bun:test'
import { signUp } from '../support/harness.ts'
import { scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { waitFor } from '../support/wait.ts'
import { databaseProxy } from './support.ts'

/*
 * Issue 49: PostgreSQL unreachable when the service starts. It used to exit 1 within a second,
 * printing Bun's raw ECONNREFUSED with node:net stack frames. Now it waits with backoff (one JSON
 * line per attempt naming the host, no stack), answers /status/health 503 meanwhile, and serves as
 * soon as the database accepts; DB_START_TIMEOUT_SECONDS bounds the wait for those who prefer an exit.
 * A TCP relay in front of the real PostgreSQL refuses connections, then accepts.
 */
const cleanup: (() => Promise<unknown> | unknown)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
})

const lines = (out: string) => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)

describe.skipIf(!process.env.DATABASE_URL)('PostgreSQL unreachable at start', () => {
  test('waits with backoff, answering /status/health 503, and serves as soon as the database accepts', async () => {
    const db = await scratchDatabase('cls_dbstart')
    cleanup.push(() => db.drop())
    const { proxy, url } = await databaseProxy(db.url)
    cleanup.push(() => proxy.close())
    proxy.cut()
    const svc: ServiceProcess = await startService({ env: { DATABASE_URL: url, JWT_SECRET: 'db-start-test-secret-db-start-test-secret0', LOG_LEVEL: 'info' }, waitHealthy: false })
    cleanup.push(() => svc.stop())
    const health = await waitFor(async () => (await fetch(`${svc.url}/status/health`).catch(() => undefined)) ?? null, { timeoutMs: 20_000, intervalMs: 50, what: 'the port to answer' })
    expect(health.status).toBe(503)
    expect(await health.json()).toEqual({ code: 50300, message: 'The database cannot be reached.', data: { status: 'DOWN', database: 'DOWN' } })
    const api = await fetch(`${svc.url}/api/v1/auth/me`)
    expect([api.status, api.headers.get('retry-after'), ((await api.json()) as { code: number }).code]).toEqual([503, '5', 50300])
    await waitFor(() => lines(svc.output()).filter((l) => l.msg === 'database unreachable; retrying').length >= 2, { timeoutMs: 10_000, what: 'two attempts' })

    proxy.restore()
    await waitFor(async () => (await fetch(`${svc.url}/status/health`).catch(() => undefined))?.status === 200, { timeoutMs: 20_000, intervalMs: 100, what: 'healthy' })
    expect(svc.proc.exitCode).toBeNull()
    const user = await signUp(svc.api, 'STUDENT')
    expect((await svc.api.get('/auth/me', { token: user.token })).status).toBe(200)

    const attempts = lines(svc.output()).filter((l) => l.msg === 'database unreachable; retrying')
    expect(attempts[0]).toMatchObject({ level: 'warn', host: `127.0.0.1:${proxy.port}`, attempt: 1, code: 'ECONNREFUSED' })
    for (const a of attempts) expect(a.stack).toBeUndefined()
    expect(svc.output()).not.toContain('node:net')
  }, 40_000)

  test('DB_START_TIMEOUT_SECONDS ends the wait with one clear line and exit 1', async () => {
    const { proxy, url } = await databaseProxy(process.env.DATABASE_URL!)
    cleanup.push(() => proxy.close())
    proxy.cut()
    const started = performance.now()
    const svc = await startService({ env: { DATABASE_URL: url, JWT_SECRET: 'db-start-test-secret-db-start-test-secret0', DB_START_TIMEOUT_SECONDS: '2' }, waitHealthy: false })
    expect(await svc.proc.exited).toBe(1)
    expect(performance.now() - started).toBeGreaterThan(1500)
    const out = svc.output()
    expect(out).toContain(`The database at 127.0.0.1:${proxy.port} was unreachable for 2 s (DB_START_TIMEOUT_SECONDS).`)
    expect(out).not.toContain('node:net')
    expect(out).not.toMatch(/\n\s+at /)
  }, 30_000)
})
