/**
 * Issue 25: can the embedded database run with fsync on? PGlite starts PostgreSQL with `-F`
 * (fsync off). This probe starts it on a disk directory three ways and times 300 one-row
 * commits, counting the fsync calls that reach the file system:
 *   -F           PGlite's default: PostgreSQL never asks for fsync.
 *   fsync=on     without -F: PostgreSQL asks, but Emscripten's NODEFS has no fsync operation,
 *                so each request returns success having done nothing (no durability gained).
 *   fsync=on+fs  without -F, and NODEFS's stream_ops given an fsync that calls fs.fsyncSync;
 *                the WAL is still flushed with fdatasync (wal_sync_method's default), which
 *                does not reach the file system's operations at all.
 *   …+wal_sync_method=fsync  the WAL flushed with fsync too: every commit reaches the disk.
 */
import { PGlite } from '@electric-sql/pglite'
import { fsyncSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { EMBEDDED_SETTINGS } from '../src/db/connect.ts'
import { shippedTemplate, unpackTemplate } from '../src/db/embedded-template.ts'

const base = process.env.PROBE_DIR ?? process.cwd()
const defaults = (PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams
for (const mode of ['-F', 'fsync=on', 'fsync=on+fs', 'fsync=on+fs+wal_sync_method=fsync'] as const) {
  const dir = await mkdtemp(join(base, '.probe-fsync-'))
  const params = [...(mode === '-F' ? defaults : defaults.filter((p) => p !== '-F')), ...EMBEDDED_SETTINGS.flatMap((s) => ['-c', s]), ...(mode.endsWith('wal_sync_method=fsync') ? ['-c', 'wal_sync_method=fsync'] : [])]
  await unpackTemplate((await shippedTemplate())!, join(dir, 'pgdata'))
  const db: any = await PGlite.create(join(dir, 'pgdata'), { startParams: params })
  // NODEFS's stream operations: one object shared by every open file of the data directory.
  const nodefs = { stream_ops: db.mod.FS.streams.find((s: any) => s?.nfd !== undefined).stream_ops }
  let asked = 0
  let synced = 0
  const original = nodefs.stream_ops.fsync
  nodefs.stream_ops.fsync = (stream: { nfd?: number }) => {
    asked++
    if (mode.startsWith('fsync=on+fs') && stream.nfd !== undefined) (fsyncSync(stream.nfd), synced++)
    return 0
  }
  await db.exec('create table t (id int primary key, v text)')
  const started = performance.now()
  for (let i = 0; i < 300; i++) await db.query('insert into t values ($1, $2)', [i, 'x'])
  const ms = performance.now() - started
  const fsync = (await db.query(`select current_setting('fsync') as f`)).rows[0].f
  await db.close()
  nodefs.stream_ops.fsync = original
  console.log(JSON.stringify({ mode, fsyncSetting: fsync, originalFsyncOp: typeof original, commits: 300, ms: Math.round(ms), perCommitMs: +(ms / 300).toFixed(2), fsyncRequests: asked, fsyncsDone: synced }))
  await rm(dir, { recursive: true, force: true })
}
