import { afterAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { buildApp } from '../../src/app.ts'
import { createBackup, objectPath, prune, tablesOf } from '../../src/backup/backup.ts'
import { restoreBackup } from '../../src/backup/restore.ts'
import { loadConfig } from '../../src/config.ts'
import { connectEmbedded, type Database, type Sql } from '../../src/db/connect.ts'
import { migrate } from '../../src/db/migrate.ts'
import { systemClock } from '../../src/lib/clock.ts'
import { createLogger } from '../../src/lib/log.ts'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { client, signUp, testConfig } from '../support/harness.ts'
import { formOf } from '../security/world.ts'
import { waitFor } from '../support/wait.ts'
import { withServices } from '../../src/services/index.ts'

/**
 * Backups of the embedded database: a backup taken while writes run restores to exactly the
 * rows and files of its moment (every table compared row by row, every file by SHA-256).
 */
const dirs: string[] = []
const dbs: Database[] = []
const tempDir = async (p: string) => {
  const d = await mkdtemp(join(tmpdir(), p))
  dirs.push(d)
  return d
}
afterAll(async () => {
  for (const db of dbs) await db.close().catch(() => {})
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

/** Every table's rows as sorted text, and nothing else: what a restore must give back exactly. */
async function tableRows(sql: Pick<Sql, 'unsafe'>) {
  const out: Record<string, string[]> = {}
  for (const t of await tablesOf(sql)) {
    out[t] = (await sql.unsafe<{ r: string }[]>(`select x::text as r from "${t}" x order by 1`)).map((r) => r.r)
  }
  return out
}

async function filesUnder(root: string) {
  const out: Record<string, string> = {}
  const entries = await readdir(join(root, 'objects'), { recursive: true, withFileTypes: true }).catch(() => [])
  for (const e of entries) {
    if (!e.isFile()) continue
    const path = join(e.parentPath, e.name)
    out[relative(root, path)] = sha(await readFile(path))
  }
  return out
}

async function service() {
  const dataDir = await tempDir('cls-backup-src-')
  const db = await connectEmbedded(dataDir)
  dbs.push(db)
  await migrate(db.sql)
  const storage = await LocalDiskStorage.create(join(dataDir, 'files'))
  const app = buildApp(withServices({ emailEnabled: false, sql: db.sql, config: testConfig(), clock: systemClock, log: createLogger('silent'), storage, db: db.capability }))
  return { dataDir, db, storage, api: client(app) }
}

describe('backup and restore of the embedded database', () => {
  test('a backup taken while writes run restores every row and file of its moment', async () => {
    const { dataDir, db, storage, api } = await service()
    const teacher = await signUp(api, 'TEACHER')
    const student = await signUp(api, 'STUDENT')
    const c = await api.post('/courses', { token: teacher.token, json: { title: 'Backed up', description: '' } })
    const courseId = c.data.id as string
    await api.post('/courses/join', { token: student.token, json: { inviteCode: c.data.inviteCode } })
    const exp = await api.post(`/courses/${courseId}/experiments`, {
      token: teacher.token,
      json: { title: 'Lab', description: '<p>x</p>', dueAt: new Date(Date.now() + 86400_000).toISOString() },
    })

    // Writes keep coming: units, files (resources) and submissions, one after another.
    let writing = true
    let writes = 0
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        const r = await Promise.all([
          api.post(`/courses/${courseId}/learning/units`, { token: teacher.token, json: { title: `Unit ${i}` } }),
          api.post(`/courses/${courseId}/resources`, {
            token: teacher.token,
            form: formOf({ name: `File ${i}`, type: 'FILE', file: new File([`resource ${i} `.repeat(500)], `r${i}.txt`) }),
          }),
          api.post(`/experiments/${exp.data.id}/submissions`, { token: student.token, form: formOf({ file: new File([`report ${i}`], 'report.txt') }) }),
        ])
        for (const x of r) if (x.status !== 201) throw new Error(`write failed: ${x.status} ${JSON.stringify(x.body)}`)
        writes++
      }
    })()
    const until = (n: number) => waitFor(() => writes >= n, { timeoutMs: 60_000, intervalMs: 20, what: `${n} rounds of writes` })
    await until(3)

    let expectedRows: Record<string, string[]> = {}
    let expectedFiles: Record<string, string> = {}
    const backupDir = join(dataDir, 'backups')
    const { path, manifest } = await createBackup({
      sql: db.sql,
      dumpDataDir: db.dumpDataDir!,
      filesRoot: storage.root,
      backupDir,
      keep: 7,
      now: new Date(),
      atSnapshot: async (reserved) => {
        expectedRows = await tableRows(reserved)
        const keys = await reserved<{ k: string }[]>`
          select storage_key as k from experiment_submissions union select storage_key from course_resources where storage_key is not null`
        for (const { k } of keys) expectedFiles[objectPath(k)] = sha(await readFile(join(storage.root, objectPath(k))))
      },
    })
    const atBackup = writes
    await until(atBackup + 2)
    writing = false
    await writer

    expect(path).toMatch(/backups\/backup-\d{8}T\d{6}Z\.tar$/)
    expect(await readdir(backupDir)).toEqual([path.split('/').pop()!])
    expect(manifest.schemaVersion).toMatch(/^\d{3}$/)
    expect(manifest.rowCounts.course_resources).toBe(expectedRows.course_resources!.length)
    expect(manifest.files.find((f) => f.path === 'database.tar.gz')!.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(Object.keys(expectedFiles).length).toBeGreaterThanOrEqual(6)
    // Writes went on after the backup: the live database has moved past it.
    const [{ n }] = await db.sql<[{ n: number }]>`select count(*)::int as n from course_resources`
    expect(n).toBeGreaterThan(expectedRows.course_resources!.length)

    const target = join(await tempDir('cls-backup-dst-'), 'data')
    const restored = await restoreBackup(path, target)
    expect(restored.rowCounts).toEqual(manifest.rowCounts)
    expect(await filesUnder(join(target, 'files'))).toEqual(Object.fromEntries(Object.entries(expectedFiles).map(([k, v]) => [k, v])))
    const back = await connectEmbedded(target)
    dbs.push(back)
    expect(await tableRows(back.sql)).toEqual(expectedRows)
    // A service on the restored directory serves the restored files.
    const app = buildApp(withServices({ emailEnabled: false, sql: back.sql, config: testConfig(), clock: systemClock, log: createLogger('silent'), storage: new LocalDiskStorage(join(target, 'files')), db: back.capability }))
    const rapi = client(app)
    const login = await rapi.post('/auth/login', { json: { identifier: teacher.username, password: teacher.password } })
    const resources = await rapi.get(`/courses/${courseId}/resources?pageSize=200`, { token: login.data.accessToken })
    expect(resources.data.total).toBe(expectedRows.course_resources!.length)
    const file = await rapi.get(`/resources/${resources.data.items[0].id}/file`, { token: login.data.accessToken })
    expect(file.status).toBe(200)
    await back.close()
    dbs.pop()

    // Restoring again into the now non-empty directory is refused, and changes nothing there.
    // Awaited first, then asserted (see test/foundation/test-hygiene.test.ts).
    expect((await restoreBackup(path, target).then(() => null, (e: Error) => e))?.message).toMatch(/not empty/)
    expect((await readdir(target)).sort()).toEqual(['files', 'pgdata'])

    // A backup whose bytes were changed fails the manifest check and leaves nothing behind.
    const bytes = new Uint8Array(await readFile(path))
    const marker = Buffer.from(bytes).indexOf('resource ')
    expect(marker).toBeGreaterThan(0)
    bytes[marker] = bytes[marker]! ^ 0x01
    const tampered = join(backupDir, 'tampered.tar')
    await writeFile(tampered, bytes)
    const empty = join(await tempDir('cls-backup-bad-'), 'data')
    expect((await restoreBackup(tampered, empty).then(() => null, (e: Error) => e))?.message).toMatch(/SHA-256/)
    expect(await readdir(empty)).toEqual([])
  }, 180_000)

  test('BACKUP_KEEP: only the newest backups stay', async () => {
    const dir = await tempDir('cls-backup-keep-')
    const names = ['backup-20261120T030000Z.tar', 'backup-20261121T030000Z.tar', 'backup-20261122T030000Z.tar', 'backup-20261122T030000Z-1.tar', 'other.txt']
    for (const n of names) await writeFile(join(dir, n), 'x')
    expect(await prune(dir, 2)).toEqual(['backup-20261120T030000Z.tar', 'backup-20261121T030000Z.tar'])
    expect((await readdir(dir)).sort()).toEqual(['backup-20261122T030000Z-1.tar', 'backup-20261122T030000Z.tar', 'other.txt'])
  })

  test('configuration: daily at 03:00 embedded, off with DATABASE_URL, DATA_DIR/backups, keep 7', () => {
    const embedded = loadConfig({ DATA_DIR: '/srv/cls', LOG_LEVEL: 'silent' })
    expect([embedded.backupCron, embedded.backupDir, embedded.backupKeep]).toEqual(['0 3 * * *', '/srv/cls/backups', 7])
    const server = loadConfig({ DATA_DIR: '/srv/cls', LOG_LEVEL: 'silent', DATABASE_URL: 'postgres://x@y/z', JWT_SECRET: 'x'.repeat(40) })
    expect(server.backupCron).toBe('off')
    const custom = loadConfig({ LOG_LEVEL: 'silent', BACKUP_CRON: '*/30 * * * *', BACKUP_DIR: '/backups', BACKUP_KEEP: '3' })
    expect([custom.backupCron, custom.backupDir, custom.backupKeep]).toEqual(['*/30 * * * *', '/backups', 3])
    expect(() => loadConfig({ LOG_LEVEL: 'silent', BACKUP_KEEP: '0' })).toThrow()
  })
})
