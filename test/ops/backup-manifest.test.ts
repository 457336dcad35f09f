import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { createReadStream, createWriteStream } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { finished } from 'node:stream/promises'
import { extract, pack } from 'tar-stream'
import { buildApp } from '../../src/app.ts'
import { createBackup, MANIFEST, type BackupManifest } from '../../src/backup/backup.ts'
import { restoreBackup } from '../../src/backup/restore.ts'
import { connectEmbedded, type Database } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { systemClock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/log.ts'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { client, signUp, testConfig } from '../support/harness.ts'
import { withServices } from '../../src/services/index.ts'

/*
 * Issue 48: a backup holds every password hash, so only the service's user may read it (file
 * 0600, folder 0700, also a folder that existed with 0755); and a restore checks the manifest's
 * row counts and schema version, not only the files' SHA-256 (a restore that ignored them passed
 * every other test). Embedded database in both passes (backups are of the embedded database).
 */

let root: string
let db: Database
let backupPath: string
let manifest: BackupManifest
let backupDir: string

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cls-backup-manifest-'))
  db = await connectEmbedded(join(root, 'data'))
  await migrate(db.sql)
  const storage = await LocalDiskStorage.create(join(root, 'data', 'files'))
  const api = client(buildApp(withServices({ emailEnabled: false, sql: db.sql, config: testConfig(), clock: systemClock, log: createLogger('silent'), storage, db: db.capability })))
  await signUp(api, 'TEACHER')
  await signUp(api, 'STUDENT')
  backupDir = join(root, 'backups')
  // A folder made by hand (or by an older version) with the usual 0755.
  await mkdir(backupDir, { mode: 0o755 })
  const made = await createBackup({ sql: db.sql, dumpDataDir: db.dumpDataDir!, filesRoot: storage.root, backupDir, keep: 7, now: new Date() })
  backupPath = made.path
  manifest = made.manifest
}, 120_000)

afterAll(async () => {
  await db?.close().catch(() => {})
  await rm(root, { recursive: true, force: true })
})

/** The same backup with its manifest edited (every other entry byte for byte). */
async function withManifest(edit: (m: BackupManifest) => void, name: string) {
  const out = join(root, name)
  const tarIn = extract()
  const tarOut = pack()
  const written = createWriteStream(out)
  tarOut.pipe(written)
  const reading = (async () => {
    for await (const entry of tarIn as AsyncIterable<Readable & { header: { name: string; size?: number; mtime?: Date } }>) {
      const parts: Buffer[] = []
      for await (const c of entry) parts.push(c as Buffer)
      let body = Buffer.concat(parts)
      if (entry.header.name === MANIFEST) {
        const m = JSON.parse(body.toString('utf8')) as BackupManifest
        edit(m)
        body = Buffer.from(JSON.stringify(m, null, 2))
      }
      tarOut.entry({ name: entry.header.name, size: body.length, mtime: entry.header.mtime }, body)
    }
  })()
  createReadStream(backupPath).pipe(tarIn)
  await reading
  tarOut.finalize()
  await finished(written)
  return out
}

const restoreError = async (path: string, into: string) => (await restoreBackup(path, into).then(() => null, (e: Error) => e))?.message ?? null

describe('backups hold password hashes', () => {
  test('the backup file is 0600 and its folder 0700 (also when the folder existed as 0755)', async () => {
    expect((await stat(backupPath)).mode & 0o777).toBe(0o600)
    expect((await stat(backupDir)).mode & 0o777).toBe(0o700)
    expect((await readdir(backupDir)).filter((n) => n.startsWith('.'))).toEqual([])
  })
})

describe('a restore checks the manifest', () => {
  test('the untouched backup restores (control)', async () => {
    const into = join(root, 'restore-ok')
    expect(await restoreError(backupPath, into)).toBeNull()
  }, 60_000)

  test('one rowCounts entry changed → refused, nothing left behind', async () => {
    expect(manifest.rowCounts.users).toBeGreaterThanOrEqual(2)
    const path = await withManifest((m) => {
      m.rowCounts.users = m.rowCounts.users! + 1
    }, 'rowcounts.tar')
    const into = join(root, 'restore-rowcounts')
    expect(await restoreError(path, into)).toMatch(/table users has \d+ rows instead of \d+/)
    expect(await readdir(into)).toEqual([])
  }, 60_000)

  test('another schema version → refused, nothing left behind', async () => {
    const path = await withManifest((m) => {
      m.schemaVersion = '001'
    }, 'schema.tar')
    const into = join(root, 'restore-schema')
    expect(await restoreError(path, into)).toMatch(/schema version \d+ instead of 001/)
    expect(await readdir(into)).toEqual([])
  }, 60_000)
})
