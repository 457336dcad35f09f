import { afterAll, beforeAll } from 'bun:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { httpClient, type Client } from './client.ts'
import { collectOutput } from './output.ts'
import { startPgBouncer, type PgBouncer } from './pgbouncer.ts'
import { waitFor } from './wait.ts'

/**
 * Real service processes for tests that cross process boundaries (two instances on one
 * PostgreSQL, crashes, signals, ports). Each gets its own DATA_DIR unless one is given.
 */
export const ROOT = join(import.meta.dir, '..', '..')

export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

export interface ServiceProcess {
  url: string
  port: number
  dataDir: string
  proc: ReturnType<typeof Bun.spawn>
  /** The test client (as `testApp().api`) speaking to this process over HTTP. */
  api: Client
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number>
  /** Kills it at once (SIGKILL) and waits. */
  kill(): Promise<number>
}

export interface StartOptions {
  env?: Record<string, string | undefined>
  dataDir?: string
  port?: number
  /** Wait for /status/health to answer 200 (default true). */
  waitHealthy?: boolean
  timeoutMs?: number
}

/** Starts `bun run src/server.ts` with the given environment and waits until it is healthy. */
export async function startService(opts: StartOptions = {}): Promise<ServiceProcess> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'cls-proc-')))
  const ownsDir = !opts.dataDir
  const port = opts.port ?? (await freePort())
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries({ ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, ...opts.env })) {
    if (v !== undefined) env[k] = v
  }
  const proc = Bun.spawn(['bun', 'run', 'src/server.ts'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  const output = collectOutput(proc)
  const url = `http://127.0.0.1:${port}`
  const svc: ServiceProcess = {
    url,
    port,
    dataDir,
    proc,
    api: httpClient(url),
    output,
    async stop() {
      proc.kill('SIGTERM')
      const code = await proc.exited
      if (ownsDir) await rm(dataDir, { recursive: true, force: true })
      return code
    },
    async kill() {
      proc.kill('SIGKILL')
      const code = await proc.exited
      if (ownsDir) await rm(dataDir, { recursive: true, force: true })
      return code
    },
  }
  if (opts.waitHealthy === false) return svc
  const timeoutMs = opts.timeoutMs ?? 60_000
  try {
    await waitFor(
      async () => {
        if (proc.exitCode !== null) throw new Error(`service exited with ${proc.exitCode}`)
        return (await fetch(`${url}/status/health`).catch(() => undefined))?.status === 200
      },
      { timeoutMs, intervalMs: 150, what: 'the service to answer /status/health' },
    )
  } catch (e) {
    proc.kill('SIGKILL')
    throw new Error(`${(e as Error).message}:\n${output()}`)
  }
  return svc
}

/** A service process's database in this pass of the suite: `env` for startService, `drop` when done. */
export interface PassDatabase {
  env: { DATABASE_URL?: string }
  drop(): Promise<void>
}

/**
 * A scratch database of the PostgreSQL pass (DATABASE_URL set), or none in the embedded pass, so
 * the process runs the embedded default in its own DATA_DIR, as the README's quick start does.
 */
export async function passDatabase(prefix: string): Promise<PassDatabase> {
  if (!process.env.DATABASE_URL) return { env: {}, drop: async () => {} }
  const db = await scratchDatabase(prefix)
  return { env: { DATABASE_URL: db.url }, drop: () => db.drop() }
}

/** Two service processes on one scratch database; `a` and `b` are set once the file's first hook ran. */
export interface TwoInstances {
  a: ServiceProcess
  b: ServiceProcess
  url: string
  /** Run after the file's tests, before the processes stop (open streams to close, say). */
  closers: Array<() => Promise<void>>
}

/**
 * Starts two instances for a test file (one after the other: the first runs the migrations) on a
 * fresh database, and stops them and drops it after the file's tests. `envA(url)` goes to `a` only.
 */
export function twoInstances(
  prefix: string,
  env: Record<string, string>,
  envA: (url: string) => Record<string, string> = () => ({}),
  /** For both, given the scratch database's URL (a pooler in front of it, say). */
  envBoth: (url: string) => Record<string, string> = () => ({}),
): TwoInstances {
  let db: Awaited<ReturnType<typeof scratchDatabase>> | undefined
  const two = { closers: [] } as unknown as TwoInstances
  // TEST_THROUGH_POOLER=1: both through a transaction-mode PgBouncer of 3 server connections,
  // with DATABASE_DIRECT_URL to the server (issue 55; test/scaling/pooler.test.ts always does).
  let pooler: PgBouncer | undefined
  beforeAll(async () => {
    db = await scratchDatabase(prefix)
    two.url = db.url
    if (process.env.TEST_THROUGH_POOLER === '1') pooler = await startPgBouncer({ serverPoolSize: 3 })
    const viaPooler = pooler ? { DATABASE_URL: pooler.through(db.url), DATABASE_DIRECT_URL: db.url } : {}
    two.a = await startService({ env: { DATABASE_URL: db.url, ...env, ...viaPooler, ...envBoth(db.url), ...envA(db.url) } })
    two.b = await startService({ env: { DATABASE_URL: db.url, ...env, ...viaPooler, ...envBoth(db.url) } })
  }, 90_000)
  afterAll(async () => {
    for (const close of two.closers) await close()
    await Promise.all([two.a?.stop(), two.b?.stop()])
    await pooler?.stop()
    await db?.drop()
  })
  return two
}

/**
 * A list whose entries (live streams, say) are closed after the file's tests, before the two
 * instances stop: `const readers: SseReader[] = closedAfter(two)`.
 */
export function closedAfter<T extends { close(): Promise<unknown> }>(two: TwoInstances): T[] {
  const open: T[] = []
  two.closers.push(async () => {
    for (const o of open) await o.close()
  })
  return open
}

/** A fresh database on the local PostgreSQL server for a multi-process test; dropped by `drop()`. */
export async function scratchDatabase(prefix = 'cls_t'): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = process.env.PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const { default: postgres } = await import('postgres')
  const sql = postgres(admin, { max: 1, onnotice: () => {} })
  await sql.unsafe(`create database ${name}`)
  await sql.end()
  const base = new URL(admin)
  base.pathname = `/${name}`
  return {
    url: base.toString(),
    async drop() {
      const s = postgres(admin, { max: 1, onnotice: () => {} })
      await s.unsafe(`drop database if exists ${name} with (force)`)
      await s.end()
    },
  }
}

/** `bun run backup` (src/cli/backup.ts) on `dataDir` with the embedded database, as an operator runs it. */
export function runBackupCommand(dataDir: string) {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' })) if (v !== undefined && k !== 'DATABASE_URL') env[k] = v
  return Bun.spawn(['bun', 'run', 'backup'], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
}
