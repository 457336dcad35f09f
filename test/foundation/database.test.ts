import { describe, expect, test } from 'bun:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectEmbedded, connectExternal } from '../../src/db/connect.ts'
import { listMigrations, migrate } from '../../src/db/migrate.ts'
import { testDatabase, usingExternalDb } from '../support/harness.ts'

describe('migrations', () => {
  test('numbered files, each applied once, recorded', async () => {
    const db = await testDatabase()
    const files = await listMigrations()
    expect(files.map((f) => f.version)).toEqual([...files.map((f) => f.version)].sort())
    expect(await migrate(db.sql)).toEqual([])
    const rows = await db.sql<{ version: string }[]>`select version from schema_migrations order by version`
    expect(rows.map((r) => r.version)).toEqual(files.map((f) => f.version))
  })

  test.skipIf(!usingExternalDb())('two instances migrating a fresh database at once apply each file exactly once', async () => {
    const base = new URL(process.env.DATABASE_URL!)
    const name = `cls_migrate_${process.pid}_${Date.now()}`
    const admin = await connectExternal(base.toString(), 1)
    await admin.sql.unsafe(`create database ${name}`)
    try {
      const url = new URL(base)
      url.pathname = `/${name}`
      const [a, b] = await Promise.all([connectExternal(url.toString(), 2), connectExternal(url.toString(), 2)])
      const [ra, rb] = await Promise.all([migrate(a.sql), migrate(b.sql)])
      const files = (await listMigrations()).map((f) => f.name)
      expect([...ra, ...rb].sort()).toEqual(files)
      expect(ra.length === 0 || rb.length === 0).toBe(true)
      await a.close()
      await b.close()
    } finally {
      await admin.sql.unsafe(`drop database if exists ${name} with (force)`)
      await admin.close()
    }
  }, 60_000)
})

describe('embedded database', () => {
  test('keeps its data in DATA_DIR across restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cls-embedded-'))
    try {
      const first = await connectEmbedded(dir)
      await migrate(first.sql)
      await first.sql`insert into users (id, username, email, password_hash, display_name, role)
                      values ('0190a6e0-0000-7000-8000-0000000000aa', 'persisted', 'p@x.test', 'h', 'P', 'STUDENT')`
      await first.close()
      const second = await connectEmbedded(dir)
      expect(await migrate(second.sql)).toEqual([])
      const rows = await second.sql`select username from users where id = '0190a6e0-0000-7000-8000-0000000000aa'`
      expect(rows[0]?.username).toBe('persisted')
      await second.close()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
