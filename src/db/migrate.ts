import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Sql } from './connect.ts'

export const MIGRATIONS_DIR = join(import.meta.dir, '..', '..', 'sql')

const FILE = /^(\d{3})_[a-z0-9_]+\.sql$/

export interface MigrationFile {
  version: string
  name: string
  path: string
}

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<MigrationFile[]> {
  const names = (await readdir(dir)).filter((n) => FILE.test(n)).sort()
  const seen = new Set<string>()
  return names.map((name) => {
    const version = FILE.exec(name)![1]!
    if (seen.has(version)) throw new Error(`Two migrations share the number ${version}`)
    seen.add(version)
    return { version, name, path: join(dir, name) }
  })
}

/**
 * Applies pending migrations in order, each once, all inside one transaction that holds an
 * advisory lock: two instances starting together serialise here and the second sees the
 * first one's work. Forward-only.
 */
export async function migrate(sql: Sql, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = await listMigrations(dir)
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('course-learning-service:migrations'))`
    await tx`
      create table if not exists schema_migrations (
        version text primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`
    const done = new Set((await tx<{ version: string }[]>`select version from schema_migrations`).map((r) => r.version))
    const applied: string[] = []
    for (const f of files) {
      if (done.has(f.version)) continue
      await tx.unsafe(await Bun.file(f.path).text())
      await tx`insert into schema_migrations (version, name) values (${f.version}, ${f.name})`
      applied.push(f.name)
    }
    return applied
  })
}
