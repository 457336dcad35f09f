import { afterAll, describe, expect, test } from 'bun:test'
import { AppError } from '../../src/http/errors.ts'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import type { FileStorage } from '../../src/storage/storage.ts'
import { BACKENDS, discardStorage, filesUnder, sampleBytes, sampleStream, storageFor } from './helpers.ts'

/** The FileStorage contract, on local disk and on a bucket of a real s3rver process. */
const made: FileStorage[] = []
afterAll(async () => {
  for (const s of made) await discardStorage(s)
})
const fresh = async (backend: (typeof BACKENDS)[number]) => {
  const s = await storageFor(backend)
  made.push(s)
  return s
}
const keysOf = async (s: FileStorage) => {
  const keys: string[] = []
  for await (const o of s.list()) keys.push(o.key)
  return keys.sort()
}
const bytesOf = async (body: Blob | ReadableStream<Uint8Array> | null) => new Uint8Array(await new Response(body).arrayBuffer())

const streamOf = (total: number) => sampleStream(total, 64 * 1024)

describe.each(BACKENDS)('%s storage', (backend) => {
  test('put, open (whole and a range), list, remove', async () => {
    const s = await fresh(backend)
    const data = sampleBytes(10_000)
    const { key, size } = await s.put(new Blob([data]))
    expect(size).toBe(10_000)
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(await bytesOf(await s.open(key))).toEqual(data)
    expect(await bytesOf(await s.open(key, { start: 100, end: 199 }))).toEqual(data.slice(100, 200))
    expect(await keysOf(s)).toEqual([key])
    await s.remove(key)
    expect(await s.open(key)).toBeNull()
    expect(await keysOf(s)).toEqual([])
    await s.remove(key) // removing twice is fine
  }, 30_000)

  test('a 12 MiB stream (several S3 parts) is stored as it arrives, byte for byte', async () => {
    const s = await fresh(backend)
    const total = 12 * 1024 * 1024 + 123
    const { key, size } = await s.put(streamOf(total))
    expect(size).toBe(total)
    const back = await bytesOf(await s.open(key))
    expect(back.length).toBe(total)
    const expected = new Uint8Array(await new Response(streamOf(total)).arrayBuffer())
    expect(Bun.hash(back)).toBe(Bun.hash(expected))
    expect(await bytesOf(await s.open(key, { start: total - 10, end: total - 1 }))).toEqual(expected.slice(total - 10))
  }, 60_000)

  test.each([20_000, 7 * 1024 * 1024])('more than maxBytes (%d) → 413 while streaming, nothing visible or left', async (maxBytes) => {
    const s = await fresh(backend)
    let error: unknown
    try {
      await s.put(streamOf(maxBytes + 50_000), { maxBytes })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe(41300)
    expect(await keysOf(s)).toEqual([])
    if (s instanceof LocalDiskStorage) expect(await filesUnder(s.root)).toEqual([])
  }, 60_000)

  test('exactly maxBytes is accepted', async () => {
    const s = await fresh(backend)
    const { size } = await s.put(new Blob([sampleBytes(20_000)]), { maxBytes: 20_000 })
    expect(size).toBe(20_000)
  })

  test('keys it could not have generated are never used', async () => {
    const s = await fresh(backend)
    for (const key of ['../../etc/passwd', '/etc/passwd', 'x', '']) {
      expect(await s.open(key)).toBeNull()
      await s.remove(key)
    }
  })
})
