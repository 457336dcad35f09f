import busboy from 'busboy'
import { z } from 'zod'
import { AppError, badRequest, tooLarge } from '../http/errors.ts'
import { mediaType, MULTIPART_OVERHEAD_BYTES } from '../http/plumbing.ts'
import type { FileStorage } from './storage.ts'

/** A file part of a multipart body, already stored under `key` (streamed there as it arrived). */
export class UploadedFile {
  constructor(
    readonly key: string,
    readonly size: number,
    /** The client's name, as sent (clean it with cleanFileName). */
    readonly name: string,
    /** The part's declared Content-Type, as sent (clean it with cleanContentType). */
    readonly type: string,
  ) {}
}

export type FormFields = Record<string, string | UploadedFile>

/** Form schema of a file field (documented as a binary string in OpenAPI). */
export const uploadedFile = (message: string) =>
  z.custom<UploadedFile>((v) => v instanceof UploadedFile, { message }).meta({ type: 'string', format: 'binary' })

/** The parsed fields of a multipart body and the files it stored; discard() removes those files. */
export interface Multipart {
  fields: FormFields
  /** The files of each field named in `repeatable`, in the order they arrived (empty parts left out). */
  files: Record<string, UploadedFile[]>
  /** Removes every stored file of this body (when the request fails after reading it). */
  discard(): Promise<void>
}

/**
 * Every body chunk is garbage once written, and JavaScriptCore schedules its next collection
 * in proportion to the heap it believes it has: with the embedded database in the process
 * (PGlite's WASM memory and bundles) it let a 400 MB upload pile up +92 to +226 MB of dead
 * chunks before collecting (issue 25; +711 MB with PGlite's default buffers). Asking for an
 * asynchronous collection every 16 MB keeps the rise near 30-40 MB whatever the heap looks like;
 * it costs a few milliseconds per 16 MB read.
 */
const COLLECT_EVERY_BYTES = 16 * 1024 * 1024

/** Most parts a form of ours has (text fields and a file); more is refused. */
const MAX_PARTS = 32

/**
 * Reads a multipart/form-data body as it arrives: each file part is streamed straight into
 * `storage` (a temporary file, or a multipart upload into the bucket) and never held in
 * memory; text fields are kept (at most MULTIPART_OVERHEAD_BYTES each). Upload routes opt out
 * of Elysia's body parsing (`parse: 'none'`) and call this only after authentication and the
 * permission check, so a refused caller's upload is never read, let alone stored.
 *
 * Limits are counted while streaming: a file larger than `maxUploadBytes`, or a body larger
 * than that plus MULTIPART_OVERHEAD_BYTES, is refused (413) as soon as the limit is passed,
 * whatever Content-Length said, and nothing of it is kept.
 *
 * Only the first value of every field counts, and only fields named in `fileFields` may carry
 * a file (other file parts are read past, not stored). Empty text fields and the empty file
 * part a browser sends for an untouched file input count as absent.
 */
export async function readMultipart(
  request: Request,
  maxUploadBytes: number,
  storage: FileStorage,
  fileFields: readonly string[] = ['file'],
  /** File fields that may come more than once (`files` of a multi-file submission). */
  repeatable: readonly string[] = [],
): Promise<Multipart> {
  if (mediaType(request) !== 'multipart/form-data') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send this request as multipart/form-data.')
  }
  if (!request.body) throw badRequest('The request has no body; send multipart/form-data.')
  // An honest Content-Length over the limit is refused before a byte is read (the caller's
  // identity and permission were checked before this function runs).
  if (Number(request.headers.get('content-length') ?? '0') > maxUploadBytes + MULTIPART_OVERHEAD_BYTES) throw tooLarge(maxUploadBytes)

  const fields: FormFields = {}
  const files: Record<string, (UploadedFile | null)[]> = Object.fromEntries(repeatable.map((n) => [n, []]))
  const stored: UploadedFile[] = []
  const pending: Promise<unknown>[] = []
  const discard = async () => {
    await Promise.allSettled(pending)
    await Promise.allSettled(stored.splice(0).map((f) => storage.remove(f.key)))
  }

  let failure: unknown = null
  let failed!: () => void
  const failedSignal = new Promise<void>((resolve) => (failed = resolve))
  const fail = (e: unknown) => {
    failure ??= e
    failed()
  }

  let parser: busboy.Busboy
  try {
    parser = busboy({
      headers: { 'content-type': request.headers.get('content-type')! },
      defParamCharset: 'utf8',
      limits: { fieldSize: MULTIPART_OVERHEAD_BYTES, parts: MAX_PARTS, fieldNameSize: 200 },
    })
  } catch {
    throw badRequest('The multipart body could not be read; check the boundary and the parts.')
  }

  const done = new Promise<void>((resolve, reject) => {
    parser.on('close', resolve)
    parser.on('error', reject)
  })
  done.catch(() => {})

  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) return fail(badRequest(`${name}: the value is too long`, [{ field: name, message: 'is too long' }]))
    if (name in fields || value === '') return
    fields[name] = value
  })
  parser.on('file', (name, stream, info) => {
    // Errors reach us through storage.put; one raised after it stopped reading (the parser
    // destroyed mid-part) has no one else to hear it.
    stream.on('error', () => {})
    if (repeatable.includes(name) && fileFields.includes(name) && !failure) {
      // Each part keeps its arrival position; an untouched (empty, unnamed) part drops out.
      const list = files[name]!
      const at = list.push(null) - 1
      const put = storage.put(stream as AsyncIterable<Uint8Array>, { maxBytes: maxUploadBytes }).then(
        (file) => {
          const upload = new UploadedFile(file.key, file.size, info.filename ?? '', info.mimeType ?? '')
          stored.push(upload)
          if (!(file.size === 0 && !info.filename)) list[at] = upload
        },
        (e) => {
          stream.destroy()
          fail(e)
        },
      )
      pending.push(put)
      return
    }
    if (name in fields || !fileFields.includes(name) || failure) {
      stream.resume()
      return
    }
    // Claimed now, so a second part of the same name is read past.
    fields[name] = new UploadedFile('', 0, info.filename ?? '', info.mimeType ?? '')
    const put = storage.put(stream as AsyncIterable<Uint8Array>, { maxBytes: maxUploadBytes }).then(
      (file) => {
        const upload = new UploadedFile(file.key, file.size, info.filename ?? '', info.mimeType ?? '')
        stored.push(upload)
        // An untouched file input: no name, no bytes.
        if (file.size === 0 && !info.filename) delete fields[name]
        else fields[name] = upload
      },
      (e) => {
        stream.destroy()
        fail(e)
      },
    )
    pending.push(put)
  })
  parser.on('partsLimit', () => fail(badRequest(`The form has more than ${MAX_PARTS} parts.`)))

  const limit = maxUploadBytes + MULTIPART_OVERHEAD_BYTES
  let received = 0
  let collectedAt = 0
  const reader = request.body.getReader()
  try {
    for (;;) {
      if (failure) break
      const { done: end, value } = await reader.read()
      if (end) break
      received += value.byteLength
      if (received - collectedAt >= COLLECT_EVERY_BYTES) {
        collectedAt = received
        Bun.gc(false)
      }
      if (received > limit) {
        fail(tooLarge(maxUploadBytes))
        break
      }
      // Backpressure: the parser holds a write until the file part's consumer has taken it.
      if (!parser.write(value)) await Promise.race([new Promise<void>((resolve) => parser.once('drain', resolve)), done, failedSignal])
    }
    if (!failure) {
      parser.end()
      await Promise.race([done, failedSignal])
    }
  } catch (e) {
    fail(e instanceof AppError ? e : badRequest('The multipart body could not be read; check the boundary and the parts.'))
  }
  if (failure) {
    await reader.cancel().catch(() => {})
    parser.destroy()
  }
  await Promise.allSettled(pending)
  if (failure) {
    await discard()
    throw failure
  }
  // Drop files removed from the form (empty untouched inputs) right away.
  const kept = Object.fromEntries(Object.entries(files).map(([n, l]) => [n, l.filter((f): f is UploadedFile => f !== null)]))
  const used = new Set<UploadedFile>([...Object.values(fields).filter((v): v is UploadedFile => v instanceof UploadedFile), ...Object.values(kept).flat()])
  for (const f of stored) if (!used.has(f)) await storage.remove(f.key).catch(() => {})
  return { fields, files: kept, discard }
}

/**
 * Reads a multipart body (see readMultipart) and hands it to `use`; when `use` fails, every file
 * the body stored is removed before the error goes on, so a refused upload leaves nothing behind.
 * Call it only after the caller's identity and permission were checked.
 */
export async function withUpload<T>(
  request: Request,
  opts: { maxUploadBytes: number; storage: FileStorage; fileFields: readonly string[]; repeatable?: readonly string[] },
  use: (upload: Multipart) => Promise<T>,
): Promise<T> {
  const upload = await readMultipart(request, opts.maxUploadBytes, opts.storage, opts.fileFields, opts.repeatable)
  try {
    return await use(upload)
  } catch (e) {
    await upload.discard()
    throw e
  }
}

/** Validates form fields with a zod schema; failures look like every other validation error (400, 40001). */
export function parseForm<S extends z.ZodType>(schema: S, fields: FormFields): z.output<S> {
  const result = schema.safeParse(fields)
  if (result.success) return result.data
  const rows = result.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message }))
  throw badRequest(`Invalid request. ${rows.map((r) => `${r.field}: ${r.message}`).join('; ')}`.slice(0, 500), rows)
}

/** Refuses empty files (the limit was enforced while the file was stored). */
export function checkUpload(file: UploadedFile, field: string, maxUploadBytes: number) {
  if (file.size > maxUploadBytes) throw tooLarge(maxUploadBytes)
  if (file.size === 0) throw badRequest(`${field}: the file is empty`, [{ field, message: 'the file is empty' }])
}

/**
 * The client's file name, kept as metadata only (never part of a path): any directory part
 * is dropped, control and bidirectional-override characters are removed (they can disguise an
 * extension), Unicode is kept; no name at all becomes "file".
 */
export function cleanFileName(raw: string | undefined): string {
  // Bun gives a part sent with `filename=""` a File whose name is undefined.
  const base = (typeof raw === 'string' ? raw : '').split(/[/\\]/).pop() ?? ''
  const cleaned = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .trim()
  return Array.from(cleaned).slice(0, 255).join('') || 'file'
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/

/** The part's declared type without parameters, if it is a well-formed MIME type; else application/octet-stream. */
export function cleanContentType(raw: string): string {
  const t = raw.split(';')[0]!.trim().toLowerCase()
  return MIME.test(t) ? t : 'application/octet-stream'
}
