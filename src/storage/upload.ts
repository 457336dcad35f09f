import type { z } from 'zod'
import { AppError, badRequest, tooLarge } from '../http/errors.ts'
import { mediaType, MULTIPART_OVERHEAD_BYTES } from '../http/plumbing.ts'

export type FormFields = Record<string, string | File>

/**
 * Reads a multipart/form-data body with a hard byte limit. Upload routes opt out of Elysia's
 * body parsing (`parse: 'none'`) and call this only after authentication and the permission
 * check, so a refused caller's upload is never read, let alone stored. The limit is counted
 * while reading: a body without Content-Length (chunked) is cut off at the limit, not buffered.
 *
 * Returns the first value of every field. Empty text fields and the empty file part a browser
 * sends for an untouched file input count as absent.
 */
export async function readMultipart(request: Request, maxUploadBytes: number): Promise<FormFields> {
  if (mediaType(request) !== 'multipart/form-data') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send this request as multipart/form-data.')
  }
  if (!request.body) throw badRequest('The request has no body; send multipart/form-data.')
  const limit = maxUploadBytes + MULTIPART_OVERHEAD_BYTES
  if (Number(request.headers.get('content-length') ?? '0') > limit) throw tooLarge(maxUploadBytes)
  let received = 0
  let exceeded = false
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      received += chunk.byteLength
      if (received > limit) {
        exceeded = true
        controller.error(tooLarge(maxUploadBytes))
        return
      }
      controller.enqueue(chunk)
    },
  })
  let form: FormData
  try {
    form = await new Response(request.body.pipeThrough(counter), { headers: { 'content-type': request.headers.get('content-type')! } }).formData()
  } catch {
    if (exceeded) throw tooLarge(maxUploadBytes)
    throw badRequest('The multipart body could not be read; check the boundary and the parts.')
  }
  const fields: FormFields = {}
  form.forEach((value: string | File, name) => {
    if (name in fields) return
    if (typeof value === 'string' ? value === '' : value.size === 0 && !value.name) return
    fields[name] = value
  })
  return fields
}

/** Validates form fields with a zod schema; failures look like every other validation error (400, 40001). */
export function parseForm<S extends z.ZodType>(schema: S, fields: FormFields): z.output<S> {
  const result = schema.safeParse(fields)
  if (result.success) return result.data
  const rows = result.error.issues.map((i) => ({ field: i.path.map(String).join('.') || 'body', message: i.message }))
  throw badRequest(`Invalid request. ${rows.map((r) => `${r.field}: ${r.message}`).join('; ')}`.slice(0, 500), rows)
}

/** Checks an uploaded file against the limit and refuses empty files. */
export function checkUpload(file: File, field: string, maxUploadBytes: number) {
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
