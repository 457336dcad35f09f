import { S3Client } from 'bun'
import { tooLarge } from '../http/errors.ts'
import { newId } from '../lib/ids.ts'
import type { ByteRange, FileStorage, PutOptions, StoredFile, StoredObject } from './storage.ts'

const KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
/** S3's minimum part size; a file smaller than one part is sent with a single PUT at the end. */
const PART_BYTES = 5 * 1024 * 1024
/** Parts in flight at once: with PART_BYTES this bounds an upload's buffers to ~15 MiB. */
const QUEUE = 2

export interface S3Settings {
  bucket: string
  endpoint?: string
  region?: string
  accessKeyId?: string
  secretAccessKey?: string
  /** Object names are `<prefix>objects/<key>` (tests give every app its own prefix). */
  prefix?: string
}

/**
 * Files in an S3-compatible bucket through Bun's built-in S3 client. An upload is streamed
 * into a multipart upload (parts of 5 MiB, two in flight) as the request body arrives and
 * becomes visible only when the upload is completed; one over the limit is aborted. Downloads
 * are ranged GETs streamed through. Keys are the same UUIDv7s as on local disk.
 */
export class S3Storage implements FileStorage {
  readonly client: S3Client
  readonly prefix: string

  constructor(settings: S3Settings) {
    this.client = new S3Client({
      bucket: settings.bucket,
      endpoint: settings.endpoint,
      region: settings.region,
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
    })
    this.prefix = `${settings.prefix ?? ''}objects/`
  }

  nameOf(key: string): string {
    if (!KEY.test(key)) throw new Error('invalid storage key')
    return this.prefix + key
  }

  async put(source: Blob | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>, opts: PutOptions = {}): Promise<StoredFile> {
    const maxBytes = opts.maxBytes ?? Number.POSITIVE_INFINITY
    const key = newId()
    const writer = this.client.file(this.nameOf(key)).writer({ partSize: PART_BYTES, queueSize: QUEUE, retry: 2 })
    let size = 0
    let unflushed = 0
    try {
      for await (const chunk of (source instanceof Blob ? source.stream() : source) as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength
        if (size > maxBytes) throw tooLarge(maxBytes)
        writer.write(chunk)
        unflushed += chunk.byteLength
        // Wait for the part to be sent: the body is read no faster than the bucket takes it.
        if (unflushed >= PART_BYTES) {
          await writer.flush()
          unflushed = 0
        }
      }
      await writer.end()
      return { key, size }
    } catch (e) {
      // Aborts the multipart upload: nothing appears under the key.
      await Promise.resolve(writer.end(e instanceof Error ? e : new Error(String(e)))).catch(() => {})
      await this.client.delete(this.nameOf(key)).catch(() => {})
      throw e
    }
  }

  async open(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null> {
    if (!KEY.test(key)) return null
    const file = this.client.file(this.nameOf(key))
    if (!(await file.exists())) return null
    // A ranged GET, streamed through (an S3File handed to Response is not read).
    return (range ? file.slice(range.start, range.end + 1) : file).stream()
  }

  /**
   * Stores a local file under an existing key unless an object of the same size is already
   * there (for copying a local store into the bucket; rerunning it skips what was copied).
   */
  async copyIn(key: string, file: Blob): Promise<'copied' | 'skipped'> {
    const target = this.client.file(this.nameOf(key))
    if ((await target.exists()) && (await target.stat()).size === file.size) return 'skipped'
    await this.client.write(this.nameOf(key), file, { partSize: PART_BYTES, queueSize: QUEUE })
    return 'copied'
  }

  /**
   * Streams the object into a new one (through this process, a part at a time, as an upload
   * is): Bun's S3 client has no server-side copy.
   */
  async copy(key: string): Promise<StoredFile | null> {
    const source = await this.open(key)
    if (!source) return null
    return this.put(source)
  }

  async remove(key: string): Promise<void> {
    if (!KEY.test(key)) return
    await this.client.delete(this.nameOf(key))
  }

  async *list(): AsyncIterable<StoredObject> {
    let startAfter: string | undefined
    for (;;) {
      const page = await this.client.list({ prefix: this.prefix, maxKeys: 1000, ...(startAfter ? { startAfter } : {}) })
      const contents = page.contents ?? []
      for (const o of contents) {
        const key = o.key.slice(this.prefix.length)
        if (KEY.test(key)) yield { key, modifiedAt: new Date(o.lastModified ?? 0) }
      }
      if (!page.isTruncated || !contents.length) return
      startAfter = contents[contents.length - 1]!.key
    }
  }

  /**
   * Nothing to do here: an upload cut off by a crash is an incomplete multipart upload, never
   * visible as an object. Give the bucket a lifecycle rule (AbortIncompleteMultipartUpload) to
   * reclaim its parts (see docs/operations.md, "Object storage").
   */
  async sweepTemp(_now: Date): Promise<number> {
    return 0
  }
}
