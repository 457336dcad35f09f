import { fsyncSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { createConnection } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import postgres from 'postgres'
import { shippedTemplate, unpackTemplate } from './embedded-template.ts'
import { CHECKPOINT_ROOM_BYTES, roomForCheckpoint } from './disk-room.ts'

export type Sql = postgres.Sql
export type TxSql = postgres.TransactionSql
/** A piece of SQL (a postgres.js fragment) spliced into a larger statement. */
export type Fragment = postgres.PendingQuery<any>

/**
 * What the database can do, said rather than sniffed (passed on Deps as `db`): the embedded one
 * has one connection and no second one to LISTEN on (the live stream signals in-process, the
 * reminder dispatch runs one batch at a time, maintenance always vacuums: PGlite has no autovacuum).
 */
export interface DatabaseCapability {
  kind: 'embedded' | 'external'
  maxConnections: number
  /** `sql` goes through a transaction-mode pooler (issue 55): no session state survives a statement. */
  pooled?: boolean
}

export interface Database {
  sql: Sql
  /**
   * A connection to PostgreSQL itself for what needs a session (migrations, session advisory
   * locks): DATABASE_DIRECT_URL's small pool when `sql` goes through a pooler, else `sql`.
   */
  direct: Sql
  kind: 'embedded' | 'external'
  capability: DatabaseCapability
  close(): Promise<void>
  /**
   * The embedded database only: its data directory as a tarball (PGlite's dumpDataDir). Call it
   * while holding the one connection (`sql.reserve()`), so no transaction is half done.
   */
  dumpDataDir?: () => Promise<Blob>
  /** The embedded database only (on disk): its data directory. */
  directory?: string
}

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
  /**
   * `url` is a transaction-mode pooler (PgBouncer): prepared statements off (a named statement
   * lives on one server connection, the next transaction may get another).
   */
  pooled?: boolean
  /** PostgreSQL itself (DATABASE_DIRECT_URL): a pool of two for migrations and session locks. */
  directUrl?: string
}

export const RECONNECT_BACKOFF_SECONDS = (attempt: number) => Math.min(0.25, 0.02 * 2 ** attempt)

export async function connectExternal(url: string, max: number, opts: ConnectOptions = {}): Promise<Database> {
  const options = {
    ...common,
    idle_timeout: 30,
    max_lifetime: 600,
    connect_timeout: opts.connectTimeoutSeconds ?? 2,
    backoff: RECONNECT_BACKOFF_SECONDS,
  }
  const pooled = opts.pooled ?? false
  const sql = postgres(url, { ...options, max, prepare: !pooled })
  const direct = opts.directUrl ? postgres(opts.directUrl, { ...options, max: 2, connection: { application_name: 'course-learning-service direct' } }) : sql
  return {
    sql,
    direct,
    kind: 'external',
    capability: { kind: 'external', maxConnections: max, pooled },
    close: async () => {
      await sql.end({ timeout: 5 })
      if (direct !== sql) await direct.end({ timeout: 5 })
    },
  }
}

/**
 * A pool on DATABASE_REPLICA_URL (issue 55, src/db/replica.ts): options as DATABASE_URL's (a
 * pooled replica URL when `pooled`), its own name in pg_stat_activity.
 */
export function connectReplica(url: string, max: number, opts: Omit<ConnectOptions, 'directUrl'> = {}): Sql {
  return postgres(url, {
    ...common,
    idle_timeout: 30,
    max_lifetime: 600,
    connect_timeout: opts.connectTimeoutSeconds ?? 2,
    backoff: RECONNECT_BACKOFF_SECONDS,
    max,
    prepare: !(opts.pooled ?? false),
    connection: { application_name: 'course-learning-service replica' },
  })
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
 * PostgreSQL settings of the embedded database, sized for a small box (issue 25). PGlite's
 * default `shared_buffers=128MB` is all touched when the cluster starts (+118 MB RSS measured
 * against 16 MB); its files sit in the operating system's page cache anyway, so a small buffer
 * pool costs a read system call on a miss, not a disk read.
 */
export const EMBEDDED_SETTINGS = ['shared_buffers=32MB', 'wal_buffers=1MB', 'temp_buffers=2MB', 'max_connections=10']

/**
 * Durability (issue 25): PGlite starts PostgreSQL with `-F` (fsync off), and even without it an
 * fsync did nothing: Emscripten's NODEFS has no fsync operation (the call returns success
 * untouched), and the WAL is flushed with fdatasync, which never reaches the file system's
 * operations. So `-F` is dropped, the WAL is flushed with fsync, and `durableNodeFs` gives NODEFS
 * an fsync that calls the operating system's: every commit is on disk before it is
 * acknowledged, as with a PostgreSQL server (bench/probe-fsync.ts: 350 fsyncs for 300 commits;
 * ~12 ms a commit against ~3 ms on this shared box's disk).
 */
export const EMBEDDED_DURABILITY = ['fsync=on', 'wal_sync_method=fsync']

/** PGlite's options for the embedded database (its own start parameters, without `-F`, plus ours). */
export async function embeddedOptions() {
  const { PGlite } = await import('@electric-sql/pglite')
  const defaults = (PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams.filter((p) => p !== '-F')
  return { startParams: [...defaults, ...[...EMBEDDED_SETTINGS, ...EMBEDDED_DURABILITY].flatMap((s) => ['-c', s])] }
}

let fsyncs = 0
/** How many fsyncs the embedded databases of this process asked the operating system for. */
export const embeddedFsyncCount = () => fsyncs

/** PGlite's NodeFS for `dir`, with an fsync that reaches the disk (see EMBEDDED_DURABILITY). */
export async function durableNodeFs(dir: string) {
  const { NodeFS } = await import('@electric-sql/pglite/nodefs')
  type Opts = Parameters<InstanceType<typeof NodeFS>['init']>[1]
  class DurableNodeFS extends NodeFS {
    override async init(pg: Parameters<InstanceType<typeof NodeFS>['init']>[0], opts: Opts) {
      const { emscriptenOpts } = await super.init(pg, opts)
      const preRun = [emscriptenOpts.preRun ?? []].flat() as ((mod: any) => void)[]
      preRun.push((mod) => {
        // One object shared by every file NODEFS opens.
        mod.NODEFS.stream_ops.fsync = (stream: { nfd?: number }) => {
          if (stream.nfd !== undefined) {
            fsyncSync(stream.nfd)
            fsyncs++
          }
          return 0
        }
      })
      return { emscriptenOpts: { ...emscriptenOpts, preRun } as typeof emscriptenOpts }
    }
  }
  return new DurableNodeFS(dir)
}

const INIT_SCRIPT = join(import.meta.dir, 'init-embedded.ts')

async function exists(path: string) {
  return stat(path).then(
    () => true,
    () => false,
  )
}

/** `<dir>.new-<pid>` folders of first starts that died half-way (a kill, a full disk): ~40 MiB each. */
async function removeDeadWorkDirs(dir: string) {
  const prefix = `${basename(dir)}.new-`
  for (const name of await readdir(dirname(dir)).catch(() => [] as string[])) {
    const pid = name.startsWith(prefix) ? name.slice(prefix.length) : ''
    if (/^\d+$/.test(pid) && Number(pid) !== process.pid && !processAlive(Number(pid))) await rm(join(dirname(dir), name), { recursive: true, force: true })
  }
}

/**
 * Makes `dir` a PostgreSQL data directory when it is not one yet, without this process ever
 * holding initdb's memory (PGlite's initdb peaks near 900 MB RSS; the serving process with a
 * ready data directory stays near 200 MB). In order of preference: a copy of `template`
 * (EMBEDDED_TEMPLATE_DIR, made at image build time), the cluster shipped in the repository for
 * the installed PGlite (src/db/template, unpacked here: +~45 MB for a moment), or
 * `src/db/init-embedded.ts` in a short-lived child process. Each is written next to `dir` and
 * renamed into place when complete, so a start killed half-way leaves no half-made cluster.
 */
export async function ensureEmbeddedDataDir(dir: string, template?: string, opts: { shipped?: string | null } = {}): Promise<'existing' | 'template' | 'shipped' | 'initdb'> {
  if (await exists(join(dir, 'PG_VERSION'))) return 'existing'
  if (await exists(dir)) {
    if ((await readdir(dir)).length > 0) throw new Error(`${dir} is neither empty nor a PostgreSQL data directory (no PG_VERSION); move it away to start a new database`)
    await rm(dir, { recursive: true })
  }
  await mkdir(dirname(dir), { recursive: true })
  const work = `${dir}.new-${process.pid}`
  await removeDeadWorkDirs(dir)
  await rm(work, { recursive: true, force: true })
  let how: 'template' | 'shipped' | 'initdb'
  const shipped = opts.shipped === undefined ? await shippedTemplate() : (opts.shipped ?? undefined)
  if (template && (await exists(join(template, 'PG_VERSION')))) {
    try {
      await cp(template, work, { recursive: true })
    } catch (e) {
      // A full disk half-way: nothing of the copy stays (the next attempt starts afresh).
      await rm(work, { recursive: true, force: true })
      throw e
    }
    how = 'template'
  } else if (shipped) {
    try {
      await unpackTemplate(shipped, work)
    } catch (e) {
      await rm(work, { recursive: true, force: true })
      throw e
    }
    how = 'shipped'
  } else {
    const child = Bun.spawn([process.execPath, INIT_SCRIPT, work], { stdout: 'pipe', stderr: 'pipe', env: process.env })
    const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()])
    if (code !== 0) {
      await rm(work, { recursive: true, force: true })
      throw new Error(`initialising the embedded database failed (exit ${code}):\n${out}${err}`)
    }
    how = 'initdb'
  }
  await rename(work, dir)
  return how
}

/**
 * Starts PGlite (PostgreSQL compiled to WASM) and talks to it through the PostgreSQL wire
 * protocol on a private unix socket, so the application uses the same postgres.js client
 * and the same SQL as with a real server. PGlite serves one connection: `max: 1`.
 *
 * `dataDir` undefined keeps the database in memory (tests).
 */
export async function connectEmbedded(dataDir: string | undefined, opts: { template?: string } = {}): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite')
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket')
  let dir: string | undefined
  if (dataDir) {
    dir = resolve(dataDir, 'pgdata')
    await ensureEmbeddedDataDir(dir, opts.template)
    // Opening may end with a checkpoint (after a crash), which a full disk would never let return.
    if (!(await roomForCheckpoint(dir))) {
      throw Object.assign(new Error(`the disk under ${dir} has less than ${CHECKPOINT_ROOM_BYTES >> 20} MiB free`), { code: 'ENOSPC' })
    }
  }
  const db = await PGlite.create({ ...(await embeddedOptions()), ...(dir ? { fs: await durableNodeFs(dir) } : {}) })
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
  return {
    sql,
    direct: sql,
    kind: 'embedded',
    capability: { kind: 'embedded', maxConnections: 1 },
    dumpDataDir: () => db.dumpDataDir('gzip'),
    directory: dir,
    async close() {
      await sql.end({ timeout: 5 })
      await server.stop()
      // Closing takes a shutdown checkpoint, which on a full disk would never return (see
      // disk-room.ts); without it the next start recovers from the WAL, every commit being on disk.
      if (!dir || (await roomForCheckpoint(dir))) await db.close()
      await rm(sockDir, { recursive: true, force: true })
    },
  }
}

export function connectDatabase(opts: {
  databaseUrl?: string
  dataDir?: string
  poolMax: number
  connectTimeoutSeconds?: number
  embeddedTemplate?: string
  /** DATABASE_DIRECT_URL and DATABASE_POOLED (issue 55). */
  directUrl?: string
  pooled?: boolean
}): Promise<Database> {
  return opts.databaseUrl
    ? connectExternal(opts.databaseUrl, opts.poolMax, { connectTimeoutSeconds: opts.connectTimeoutSeconds, directUrl: opts.directUrl, pooled: opts.pooled })
    : connectEmbedded(opts.dataDir, { template: opts.embeddedTemplate })
}
