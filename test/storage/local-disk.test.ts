import { afterAll, describe, expect, test } from 'bun:test'
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../src/http/errors.ts'
import { contentDisposition, parseRange } from '../../src/storage/download.ts'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { cleanContentType, cleanFileName } from '../../src/storage/upload.ts'
import { uniq } from '../support/harness.ts'
import { filesUnder, sampleBytes, sampleStream } from './helpers.ts'

const roots: string[] = []
const freshStorage = () => {
  const root = join(tmpdir(), uniq('cls-storage-test-'))
  roots.push(root)
  return new LocalDiskStorage(root)
}
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true })
})

const streamOf = (total: number) => sampleStream(total, 1000)

describe('LocalDiskStorage', () => {
  test('put stores the bytes under a generated, sharded key; open returns them; remove deletes them', async () => {
    const s = freshStorage()
    const data = sampleBytes(10_000)
    const { key, size } = await s.put(new Blob([data]))
    expect(size).toBe(10_000)
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(await filesUnder(s.root)).toEqual([join('objects', key.slice(-2), key.slice(-4, -2), key)])
    const blob = await s.open(key)
    expect(new Uint8Array(await blob!.arrayBuffer())).toEqual(data)
    await s.remove(key)
    expect(await s.open(key)).toBeNull()
    expect(await filesUnder(s.root)).toEqual([])
    await s.remove(key) // removing twice is fine
  })

  test('open with a range returns exactly those bytes', async () => {
    const s = freshStorage()
    const data = sampleBytes(5000)
    const { key } = await s.put(new Blob([data]))
    const part = await s.open(key, { start: 100, end: 199 })
    expect(new Uint8Array(await part!.arrayBuffer())).toEqual(data.slice(100, 200))
  })

  test('a stream is stored as it arrives', async () => {
    const s = freshStorage()
    const { key, size } = await s.put(streamOf(25_000))
    expect(size).toBe(25_000)
    expect((await s.open(key))!.size).toBe(25_000)
  })

  test('more bytes than maxBytes: 413 while writing, and the partial temp file is removed', async () => {
    const s = freshStorage()
    let error: unknown
    try {
      await s.put(streamOf(50_000), { maxBytes: 20_000 })
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).status).toBe(413)
    expect((error as AppError).code).toBe(41300)
    expect(await filesUnder(s.root)).toEqual([])
  })

  test('exactly maxBytes is accepted', async () => {
    const s = freshStorage()
    const { size } = await s.put(new Blob([sampleBytes(20_000)]), { maxBytes: 20_000 })
    expect(size).toBe(20_000)
  })

  test('keys it could not have generated never reach the file system', async () => {
    const s = freshStorage()
    for (const key of ['../../etc/passwd', '/etc/passwd', 'x', '']) {
      expect(await s.open(key)).toBeNull()
      await s.remove(key)
      expect(() => s.pathOf(key)).toThrow()
    }
  })

  test('create() sweeps temp files left by a crash, but not fresh ones', async () => {
    const root = join(tmpdir(), uniq('cls-storage-test-'))
    roots.push(root)
    await mkdir(join(root, 'tmp'), { recursive: true })
    await writeFile(join(root, 'tmp', 'old.part'), 'half')
    await writeFile(join(root, 'tmp', 'new.part'), 'in flight')
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000)
    await utimes(join(root, 'tmp', 'old.part'), old, old)
    await LocalDiskStorage.create(root)
    expect(await filesUnder(root)).toEqual([join('tmp', 'new.part')])
  })
})

describe('parseRange', () => {
  const size = 1000
  test.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=990-', { start: 990, end: 999 }],
    ['bytes=-10', { start: 990, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    ['bytes=500-5000', { start: 500, end: 999 }],
    ['bytes=999-999', { start: 999, end: 999 }],
  ] as const)('%s', (header, expected) => {
    expect(parseRange(header, size)).toEqual(expected)
  })

  test.each(['bytes=1000-', 'bytes=5000-6000', 'bytes=-0'])('%s is unsatisfiable', (header) => {
    expect(parseRange(header, size)).toBe('unsatisfiable')
  })

  test.each([null, '', 'bytes=', 'bytes=-', 'bytes=5-1', 'items=0-1', 'bytes=0-1,5-6', 'bytes=a-b'])('%p is ignored (whole file)', (header) => {
    expect(parseRange(header, size)).toBeNull()
  })

  test('any range of an empty file is unsatisfiable', () => {
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable')
    expect(parseRange('bytes=-1', 0)).toBe('unsatisfiable')
  })
})

describe('file names', () => {
  test('Content-Disposition has an ASCII fallback and the exact UTF-8 name', () => {
    expect(contentDisposition('实验报告 v2.pdf')).toBe(
      `attachment; filename="_ v2.pdf"; filename*=UTF-8''%E5%AE%9E%E9%AA%8C%E6%8A%A5%E5%91%8A%20v2.pdf`,
    )
    expect(contentDisposition('résumé (final)*.txt')).toBe(
      `attachment; filename="resume (final)*.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%28final%29%2A.txt`,
    )
    expect(contentDisposition('a"b\\c%d.txt')).toBe(`attachment; filename="a_b_c_d.txt"; filename*=UTF-8''a%22b%5Cc%25d.txt`)
    expect(contentDisposition('报告')).toContain('filename="_"')
  })

  test('client file names lose directories and control characters, keep Unicode', () => {
    expect(cleanFileName('C:\\Users\\me\\实验报告 v2.pdf')).toBe('实验报告 v2.pdf')
    expect(cleanFileName('../../etc/passwd')).toBe('passwd')
    expect(cleanFileName('evil\u202Efdp.exe')).toBe('evilfdp.exe')
    expect(cleanFileName('a\r\nb.txt')).toBe('ab.txt')
    expect(cleanFileName('   ')).toBe('file')
    expect(Array.from(cleanFileName('字'.repeat(300))).length).toBe(255)
  })

  test('content types are kept only when well-formed', () => {
    expect(cleanContentType('application/pdf')).toBe('application/pdf')
    expect(cleanContentType('Text/Plain; charset=utf-8')).toBe('text/plain')
    expect(cleanContentType('')).toBe('application/octet-stream')
    expect(cleanContentType('not a type')).toBe('application/octet-stream')
  })
})
