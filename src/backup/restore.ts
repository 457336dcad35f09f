import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, readdir, rm } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { extract } from 'tar-stream'
import { DATABASE_ENTRY, MANIFEST, rowCounts, tablesOf, type BackupManifest } from './backup.ts'

const FILE_ENTRY = /^files\/objects\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export class RestoreError extends Error {}

/**
 * Restores a backup (src/backup/backup.ts) into an empty data directory: the files into
 * DATA_DIR/files, the database into DATA_DIR/pgdata. Every entry's size and SHA-256 must match
 * the manifest, no entry may be missing or extra, and the restored database must have the
 * manifest's schema version and row count in every table; otherwise nothing is left behind.
 */
export async function restoreBackup(backupPath: string, dataDir: string): Promise<BackupManifest> {
  const root = resolve(dataDir)
  const existing = await readdir(root).catch((e: any) => {
    if (e?.code === 'ENOENT') return [] as string[]
    throw e
  })
  if (existing.length) throw new RestoreError(`${root} is not empty; restore only into an empty data directory.`)
  await mkdir(root, { recursive: true })
  const dumpPath = join(root, '.restore-database.tar.gz')
  try {
    const seen = new Map<string, { size: number; sha256: string }>()
    let manifest: BackupManifest | null = null
    const tar = extract()
    const reading = (async () => {
      for await (const entry of tar as AsyncIterable<Readable & { header: { name: string; type?: string | null } }>) {
        const name = entry.header.name
        if (entry.header.type && entry.header.type !== 'file') throw new RestoreError(`unexpected entry ${name}`)
        if (name === MANIFEST) {
          const parts: Buffer[] = []
          for await (const c of entry) parts.push(c as Buffer)
          manifest = JSON.parse(Buffer.concat(parts).toString('utf8')) as BackupManifest
          continue
        }
        if (name !== DATABASE_ENTRY && !FILE_ENTRY.test(name)) throw new RestoreError(`unexpected entry ${name}`)
        if (seen.has(name)) throw new RestoreError(`duplicate entry ${name}`)
        const target = name === DATABASE_ENTRY ? dumpPath : join(root, name)
        await mkdir(dirname(target), { recursive: true })
        const hash = createHash('sha256')
        const out = createWriteStream(target, { flags: 'wx' })
        let size = 0
        for await (const chunk of entry) {
          hash.update(chunk as Buffer)
          size += (chunk as Buffer).length
          if (!out.write(chunk)) await once(out, 'drain')
        }
        out.end()
        await finished(out)
        seen.set(name, { size, sha256: hash.digest('hex') })
      }
    })()
    createReadStream(backupPath).pipe(tar)
    await reading

    const m = manifest as BackupManifest | null
    if (!m || m.format !== 1) throw new RestoreError('the backup has no manifest (or one of another format)')
    const listed = new Set(m.files.map((f) => f.path))
    for (const f of m.files) {
      const got = seen.get(f.path)
      if (!got) throw new RestoreError(`${f.path} is missing from the backup`)
      if (got.size !== f.size || got.sha256 !== f.sha256) throw new RestoreError(`${f.path} does not match its SHA-256 in the manifest`)
    }
    for (const name of seen.keys()) if (!listed.has(name)) throw new RestoreError(`${name} is not in the manifest`)
    if (!listed.has(DATABASE_ENTRY)) throw new RestoreError('the backup holds no database')

    const { PGlite } = await import('@electric-sql/pglite')
    const db = await PGlite.create(join(root, 'pgdata'), { loadDataDir: Bun.file(dumpPath) })
    try {
      const sql = { unsafe: async (q: string) => (await db.query(q)).rows } as never
      const [v] = (await db.query<{ version: string }>('select max(version) as version from schema_migrations')).rows
      if ((v?.version ?? '') !== m.schemaVersion) throw new RestoreError(`schema version ${v?.version} instead of ${m.schemaVersion}`)
      const counts = await rowCounts(sql, await tablesOf(sql))
      for (const [table, n] of Object.entries(m.rowCounts)) {
        if (counts[table] !== n) throw new RestoreError(`table ${table} has ${counts[table]} rows instead of ${n}`)
      }
    } finally {
      await db.close()
    }
    await rm(dumpPath, { force: true })
    return m
  } catch (e) {
    // Leave the directory as empty as it was found.
    for (const name of await readdir(root).catch(() => [] as string[])) await rm(join(root, name), { recursive: true, force: true })
    throw e
  }
}
