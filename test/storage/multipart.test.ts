import { afterAll, describe, expect, test } from 'bun:test'
import { AppError } from '../../src/http/errors.ts'
import { MULTIPART_OVERHEAD_BYTES } from '../../src/http/plumbing.ts'
import { readMultipart, UploadedFile } from '../../src/storage/upload.ts'
import type { FileStorage } from '../../src/storage/storage.ts'
import { BACKENDS, discardStorage, storageFor } from './helpers.ts'

/** The streaming multipart reader on its own: what is stored, what is read past, what is refused. */
const made: FileStorage[] = []
afterAll(async () => {
  for (const s of made) await discardStorage(s)
})
const keysOf = async (s: FileStorage) => {
  const keys: string[] = []
  for await (const o of s.list()) keys.push(o.key)
  return keys.sort()
}
const part = (name: string, value: string, filename?: string, type = 'application/octet-stream') =>
  `--b\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}\r\n` +
  (filename === undefined ? '' : `Content-Type: ${type}\r\n`) +
  `\r\n${value}\r\n`
const requestOf = (body: string | ReadableStream<Uint8Array>, contentType = 'multipart/form-data; boundary=b') =>
  new Request('http://localhost/x', { method: 'POST', body, headers: { 'content-type': contentType } })

describe.each(BACKENDS)('readMultipart (%s)', (backend) => {
  test('the first file part of an accepted field is stored; repeats and other fields are read past, not stored', async () => {
    const s = await storageFor(backend)
    made.push(s)
    const body = part('note', 'hello') + part('file', 'first', 'a.txt', 'Text/Plain') + part('file', 'second', 'b.txt') + part('other', 'zzz', 'c.txt') + part('note', 'ignored') + '--b--\r\n'
    const { fields } = await readMultipart(requestOf(body), 1000, s)
    expect(fields.note).toBe('hello')
    const file = fields.file as UploadedFile
    expect(file).toBeInstanceOf(UploadedFile)
    expect([file.name, file.type, file.size]).toEqual(['a.txt', 'text/plain', 5])
    expect(fields.other).toBeUndefined()
    expect(await keysOf(s)).toEqual([file.key])
    expect(await new Response(await s.open(file.key)).text()).toBe('first')
  })

  test('discard() removes what a body stored (a request failing after the upload was read)', async () => {
    const s = await storageFor(backend)
    made.push(s)
    const upload = await readMultipart(requestOf(part('file', 'bytes', 'a.bin') + '--b--\r\n'), 1000, s)
    expect(await keysOf(s)).toHaveLength(1)
    await upload.discard()
    expect(await keysOf(s)).toEqual([])
  })

  test('a file over the limit inside a body that declares nothing → 413, nothing kept', async () => {
    const s = await storageFor(backend)
    made.push(s)
    const body = part('file', 'x'.repeat(5000), 'big.bin') + '--b--\r\n'
    const e = await readMultipart(requestOf(body), 4096, s).catch((x) => x)
    expect(e).toBeInstanceOf(AppError)
    expect((e as AppError).code).toBe(41300)
    expect(await keysOf(s)).toEqual([])
  })

  test('a text field longer than the framing allowance → 400; a truncated body → 400; nothing kept', async () => {
    const s = await storageFor(backend)
    made.push(s)
    const long = await readMultipart(requestOf(part('note', 'n'.repeat(MULTIPART_OVERHEAD_BYTES + 1)) + part('file', 'f', 'a.bin') + '--b--\r\n'), 10 * MULTIPART_OVERHEAD_BYTES, s).catch((x) => x)
    expect((long as AppError).status).toBe(400)
    const cut = await readMultipart(requestOf(part('file', 'abc', 'a.bin').slice(0, -4)), 1000, s).catch((x) => x)
    expect((cut as AppError).status).toBe(400)
    expect(await keysOf(s)).toEqual([])
  })
})
