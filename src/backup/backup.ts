import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream } from 'node:fs'
import { chmod, link, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { finished } from 'node:stream/promises'
import type postgres from 'postgres'
import { pack } from 'tar-stream'
import type { Sql } from '../db/connect.ts'
import { CHECKPOINT_ROOM_BYTES, roomForCheckpoint } from '../db/disk-room.ts'

/**
 * Backups of the embedded database: one tar file holding
 *   database.tar.gz   PGlite's data directory (dumpDataDir)
 *   files/objects/…   the stored files the database refers to (local disk storage)
 *   manifest.json     schema version, row counts per table, size and SHA-256 of every entry
 * The manifest comes last, so its hashes are of what was actually written.
 */
export const MANIFEST = 'manifest.json'
export const DATABASE_ENTRY = 'database.tar.gz'
export const BACKUP_NAME = /^backup-\d{8}T\d{6}Z(-\d+)?\.tar$/

export interface BackupManifest {
  format: 1
  createdAt: string
  schemaVersion: string
  rowCounts: Record<string, number>
  files: { path: string; size: number; sha256: string }[]
}

export interface BackupOptions {
  sql: Sql
  dumpDataDir: () => Promise<Blob>
  /** The local file storage's root (DATA_DIR/files), or null when files live in a bucket. */
  filesRoot: string | null
  backupDir: string
  keep: number
  now: Date
  /**
   * The embedded database's data directory: no backup (and no CHECKPOINT) is started while its
   * disk has less than CHECKPOINT_ROOM_BYTES free (src/db/disk-room.ts); the backup fails with 507.
   */
  databaseDir?: string
  /** Called at the backup's moment, on the held connection (tests record what must come back). */
  atSnapshot?: (reserved: postgres.ReservedSql) => Promise<void>
}

/** The tables of the application schema, in name order. */
export async function tablesOf(sql: Pick<Sql, 'unsafe'> | postgres.ReservedSql): Promise<string[]> {
  const rows = await sql.unsafe<{ name: string }[]>(
    `select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  )
  return rows.map((r) => r.name)
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`

export async function rowCounts(sql: Pick<Sql, 'unsafe'> | postgres.ReservedSql, tables: string[]): Promise<Record<string, number>> {
  if (!tables.length) return {}
  const rows = await sql.unsafe<{ name: string; n: number }[]>(
    tables.map((t) => `select '${t.replaceAll("'", "''")}' as name, count(*)::int as n from ${quoteIdent(t)}`).join(' union all '),
  )
  return Object.fromEntries(rows.map((r) => [r.name, r.n]))
}

const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** The path of a stored file under the storage root (as LocalDiskStorage lays them out). */
export const objectPath = (key: string) => join('objects', key.slice(-2), key.slice(-4, -2), key)

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')

/**
 * Writes one backup while the service keeps serving. Its moment: the one connection of the
 * embedded database is held (every other request waits for it, a few hundred milliseconds),
 * a CHECKPOINT is taken, the row counts and the referenced files' keys are read, each
 * referenced file is hard-linked into a staging folder (files are never changed in place, so
 * the link keeps the bytes of that moment even if the file is deleted later) and the data
 * directory is dumped; no transaction is half done then, so nothing committed after the
 * moment appears and nothing before it is missing. The tar is then written from the dump and
 * the staging folder under a temporary name, synced and renamed; older backups beyond `keep`
 * are removed.
 */
export async function createBackup(o: BackupOptions): Promise<{ path: string; manifest: BackupManifest }> {
  // A backup holds every password hash, session and link hash: only the service's own user may
  // read it (the folder 0700 even when it already existed, each file 0600 from its first byte).
  await mkdir(o.backupDir, { recursive: true, mode: 0o700 })
  await chmod(o.backupDir, 0o700)
  // A backup killed half-way (kill -9, a power cut) left these; the next one removes them.
  await removeBackupLeftovers(o.backupDir)
  if (o.databaseDir && !(await roomForCheckpoint(o.databaseDir))) {
    throw Object.assign(new Error(`No backup: the disk under ${o.databaseDir} has less than ${CHECKPOINT_ROOM_BYTES >> 20} MiB free`), { code: 'ENOSPC' })
  }
  const id = `${stamp(o.now)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  const staging = join(o.backupDir, `.staging-${id}`)
  const tmp = join(o.backupDir, `.backup-${id}.tar.part`)
  await mkdir(staging, { recursive: true, mode: 0o700 })
  try {
    const reserved = await o.sql.reserve()
    let dump: Blob
    let schemaVersion: string
    let counts: Record<string, number>
    const linked: string[] = []
    try {
      await reserved.unsafe('checkpoint')
      const [v] = await reserved.unsafe<{ version: string }[]>('select max(version) as version from schema_migrations')
      schemaVersion = v?.version ?? ''
      counts = await rowCounts(reserved, await tablesOf(reserved))
      if (o.filesRoot) {
        const keys = await reserved.unsafe<{ k: string }[]>(
          `select storage_key as k from experiment_submissions
           union select storage_key from course_resources where storage_key is not null
           union select storage_key from submission_files`,
        )
        for (const { k } of keys) {
          if (!KEY.test(k)) continue
          const target = join(staging, 'files', objectPath(k))
          await mkdir(join(target, '..'), { recursive: true })
          try {
            await link(join(o.filesRoot, objectPath(k)), target)
            linked.push(target)
          } catch (e: any) {
            // A row whose file is missing is backed up as it is (the restore has the same gap).
            if (e?.code !== 'ENOENT') throw e
          }
        }
      }
      await o.atSnapshot?.(reserved)
      dump = await o.dumpDataDir()
    } finally {
      reserved.release()
    }

    const files: BackupManifest['files'] = []
    const tar = pack()
    const out = createWriteStream(tmp, { mode: 0o600 })
    tar.pipe(out)
    const add = async (name: string, size: number, chunks: AsyncIterable<Uint8Array>) => {
      const hash = createHash('sha256')
      let entry!: ReturnType<typeof tar.entry>
      const written = new Promise<void>((resolve, reject) => {
        entry = tar.entry({ name, size, mtime: o.now }, (e) => (e ? reject(e) : resolve()))
      })
      for await (const chunk of chunks) {
        hash.update(chunk)
        if (!entry.write(chunk)) await once(entry, 'drain')
      }
      entry.end(() => {})
      await written
      files.push({ path: name, size, sha256: hash.digest('hex') })
    }
    await add(DATABASE_ENTRY, dump.size, dump.stream() as unknown as AsyncIterable<Uint8Array>)
    for (const path of linked) {
      const size = (await stat(path)).size
      await add(relative(staging, path).split('\\').join('/'), size, createReadStream(path, { highWaterMark: 256 * 1024 }))
    }
    const manifest: BackupManifest = { format: 1, createdAt: o.now.toISOString(), schemaVersion, rowCounts: counts, files }
    const body = new TextEncoder().encode(JSON.stringify(manifest, null, 2))
    tar.entry({ name: MANIFEST, size: body.length, mtime: o.now }, Buffer.from(body))
    tar.finalize()
    await finished(out)
    const handle = await open(tmp, 'r')
    await handle.sync()
    await handle.close()
    let path = join(o.backupDir, `backup-${stamp(o.now)}.tar`)
    for (let n = 1; await exists(path); n++) path = join(o.backupDir, `backup-${stamp(o.now)}-${n}.tar`)
    await chmod(tmp, 0o600)
    await rename(tmp, path)
    await prune(o.backupDir, o.keep)
    return { path, manifest }
  } finally {
    await rm(staging, { recursive: true, force: true })
    await rm(tmp, { force: true })
  }
}

/** `.staging-<stamp>-<pid>-<random>` and `.backup-<stamp>-<pid>-<random>.tar.part`: a backup in progress. */
const IN_PROGRESS = /^\.(?:staging|backup)-\d{8}T\d{6}Z-(\d+)-[a-z0-9]+(?:\.tar\.part)?$/

function processAlive(pid: number) {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the staging folders (hard links) and `.part` files of backups whose process is gone
 * (issue 49: a backup killed half-way left them for ever). Run at start and before every backup;
 * a backup of another live process is left alone. Backups of one
 * process must not overlap (runBackup serialises them). Returns the removed names.
 */
export async function removeBackupLeftovers(backupDir: string): Promise<string[]> {
  let names: string[]
  try {
    names = await readdir(backupDir)
  } catch {
    return []
  }
  const removed: string[] = []
  for (const name of names) {
    const m = IN_PROGRESS.exec(name)
    const pid = Number(m?.[1])
    // This process's own are leftovers too: its backups run one at a time (the pid of a container's
    // first process is the same after every restart).
    if (!m || (pid !== process.pid && processAlive(pid))) continue
    await rm(join(backupDir, name), { recursive: true, force: true })
    removed.push(name)
  }
  return removed
}

const exists = (path: string) => stat(path).then(
  () => true,
  () => false,
)

/** Keeps the newest `keep` backups (names sort by time). */
export async function prune(backupDir: string, keep: number): Promise<string[]> {
  const names = (await readdir(backupDir)).filter((n) => BACKUP_NAME.test(n)).sort()
  const old = names.slice(0, Math.max(0, names.length - keep))
  for (const n of old) await rm(join(backupDir, n), { force: true })
  return old
}
