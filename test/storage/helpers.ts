import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import type { Config } from '../../src/config.ts'
import type { Deps } from '../../src/deps.ts'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { S3Storage } from '../../src/storage/s3.ts'
import type { FileStorage } from '../../src/storage/storage.ts'
import { testApp, uniq, type TestContext } from '../support/harness.ts'
import type { Clock } from '../../src/lib/clock.ts'
import { sharedS3Server } from '../support/s3.ts'

/** Every file test runs on both backends: local disk, and a bucket on a real s3rver process. */
export type Backend = 'local' | 's3'
export const BACKENDS: Backend[] = ['local', 's3']

/** A fresh, empty storage of the backend (a new directory, or a new prefix in the test bucket). */
export async function storageFor(backend: Backend): Promise<FileStorage> {
  if (backend === 'local') return new LocalDiskStorage(join(tmpdir(), uniq('cls-files-')))
  const s3 = await sharedS3Server()
  return new S3Storage({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: s3.region,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    prefix: `${uniq('app-')}/`,
  })
}

/** A test app whose file storage is a fresh one of the backend. */
export async function appOn(backend: Backend, opts: { clock?: Clock; config?: Partial<Config>; deps?: Partial<Deps> } = {}): Promise<TestContext> {
  return testApp({ ...opts, deps: { storage: await storageFor(backend), ...opts.deps } })
}

/** Removes everything a test storage holds. */
export async function discardStorage(storage: FileStorage) {
  if (storage instanceof LocalDiskStorage) return rm(storage.root, { recursive: true, force: true })
  for await (const o of storage.list()) await storage.remove(o.key)
}

/** Every file under a directory (relative paths); [] when it does not exist yet. */
export async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true })
    return entries
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
      .sort()
  } catch (e: any) {
    if (e?.code === 'ENOENT') return []
    throw e
  }
}

/** What the test app's storage holds: every file under its root (temp files included), or every object under its prefix. */
export async function storedFiles(ctx: TestContext): Promise<string[]> {
  const storage = ctx.deps.storage
  if (storage instanceof LocalDiskStorage) return filesUnder(storage.root)
  const keys: string[] = []
  for await (const o of storage.list()) keys.push(o.key)
  return keys.sort()
}

/** Deterministic, non-text bytes (every byte value occurs), so byte-exact comparisons mean something. */
export function sampleBytes(n: number, seed = 7): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n)
  let x = seed
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out[i] = (x >>> 16) & 0xff
  }
  return out
}

export function formOf(fields: Record<string, string | Blob>): FormData {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  return form
}

/** A multipart body serialised to bytes, to send with an explicit Content-Length. */
export async function serialised(form: FormData): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string }> {
  const res = new Response(form)
  const contentType = res.headers.get('content-type')!
  return { body: new Uint8Array(await res.arrayBuffer()), contentType }
}

export interface Download {
  status: number
  headers: Headers
  bytes: Uint8Array<ArrayBuffer>
  json: any
}

/** GET returning the raw bytes (the harness client reads bodies as text). */
export async function download(ctx: TestContext, path: string, token?: string, headers: Record<string, string> = {}): Promise<Download> {
  const h: Record<string, string> = { ...headers }
  if (token) h.authorization = `Bearer ${token}`
  const res = await ctx.app.handle(new Request(`http://localhost/api/v1${path}`, { headers: h }))
  const bytes = new Uint8Array(await res.arrayBuffer())
  let json: any = null
  if ((res.headers.get('content-type') ?? '').includes('application/json')) json = JSON.parse(new TextDecoder().decode(bytes))
  return { status: res.status, headers: res.headers, bytes, json }
}

/** A stream of `total` sample bytes in `chunk`-sized pieces, like a request body without Content-Length. */
export function sampleStream(total: number, chunk: number): ReadableStream<Uint8Array<ArrayBuffer>> {
  let sent = 0
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close()
      const n = Math.min(chunk, total - sent)
      c.enqueue(sampleBytes(n, sent))
      sent += n
    },
  })
}
