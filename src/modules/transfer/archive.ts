import { createReadStream } from 'node:fs'
import { open as openFile } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import tar from 'tar-stream'
import yauzl from 'yauzl'
import { ImportFailure } from './failure.ts'

/**
 * Reading a package (zip, or gzip'd tar) entry by entry, from a file on local disk: nothing is
 * held whole in memory and no entry is ever written under its own name (the consumer stores
 * bytes under keys the storage makes), so a hostile name cannot reach outside anything. Names
 * are still checked (zip slip: absolute, `..`, drive letters → the package is refused), and the
 * bytes are counted: more than `maxExtractedBytes` in all, or an entry that expands more than
 * MAX_RATIO : 1, is a zip bomb and refused. The formats are read by libraries (yauzl for zip,
 * tar-stream with node:zlib for tar.gz), never by hand.
 */
export interface Entry {
  /** The entry's path inside the package, `/`-separated, without a leading `./`. */
  name: string
  /** Declared uncompressed size (zip) or the tar header's size. */
  size: number
  /** The entry's bytes; read it to the end, or call `skip`. */
  stream: Readable
}

export interface ArchiveLimits {
  maxExtractedBytes: number
  /** Called now and then with the share of the package read (0…1). */
  onProgress?: (share: number) => void
}

/** An entry that expands more than this many times its compressed size (and past MIN_RATIO_BYTES) is a bomb. */
export const MAX_RATIO = 200
const MIN_RATIO_BYTES = 1024 * 1024

const bomb = () => new ImportFailure('IMPORT_TOO_LARGE', 'The package expands to more than the import limit (a zip bomb?); nothing was imported.')
const unsafe = (name: string) =>
  new ImportFailure('IMPORT_UNSAFE_PACKAGE', `The package has an entry outside its root (${name.slice(0, 100)}); nothing was imported.`)

/** A safe relative path, or null for a directory entry; unsafe names throw. */
export function entryName(raw: string): string | null {
  const name = raw.replace(/^(\.\/)+/, '')
  if (name === '' || name.endsWith('/')) return null
  if (name.startsWith('/') || name.includes('\\') || /^[a-zA-Z]:/.test(name) || name.includes('\0') || name.split('/').some((s) => s === '..')) {
    throw unsafe(raw)
  }
  return name
}

export type PackageKind = 'zip' | 'tgz'

/** The container by its first bytes; anything else is not a package. */
export async function sniff(path: string): Promise<PackageKind | null> {
  const fh = await openFile(path, 'r')
  try {
    const buf = Buffer.alloc(4)
    const { bytesRead } = await fh.read(buf, 0, 4, 0)
    if (bytesRead >= 4 && buf[0] === 0x50 && buf[1] === 0x4b && buf[2] === 0x03 && buf[3] === 0x04) return 'zip'
    if (bytesRead >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) return 'tgz'
    return null
  } finally {
    await fh.close()
  }
}

/**
 * Every inflated chunk is garbage once stored; as with uploads (src/storage/upload.ts), an
 * asynchronous collection every 16 MB keeps JavaScriptCore from letting dead chunks pile up.
 */
const COLLECT_EVERY_BYTES = 16 * 1024 * 1024

/** Counts an entry's bytes as they pass; throws (through the stream) past the caps. */
function counted(source: Readable, compressed: number | null, total: { bytes: number; collectedAt?: number }, limits: ArchiveLimits): Readable {
  let own = 0
  const out = new Readable({ read() { source.resume() } })
  source.on('data', (chunk: Buffer) => {
    own += chunk.length
    total.bytes += chunk.length
    if (total.bytes - (total.collectedAt ?? 0) >= COLLECT_EVERY_BYTES) {
      total.collectedAt = total.bytes
      Bun.gc(false)
    }
    if (total.bytes > limits.maxExtractedBytes || (compressed !== null && own > MIN_RATIO_BYTES && own > compressed * MAX_RATIO)) {
      source.destroy()
      out.destroy(bomb())
      return
    }
    if (!out.push(chunk)) source.pause()
  })
  source.on('end', () => out.push(null))
  source.on('error', (e) => out.destroy(e))
  return out
}

/** Reads every entry of the package at `path` in order, handing each to `each` (which must consume it). */
export async function readPackage(path: string, kind: PackageKind, limits: ArchiveLimits, each: (e: Entry) => Promise<void>): Promise<void> {
  if (kind === 'zip') return readZip(path, limits, each)
  return readTgz(path, limits, each)
}

function notZip(e: unknown): ImportFailure {
  const m = String((e as Error)?.message ?? e)
  if (/relative path|absolute path|invalid characters/i.test(m)) return unsafe(m.replace(/^.*?: /, ''))
  return new ImportFailure('IMPORT_NOT_A_PACKAGE', 'The file is neither a Moodle backup nor a Common Cartridge package.')
}

async function readZip(path: string, limits: ArchiveLimits, each: (e: Entry) => Promise<void>) {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, autoClose: true }, (err, z) =>
      err ? reject(notZip(err)) : resolve(z),
    ),
  )
  const total = { bytes: 0 }
  let seen = 0
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (e) => reject(e instanceof ImportFailure ? e : notZip(e)))
      zip.on('end', () => resolve())
      zip.on('entry', (entry: yauzl.Entry) => {
        const go = async () => {
          seen++
          limits.onProgress?.(seen / Math.max(1, zip.entryCount))
          const name = entryName(entry.fileName)
          if (name === null) return
          // Declared sizes are checked before a byte is inflated (yauzl then holds the entry to them).
          if (total.bytes + entry.uncompressedSize > limits.maxExtractedBytes) throw bomb()
          if (entry.uncompressedSize > MIN_RATIO_BYTES && entry.uncompressedSize > entry.compressedSize * MAX_RATIO) throw bomb()
          const raw = await zip.openReadStreamPromise(entry)
          await each({ name, size: entry.uncompressedSize, stream: counted(raw, entry.compressedSize, total, limits) })
        }
        go().then(
          () => zip.readEntry(),
          (e) => reject(e),
        )
      })
      zip.readEntry()
    })
  } finally {
    zip.close()
  }
}

async function readTgz(path: string, limits: ArchiveLimits, each: (e: Entry) => Promise<void>) {
  const size = (await Bun.file(path).size) || 1
  const file = createReadStream(path)
  let read = 0
  let lastShare = 0
  file.on('data', (c) => {
    read += c.length
    const share = read / size
    if (share - lastShare >= 0.01) {
      lastShare = share
      limits.onProgress?.(share)
    }
  })
  const gunzip = createGunzip()
  const extract = tar.extract()
  const total = { bytes: 0 }
  // The whole stream's ratio (tar has no per-entry compressed size).
  const inflated = counted(file.pipe(gunzip), null, total, limits)
  let gzBytes = 0
  gunzip.on('data', () => {
    gzBytes = read
    if (total.bytes > MIN_RATIO_BYTES * 16 && total.bytes > gzBytes * MAX_RATIO) inflated.destroy(bomb())
  })
  // The entry being read: stopped with the failure, so its reader is not left waiting.
  let current = null as Readable | null
  const failed = new Promise<never>((_, reject) => {
    const fail = (e: unknown) => {
      const f = e instanceof ImportFailure ? e : new ImportFailure('IMPORT_NOT_A_PACKAGE', 'The file is neither a Moodle backup nor a Common Cartridge package.')
      current?.destroy(f)
      reject(f)
    }
    inflated.on('error', fail)
    gunzip.on('error', fail)
    extract.on('error', fail)
  })
  failed.catch(() => {})
  inflated.pipe(extract)
  try {
    const iterate = (async () => {
      for await (const entry of extract as AsyncIterable<Readable & { header: tar.Header }>) {
        const h = entry.header
        const name = h.type === 'file' || h.type === 'contiguous-file' ? entryName(h.name) : null
        if (name === null) {
          // Directories, links and devices are never followed or written.
          entry.resume()
          continue
        }
        let error: unknown = null
        entry.on('error', (e: unknown) => (error ??= e))
        current = entry
        await each({ name, size: h.size ?? 0, stream: entry })
        current = null
        if (error) throw error
      }
    })()
    await Promise.race([iterate, failed])
  } finally {
    ;(current as Readable | null)?.destroy()
    inflated.destroy()
    extract.destroy()
    file.destroy()
  }
}

/** Reads an entry to the end as text, refusing one over `max` bytes. */
export async function readText(stream: Readable, max: number): Promise<string> {
  const chunks: Buffer[] = []
  let n = 0
  for await (const c of stream as AsyncIterable<Buffer>) {
    n += c.length
    if (n > max) {
      stream.destroy()
      throw new ImportFailure('IMPORT_TOO_LARGE', 'A document inside the package is larger than the import limit; nothing was imported.')
    }
    chunks.push(c)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Reads past an entry. */
export async function skipEntry(stream: Readable) {
  for await (const _ of stream as AsyncIterable<Buffer>) void _
}
