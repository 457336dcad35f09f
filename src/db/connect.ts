import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import postgres from 'postgres'

export type Sql = postgres.Sql
export type TxSql = postgres.TransactionSql

export interface Database {
  sql: Sql
  kind: 'embedded' | 'external'
  close(): Promise<void>
  /**
   * The embedded database only: its data directory as a tarball (PGlite's dumpDataDir). Call it
   * while holding the one connection (`sql.reserve()`), so no transaction is half done.
   */
  dumpDataDir?: () => Promise<Blob>
}

/** Clients of the embedded database (one connection, no LISTEN): the live stream signals in-process. */
export const embeddedClients = new WeakSet<Sql>()

const common = {
  onnotice: () => {},
  // Timestamps come back as Date, numerics we cast in SQL; nothing else needs transforming.
  connection: { application_name: 'course-learning-service' },
} as const

/**
 * How fast an outage is noticed and left behind. postgres.js's default backoff grows to 20 s
 * after a few refused connects, so requests queued behind a reconnect waited 10-20 s for
 * their 503 and for the first success after PostgreSQL came back. Here a failed connect is
 * retried after at most 250 ms, a connect gives up after `connectTimeoutSeconds` (default 2 s),
 * and a connection lives at most 10 minutes (it is replaced quietly when idle).
 */
export interface ConnectOptions {
  connectTimeoutSeconds?: number
}

export const RECONNECT_BACKOFF_SECONDS = (attempt: number) => Math.min(0.25, 0.02 * 2 ** attempt)

export async function connectExternal(url: string, max: number, opts: ConnectOptions = {}): Promise<Database> {
  const sql = postgres(url, {
    ...common,
    max,
    idle_timeout: 30,
    max_lifetime: 600,
    connect_timeout: opts.connectTimeoutSeconds ?? 2,
    backoff: RECONNECT_BACKOFF_SECONDS,
  })
  return { sql, kind: 'external', close: () => sql.end({ timeout: 5 }) }
}

const SOCKET_DIR_PREFIX = 'cls-pg-'
const OWNER_FILE = 'owner.pid'
const SOCKET_FILE = '.s.PGSQL.5432'

function processAlive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** True when something accepts connections on the unix socket at `path` (within 500 ms). */
function socketAnswers(path: string): Promise<boolean> {
  return new Promise((done) => {
    const s = createConnection(path)
    const finish = (alive: boolean) => {
      clearTimeout(timer)
      s.destroy()
      done(alive)
    }
    const timer = setTimeout(() => finish(false), 500)
    s.once('connect', () => finish(true))
    s.once('error', () => finish(false))
  })
}

/**
 * Removes the socket directories (`cls-pg-*` in the temporary directory) of embedded-mode
 * processes that are gone: each directory records its owner's pid, removed when that process
 * no longer exists. A directory without one (older versions, or a start killed before writing
 * it) is removed when it is over a minute old and nothing listens on its socket (a probe is
 * harmless: PGlite's socket server turns a second connection away).
 * Returns the removed paths.
 */
export async function removeStaleSocketDirs(base = tmpdir(), now = Date.now()): Promise<string[]> {
  const removed: string[] = []
  let names: string[]
  try {
    names = await readdir(base)
  } catch {
    return removed
  }
  for (const name of names) {
    if (!name.startsWith(SOCKET_DIR_PREFIX)) continue
    const dir = join(base, name)
    try {
      const pid = Number((await readFile(join(dir, OWNER_FILE), 'utf8').catch(() => '')).trim())
      if (Number.isInteger(pid) && pid > 0) {
        if (pid === process.pid || processAlive(pid)) continue
      } else {
        const info = await stat(dir)
        if (!info.isDirectory() || now - info.mtimeMs < 60 * 1000) continue
        if (await socketAnswers(join(dir, SOCKET_FILE))) continue
      }
      await rm(dir, { recursive: true, force: true })
      removed.push(dir)
    } catch {
      // Not ours to judge (permissions, vanished meanwhile): leave it.
    }
  }
  return removed
}

/**
 * Starts PGlite (PostgreSQL compiled to WASM) and talks to it through the PostgreSQL wire
 * protocol on a private unix socket, so the application uses the same postgres.js client
 * and the same SQL as with a real server. PGlite serves one connection: `max: 1`.
 *
 * `dataDir` undefined keeps the database in memory (tests).
 */
export async function connectEmbedded(dataDir: string | undefined): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket')
  let dir: string | undefined
  if (dataDir) {
    dir = resolve(dataDir, 'pgdata')
    await mkdir(dir, { recursive: true })
  }
  const db = await PGlite.create(dir)
  // A short path: unix socket paths are limited to ~100 bytes, DATA_DIR may be long.
  await removeStaleSocketDirs()
  const sockDir = await mkdtemp(join(tmpdir(), SOCKET_DIR_PREFIX))
  await writeFile(join(sockDir, OWNER_FILE), String(process.pid))
  const path = join(sockDir, SOCKET_FILE)
  const server = new PGLiteSocketServer({ db, path })
  await server.start()
  const sql = postgres({
    ...common,
    path,
    max: 1,
    database: 'postgres',
    username: 'postgres',
    // PGlite has no prepared-statement cache across reconnects worth relying on.
    prepare: true,
  })
  embeddedClients.add(sql)
  return {
    sql,
    kind: 'embedded',
    dumpDataDir: () => db.dumpDataDir('gzip'),
    async close() {
      await sql.end({ timeout: 5 })
      await server.stop()
      await db.close()
      await rm(sockDir, { recursive: true, force: true })
    },
  }
}

export function connectDatabase(opts: { databaseUrl?: string; dataDir?: string; poolMax: number; connectTimeoutSeconds?: number }): Promise<Database> {
  return opts.databaseUrl
    ? connectExternal(opts.databaseUrl, opts.poolMax, { connectTimeoutSeconds: opts.connectTimeoutSeconds })
    : connectEmbedded(opts.dataDir)
}
