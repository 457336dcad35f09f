import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectEmbedded, embeddedFsyncCount, ensureEmbeddedDataDir } from '../../src/db/connect.ts'
import { pgliteVersion, shippedTemplate, shippedTemplatePath } from '../../src/db/embedded-template.ts'

/*
 * Issue 25: the embedded database's first start uses the cluster shipped for the installed
 * PGlite (no initdb: ~900 MB less at its peak), and commits reach the disk (PGlite's `-F` and
 * Emscripten's fsync that did nothing are gone).
 */
const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})
const scratch = async () => {
  const d = await mkdtemp(join(tmpdir(), 'cls-durable-'))
  dirs.push(d)
  return d
}

describe('the embedded database on disk', () => {
  test('the repository ships the cluster for the installed PGlite (after an upgrade: bun src/db/make-template.ts)', async () => {
    expect(await shippedTemplate()).toBe(shippedTemplatePath(await pgliteVersion()))
  })

  test('a first start unpacks the shipped cluster (no initdb), leaving no work directory', async () => {
    const base = await scratch()
    expect(await ensureEmbeddedDataDir(join(base, 'pgdata'))).toBe('shipped')
    expect(await readdir(base)).toEqual(['pgdata'])
    expect(await Bun.file(join(base, 'pgdata', 'PG_VERSION')).text()).toMatch(/^\d+\n$/)
  })

  test('fsync on, the WAL flushed with fsync, and each commit reaches the operating system as an fsync', async () => {
    const db = await connectEmbedded(await scratch())
    try {
      const [s] = await db.sql<{ fsync: string; method: string }[]>`select current_setting('fsync') as fsync, current_setting('wal_sync_method') as method`
      expect(s).toEqual({ fsync: 'on', method: 'fsync' })
      await db.sql`create table durable (id int primary key)`
      const before = embeddedFsyncCount()
      for (let i = 0; i < 20; i++) await db.sql`insert into durable values (${i})`
      expect(embeddedFsyncCount() - before).toBeGreaterThanOrEqual(20)
    } finally {
      await db.close()
    }
  }, 60_000)
})
