import { describe, expect, test } from 'bun:test'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectEmbedded, connectExternal } from '../../src/db/connect.ts'
import { listMigrations, migrate } from '../../src/db/migrate.ts'
import { uuidV7, uuidV7Rows } from '../../src/db/uuid-v7.ts'
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

describe('uuidV7 (src/db/uuid-v7.ts)', () => {
  test('a version-7 id of now by default, or of the instant it is given, as gen_uuid_v7() makes them', async () => {
    const { sql } = await testDatabase()
    const at = new Date('2026-06-01T12:34:56.789Z')
    const before = Date.now()
    const [row] = await sql<{ now: string; of: string; fn: string }[]>`
      select ${uuidV7(sql)}::text as now, ${uuidV7(sql, sql`${at}::timestamptz`)}::text as of, gen_uuid_v7()::text as fn`
    const ms = (id: string) => parseInt(id.replaceAll('-', '').slice(0, 12), 16)
    for (const id of [row!.now, row!.of, row!.fn]) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(ms(row!.of)).toBe(at.getTime())
    expect(ms(row!.now)).toBeGreaterThanOrEqual(before - 1000)
    expect(ms(row!.now)).toBeLessThanOrEqual(Date.now() + 1000)
  })

  test('uuidV7Rows: the rows of one statement numbered after one drawn prefix, in the order given; statements apart', async () => {
    const { sql } = await testDatabase()
    const before = Date.now()
    const rows = await sql<{ g: number; id: string }[]>`
      select g, ${uuidV7Rows(sql, sql`g desc`)}::text as id from generate_series(1, 3000) g order by g desc`
    const after = Date.now()
    const v7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    const ids = rows.map((r) => r.id)
    for (const id of ids) expect(id).toMatch(v7)
    expect(new Set(ids).size).toBe(3000)
    // Ascending in the given order (g desc): the first row is 1 in the counter, the last 3000.
    expect([...ids].sort()).toEqual(ids)
    expect(ids[0]!.slice(-7)).toBe('0000001')
    expect(ids[2999]!.slice(-7)).toBe((3000).toString(16).padStart(7, '0'))
    const prefix = (id: string) => id.replaceAll('-', '').slice(0, 25)
    expect(new Set(ids.map(prefix)).size).toBe(1)
    const ms = parseInt(ids[0]!.replaceAll('-', '').slice(0, 12), 16)
    expect(ms).toBeGreaterThanOrEqual(before - 1000)
    expect(ms).toBeLessThanOrEqual(after + 1000)
    // Another statement draws another prefix (46 random bits), even in the same millisecond.
    const [again] = await sql<{ id: string }[]>`select ${uuidV7Rows(sql)}::text as id`
    expect(prefix(again!.id)).not.toBe(prefix(ids[0]!))
    expect(again!.id.slice(-7)).toBe('0000001')
  })
})
