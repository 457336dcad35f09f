import { describe, expect, test } from 'bun:test'
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { removeStaleSocketDirs } from '../../src/db/connect.ts'
import { passDatabase, ROOT, startService, type ServiceProcess } from '../support/processes.ts'
import { waitFor } from '../support/wait.ts'

const JWT_SECRET = 'lifecycle-test-secret-lifecycle-test-secret'

/** Resolves with the exit code, or 'running' if the process is still up after `ms` (a deadline, not a wait). */
const exitWithin = (p: ServiceProcess, ms: number) =>
  Promise.race([p.proc.exited, Bun.sleep(ms).then(() => 'running' as const)]) // the deadline

/** A raw keep-alive HTTP/1.1 connection: what a client pool holds between requests. */
async function keepAlive(port: number) {
  const sock = net.connect(port, '127.0.0.1')
  let buf = ''
  let closed = false
  sock.on('data', (d) => (buf += d.toString('latin1')))
  sock.on('close', () => (closed = true))
  sock.on('error', () => (closed = true))
  await new Promise((r) => sock.once('connect', r))
  return {
    async get(path: string, waitMs = 3000) {
      buf = ''
      sock.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)
      await waitFor(() => closed || /\r\n\r\n[\s\S]*\}$/.test(buf), { timeoutMs: waitMs, intervalMs: 20 }).catch(() => {})
      return { head: buf.split('\r\n\r\n')[0] ?? '', body: buf.split('\r\n\r\n')[1] ?? '', closed }
    },
    close: () => sock.destroy(),
  }
}

describe('process lifecycle (real process, on both databases)', () => {
  test('a second process on a port in use stops with a clear message and a non-zero exit', async () => {
    const db = await passDatabase('cls_port')
    const env = { ...db.env, JWT_SECRET, REMINDER_SCAN_CRON: 'off' }
    const first = await startService({ env })
    let second: ServiceProcess | undefined
    try {
      second = await startService({ env, port: first.port, waitHealthy: false })
      const code = await exitWithin(second, 20_000)
      expect(code).toBe(1)
      expect(second.output()).toContain('already in use')
      expect(second.output()).toContain(String(first.port))
      // The first one is untouched.
      expect((await fetch(`${first.url}/status/health`)).status).toBe(200)
    } finally {
      await second?.kill()
      await first.kill()
      await db.drop()
    }
  }, 60_000)

  test('SIGTERM: not ready at once, kept-alive requests answered with Connection: close, exit by SHUTDOWN_TIMEOUT_SECONDS despite a running upload', async () => {
    const db = await passDatabase('cls_drain')
    const svc = await startService({ env: { ...db.env, JWT_SECRET, REMINDER_SCAN_CRON: 'off', SHUTDOWN_TIMEOUT_SECONDS: '3', LOG_LEVEL: 'info' } })
    const conn = await keepAlive(svc.port)
    let trickle: ReturnType<typeof setInterval> | undefined
    try {
      const ready = await conn.get('/status/ready')
      expect(ready.head).toStartWith('HTTP/1.1 200')
      expect(JSON.parse(ready.body)).toEqual({ code: 0, message: 'OK', data: { status: 'READY', database: 'UP', draining: false } })

      // A slow upload: a multipart body that arrives a few bytes at a time, for a minute.
      const upload = net.connect(svc.port, '127.0.0.1')
      upload.on('error', () => {})
      await new Promise((r) => upload.once('connect', r))
      upload.write('POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"identifier":"')
      trickle = setInterval(() => upload.write('aaaa'), 200)
      // The scenario: the upload has been trickling in for a while when the signal comes.
      await Bun.sleep(300)

      const signalled = performance.now()
      svc.proc.kill('SIGTERM')
      await waitFor(() => svc.output().includes('"msg":"shutting down"'), { timeoutMs: 3_000, intervalMs: 10, what: 'the signal to be handled' })
      // A request on the kept-alive connection right after the signal is answered, not reset.
      const during = await conn.get('/status/ready')
      expect(during.head).toStartWith('HTTP/1.1 503')
      expect(during.head.toLowerCase()).toContain('connection: close')
      const body = JSON.parse(during.body)
      expect(body.code).toBe(50300)
      expect(body.data).toEqual({ status: 'NOT_READY', database: 'UP', draining: true })

      // The upload never completes; the deadline (3 s) ends the process anyway.
      const code = await exitWithin(svc, 8000)
      const took = performance.now() - signalled
      expect(code).toBe(1)
      expect(took).toBeLessThan(4500)
      expect(took).toBeGreaterThan(2500)
      expect(svc.output()).toContain('shutdown deadline reached')
      upload.destroy()
    } finally {
      clearInterval(trickle)
      conn.close()
      await svc.kill()
      await db.drop()
    }
  }, 60_000)

  test('SIGTERM with nothing in flight exits 0 well before the deadline', async () => {
    const db = await passDatabase('cls_drain')
    const svc = await startService({ env: { ...db.env, JWT_SECRET, REMINDER_SCAN_CRON: 'off', SHUTDOWN_TIMEOUT_SECONDS: '20', LOG_LEVEL: 'info' } })
    try {
      const signalled = performance.now()
      svc.proc.kill('SIGTERM')
      expect(await exitWithin(svc, 10_000)).toBe(0)
      expect(performance.now() - signalled).toBeLessThan(5000)
      expect(svc.output()).toContain('"msg":"stopped"')
    } finally {
      await svc.kill()
      await db.drop()
    }
  }, 60_000)

  test('socket directories of embedded processes that are gone are removed at the next start', async () => {
    const base = await mkdtemp(join(tmpdir(), 'cls-sockbase-'))
    const sleeper = Bun.spawn(['sleep', '60'])
    try {
      // Left by others: a dead owner and an old directory without one (both stale), a live
      // owner and a fresh directory without one (both kept), and something not ours.
      const dead = Bun.spawn(['true'])
      await dead.exited
      const seed = async (name: string, pid?: number, ageMs = 0) => {
        await mkdir(join(base, name))
        if (pid) await writeFile(join(base, name, 'owner.pid'), String(pid))
        const t = new Date(Date.now() - ageMs)
        await utimes(join(base, name), t, t)
      }
      await seed('cls-pg-dead', dead.pid)
      await seed('cls-pg-old', undefined, 5 * 60_000)
      await seed('cls-pg-live', sleeper.pid)
      await seed('cls-pg-fresh')
      await mkdir(join(base, 'other-dir'))
      // An older version's directory (no owner file) whose socket still answers: kept.
      await mkdir(join(base, 'cls-pg-serving'))
      const listening = net.createServer().listen(join(base, 'cls-pg-serving', '.s.PGSQL.5432'))
      await new Promise((r) => listening.once('listening', r))
      const old = new Date(Date.now() - 5 * 60_000)
      await utimes(join(base, 'cls-pg-serving'), old, old)

      // An embedded database starts: it removes the stale ones and records its own pid.
      const child = Bun.spawn(
        ['bun', '-e', `const { connectEmbedded } = await import('./src/db/connect.ts'); await connectEmbedded(undefined); console.log('up'); await Bun.sleep(60000) /* stays up until killed */`],
        { cwd: ROOT, env: { ...process.env, TMPDIR: base }, stdout: 'pipe', stderr: 'pipe' },
      )
      const line = await (child.stdout as ReadableStream<Uint8Array>).getReader().read()
      expect(new TextDecoder().decode(line.value)).toContain('up')
      const seeded = ['cls-pg-fresh', 'cls-pg-live', 'cls-pg-serving', 'other-dir']
      const left = await readdir(base)
      const own = left.filter((n) => !seeded.includes(n))
      expect(left.filter((n) => seeded.includes(n)).sort()).toEqual(seeded)
      expect(own).toHaveLength(1)
      expect(own[0]!).toStartWith('cls-pg-')
      expect(await Bun.file(join(base, own[0]!, 'owner.pid')).text()).toBe(String(child.pid))

      // Killed with SIGKILL, it leaves its directory; the next start (same function) removes it.
      expect(await removeStaleSocketDirs(base)).toEqual([])
      child.kill('SIGKILL')
      await child.exited
      expect(await readdir(base)).toContain(own[0]!)
      expect(await removeStaleSocketDirs(base)).toEqual([join(base, own[0]!)])
      expect((await readdir(base)).sort()).toEqual(seeded)
      listening.close()
    } finally {
      sleeper.kill()
      await rm(base, { recursive: true, force: true })
    }
  }, 60_000)
})
