import { z } from 'zod'
import { AppError, notFound } from '../http/errors.ts'
import { requestUrl } from '../http/request-url.ts'
import type { Logger } from '../lib/log.ts'
import type { ByteRange, FileStorage } from './storage.ts'

export interface StoredFileMeta {
  key: string
  fileName: string
  size: number
  contentType: string | null
}

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<RFC 5987>`: old clients get a
 * readable ASCII name, current ones the exact Unicode name.
 */
export function contentDisposition(fileName: string): string {
  const fallback =
    fileName
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^\x20-\x7e]+/g, '_')
      .replace(/["\\%]/g, '_')
      .trim() || 'download'
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`
}

/**
 * Types a browser may show inline (`?inline=1`): pictures, audio and video. Never HTML, SVG,
 * XML, PDF or anything else that can carry script; those (and every other type) stay downloads.
 * A PDF is a program for the browser's viewer (`/OpenAction` JavaScript ran in Chromium's, under
 * this origin's name), and that viewer refuses to start in a sandbox: PDFs are attachments.
 */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'audio/mpeg',
  'audio/ogg',
  'audio/wav',
  'audio/webm',
  'audio/mp4',
  'audio/aac',
  'audio/flac',
  'video/mp4',
  'video/webm',
  'video/ogg',
])

/** Whether a stored content type may be shown inline (parameters such as `; charset` ignored). */
export const inlineAllowed = (contentType: string | null | undefined) => INLINE_TYPES.has((contentType ?? '').split(';')[0]!.trim().toLowerCase())

/**
 * Disposition and safety headers for a stored file. `inline` asks for in-browser display; it is
 * granted only for the allow-list above. Always nosniff, so the browser keeps the stored type.
 * Every response is sandboxed with no sources.
 */
export function dispositionHeaders(file: { fileName: string; contentType: string | null }, inline: boolean): Record<string, string> {
  const type = (file.contentType ?? '').split(';')[0]!.trim().toLowerCase()
  const asInline = inline && inlineAllowed(type)
  const disposition = contentDisposition(file.fileName)
  return {
    'content-disposition': asInline ? disposition.replace(/^attachment/, 'inline') : disposition,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "sandbox; default-src 'none'",
  }
}

/** The query of a download route: `inline=1` shows an allow-listed type in the browser. */
export const DownloadQuery = z.object({
  inline: z
    .enum(['0', '1', 'true', 'false'])
    .optional()
    .describe('1: `Content-Disposition: inline` for images (PNG, JPEG, GIF, WebP, AVIF), audio and video; every other type (PDF included: its own scripts would run) is still an attachment.'),
})

/** `?inline=1` (or `true`) on a download URL. */
const wantsInline = (request: Request) => /^(1|true)$/i.test(requestUrl(request).searchParams.get('inline') ?? '')

/**
 * One `bytes=` range against a file of `size` bytes. Returns null when the header is absent,
 * malformed or asks for several ranges (the whole file is then sent, as RFC 9110 allows),
 * and 'unsatisfiable' when the range lies outside the file.
 */
export function parseRange(header: string | null, size: number): ByteRange | 'unsatisfiable' | null {
  if (!header) return null
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (!m) return null
  const [, from, to] = m as unknown as [string, string, string]
  if (from === '' && to === '') return null
  if (from === '') {
    const suffix = Number(to)
    if (suffix === 0 || size === 0) return 'unsatisfiable'
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(from)
  if (to !== '' && Number(to) < start) return null
  if (start >= size) return 'unsatisfiable'
  return { start, end: to === '' ? size - 1 : Math.min(Number(to), size - 1) }
}

/**
 * Streams a stored file: attachment disposition (inline on `?inline=1` for the allow-list), the
 * stored content type, nosniff, a sandboxing CSP, and single byte ranges (206)
 * so media players can seek.
 */
export async function fileResponse(storage: FileStorage, request: Request, file: StoredFileMeta, log: Logger): Promise<Response> {
  const range = parseRange(request.headers.get('range'), file.size)
  if (range === 'unsatisfiable') {
    throw new AppError(
      'RANGE_NOT_SATISFIABLE',
      `The requested range is outside the file, which has ${file.size} bytes.`,
      { size: file.size },
      { 'content-range': `bytes */${file.size}` },
    )
  }
  const body = await storage.open(file.key, range ?? undefined)
  if (!body) {
    log.error('stored file missing', { key: file.key })
    throw notFound('NOT_FOUND', 'The stored file is missing. Please ask the uploader to upload it again.')
  }
  const headers: Record<string, string> = {
    'content-type': file.contentType || 'application/octet-stream',
    ...dispositionHeaders(file, wantsInline(request)),
    'cache-control': 'private, no-store',
    'accept-ranges': 'bytes',
    'content-length': String(range ? range.end - range.start + 1 : file.size),
  }
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${file.size}`
  return new Response(body, { status: range ? 206 : 200, headers })
}
