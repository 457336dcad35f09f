import { copyFile, link, mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { tooLarge } from '../http/errors.ts'
import { newId } from '../lib/ids.ts'
import type { ByteRange, FileStorage, PutOptions, StoredFile, StoredObject } from './storage.ts'

const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Temp files older than this are leftovers of a crash (or a killed request), not uploads in flight. */
const STALE_TEMP_MS = 60 * 60 * 1000

/**
 * Files on local disk:
 *   <root>/objects/<last 2 hex of key>/<2 hex before those>/<key>   stored files
 *   <root>/tmp/<key>.<host>.<pid>.part                              uploads being written
 * Keys are UUIDv7s; their last hex digits are random, so the two shard levels spread files
 * evenly (65,536 directories) while the time-ordered prefix would not. An upload is written
 * to tmp/, flushed, then renamed into objects/ (same file system, so the rename is atomic):
 * a crash never leaves a half-written file under a key.
 */
/** Bytes an upload may hold in memory before they are written to its temporary file. */
const WRITE_CHUNK = 1024 * 1024

export class LocalDiskStorage implements FileStorage {
  readonly root: string
  get localRoot() {
    return this.root
  }
  private readonly tmpDir: string

  constructor(root: string) {
    this.root = resolve(root)
    this.tmpDir = join(this.root, 'tmp')
  }

  /** Creates the directories and sweeps temp files left behind by a crash. */
  static async create(root: string): Promise<LocalDiskStorage> {
    const storage = new LocalDiskStorage(root)
    await mkdir(join(storage.root, 'objects'), { recursive: true })
    await mkdir(storage.tmpDir, { recursive: true })
    await storage.sweepTemp(new Date())
    return storage
  }

  /** The path of a key's file; a key this storage could not have generated is refused. */
  pathOf(key: string): string {
    if (!KEY.test(key)) throw new Error('invalid storage key')
    return join(this.root, 'objects', key.slice(-2), key.slice(-4, -2), key)
  }

  async put(source: Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, opts: PutOptions = {}): Promise<StoredFile> {
    const maxBytes = opts.maxBytes ?? Number.POSITIVE_INFINITY
    const key = newId()
    await mkdir(this.tmpDir, { recursive: true })
    // The pid in the name lets any instance sharing the volume tell a dead process's leftovers.
    const tmp = join(this.tmpDir, tempName(key))
    // Created exclusively (and private). Written through a file handle whose every write is
    // awaited: Bun's FileSink reported ENOSPC as an unhandled rejection (which ended the process)
    // and then resolved as if the file were whole.
    const handle = await open(tmp, 'wx', 0o600)
    let size = 0
    try {
      const chunks = (source instanceof Blob ? source.stream() : source) as AsyncIterable<Uint8Array>
      let pending: Uint8Array[] = []
      let pendingBytes = 0
      for await (const chunk of chunks) {
        size += chunk.byteLength
        // Checked while writing: the stream is stopped (and its source cancelled) at the limit.
        if (size > maxBytes) throw tooLarge(maxBytes)
        pending.push(chunk)
        pendingBytes += chunk.byteLength
        // Written at every WRITE_CHUNK: at most that much of the upload waits in memory.
        if (pendingBytes >= WRITE_CHUNK) {
          await writeAll(handle, pending)
          pending = []
          pendingBytes = 0
        }
      }
      await writeAll(handle, pending)
      // On disk before the row that names it is committed (as before: an acknowledged upload
      // survives a power cut, not only a crash).
      await handle.sync()
      await handle.close()
      const target = this.pathOf(key)
      await mkdir(dirname(target), { recursive: true })
      await rename(tmp, target)
      return { key, size }
    } catch (e) {
      await handle.close().catch(() => {})
      await rm(tmp, { force: true })
      throw e
    }
  }

  async open(key: string, range?: ByteRange): Promise<Blob | null> {
    if (!KEY.test(key)) return null
    const file = Bun.file(this.pathOf(key))
    if (!(await file.exists())) return null
    return range ? file.slice(range.start, range.end + 1) : file
  }

  /**
   * A hard link under a new key: no bytes are copied, and removing either name leaves the
   * other's file (files are never written in place, so the two cannot diverge). Where the
   * file system has no hard links, a copy through a temporary file.
   */
  async copy(key: string): Promise<StoredFile | null> {
    if (!KEY.test(key)) return null
    const source = this.pathOf(key)
    const info = await stat(source).catch(() => null)
    if (!info) return null
    const copyKey = newId()
    const target = this.pathOf(copyKey)
    await mkdir(dirname(target), { recursive: true })
    try {
      await link(source, target)
    } catch (e: any) {
      if (e?.code === 'ENOENT') return null
      const tmp = join(this.tmpDir, tempName(copyKey))
      try {
        await copyFile(source, tmp)
        await rename(tmp, target)
      } catch (err: any) {
        await rm(tmp, { force: true })
        if (err?.code === 'ENOENT') return null
        throw err
      }
    }
    return { key: copyKey, size: info.size }
  }

  async remove(key: string): Promise<void> {
    if (!KEY.test(key)) return
    await rm(this.pathOf(key), { force: true })
  }

  /**
   * Deletes temp files left by processes that are gone: those named with this host and the
   * pid of a process that no longer exists, and any older than an hour (other hosts' files,
   * which cannot be checked, and old-style names). Run at start and by the storage sweep job.
   */
  async sweepTemp(now: Date): Promise<number> {
    let names: string[]
    try {
      names = await readdir(this.tmpDir)
    } catch {
      return 0
    }
    let removed = 0
    for (const name of names) {
      const path = join(this.tmpDir, name)
      const owner = TEMP_NAME.exec(name)
      let stale = Boolean(owner && owner[1] === HOST && !processAlive(Number(owner[2])))
      if (!stale) {
        const info = await stat(path).catch(() => null)
        stale = Boolean(info && now.getTime() - info.mtimeMs > STALE_TEMP_MS)
      }
      if (stale) {
        await rm(path, { force: true })
        removed++
      }
    }
    return removed
  }

  /** Every stored file with its last modification time (for the orphan sweep). */
  async *list(): AsyncIterable<StoredObject> {
    const objects = join(this.root, 'objects')
    let entries
    try {
      entries = await readdir(objects, { recursive: true, withFileTypes: true })
    } catch (e: any) {
      if (e?.code === 'ENOENT') return
      throw e
    }
    for (const e of entries) {
      if (!e.isFile() || !KEY.test(e.name)) continue
      const info = await stat(join(e.parentPath, e.name)).catch(() => null)
      if (info) yield { key: e.name, modifiedAt: info.mtime }
    }
  }
}

/** Writes every byte of `chunks` at the handle's position (writev may write fewer than asked). */
async function writeAll(handle: FileHandle, chunks: Uint8Array[]) {
  let rest = chunks
  while (rest.length) {
    const { bytesWritten } = await handle.writev(rest)
    let skip = bytesWritten
    const next: Uint8Array[] = []
    for (const c of rest) {
      if (skip >= c.byteLength) skip -= c.byteLength
      else {
        next.push(skip ? c.subarray(skip) : c)
        skip = 0
      }
    }
    rest = next
  }
}

const HOST = hostname().replace(/[^A-Za-z0-9-]/g, '_')
/** `<key>.<host>.<pid>.part` */
const TEMP_NAME = /^[0-9a-f-]{36}\.([A-Za-z0-9_-]+)\.(\d+)\.part$/
const tempName = (key: string) => `${key}.${HOST}.${process.pid}.part`

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e: any) {
    // EPERM: it exists but belongs to someone else.
    return e?.code === 'EPERM'
  }
}
