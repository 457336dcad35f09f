import { afterAll, describe, expect, test } from 'bun:test'
import { mkdir, rm, utimes, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { newId } from '../../src/lib/ids.ts'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { sweepStorage } from '../../src/storage/sweep.ts'
import { world } from '../experiments/world.ts'
import { uniq, type TestContext } from '../support/harness.ts'
import { appOn, BACKENDS, discardStorage, filesUnder, formOf, sampleBytes, storedFiles } from './helpers.ts'

/** Issue 11.4: what crashes leave behind in the file storage is collected. */
const roots: string[] = []
const apps: TestContext[] = []
afterAll(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true })
  for (const a of apps) await discardStorage(a.deps.storage)
})

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const p = Bun.spawn(['true'])
  await p.exited
  return p.pid
}
const HOST = hostname().replace(/[^A-Za-z0-9-]/g, '_')

describe('temp files of uploads (local disk)', () => {
  test('.part files of dead processes go at start and on every sweep, however fresh; those of live ones stay', async () => {
    const root = join(tmpdir(), uniq('cls-leftovers-'))
    roots.push(root)
    const tmp = join(root, 'tmp')
    await mkdir(tmp, { recursive: true })
    const dead = await deadPid()
    const deadFile = `${newId()}.${HOST}.${dead}.part`
    const liveFile = `${newId()}.${HOST}.${process.pid}.part`
    const otherHost = `${newId()}.another-host.${dead}.part`
    for (const f of [deadFile, liveFile, otherHost]) await writeFile(join(tmp, f), 'half')

    // At start: the dead process's file goes; ours and another host's (cannot be checked, young) stay.
    const storage = await LocalDiskStorage.create(root)
    expect(await filesUnder(tmp)).toEqual([liveFile, otherHost].sort())

    // Periodically: a new leftover of a dead process goes too; another host's goes once it is an hour old.
    const dead2 = `${newId()}.${HOST}.${await deadPid()}.part`
    await writeFile(join(tmp, dead2), 'half')
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000)
    await utimes(join(tmp, otherHost), old, old)
    expect(await storage.sweepTemp(new Date())).toBe(2)
    expect(await filesUnder(tmp)).toEqual([liveFile])
  })

  test('an upload in flight writes its temp file under this host and pid', async () => {
    const root = join(tmpdir(), uniq('cls-leftovers-'))
    roots.push(root)
    const storage = await LocalDiskStorage.create(root)
    let seen: string[] = []
    async function* body() {
      yield new Uint8Array(10)
      seen = await filesUnder(join(root, 'tmp'))
    }
    await storage.put(body())
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatch(new RegExp(`^[0-9a-f-]{36}\\.${HOST}\\.${process.pid}\\.part$`))
  })
})

describe.each(BACKENDS)('stored files without a row (%s)', (backend) => {
  test('the sweep removes objects no row references once older than the grace period, and nothing else', async () => {
    const ctx = await appOn(backend)
    apps.push(ctx)
    const w = await world(ctx, { students: 0 })
    const kept = await ctx.api.post(`/courses/${w.course.id}/resources`, {
      form: formOf({ name: 'Kept', type: 'FILE', file: new File([sampleBytes(5000)], 'kept.bin') }),
      token: w.teacher.token,
    })
    expect(kept.status).toBe(201)
    // A file stored just before a crash: no row will ever point at it.
    const orphan = await ctx.deps.storage.put(new Blob([sampleBytes(3000)]))
    const [row] = await ctx.deps.sql<{ storage_key: string }[]>`select storage_key from course_resources where id = ${kept.data.id}`
    expect((await storedFiles(ctx)).filter((f) => f.endsWith(orphan.key) || f.endsWith(row!.storage_key))).toHaveLength(2)

    // Within the grace period nothing is judged (its row may be on its way).
    const within = await sweepStorage(ctx.deps.sql, ctx.deps.storage, new Date(), 3600)
    expect(within).toEqual({ tempRemoved: 0, checked: 0, orphansRemoved: 0 })

    const later = new Date(Date.now() + 3600 * 1000 + 60_000)
    expect(await sweepStorage(ctx.deps.sql, ctx.deps.storage, later, 3600)).toEqual({ tempRemoved: 0, checked: 2, orphansRemoved: 1 })
    expect(await ctx.deps.storage.open(orphan.key)).toBeNull()
    const download = await ctx.api.get(`/resources/${kept.data.id}/file`, { token: w.teacher.token })
    expect(download.status).toBe(200)

    // Two instances sweeping at once: idempotent.
    const again = await Promise.all([1, 2].map(() => sweepStorage(ctx.deps.sql, ctx.deps.storage, later, 3600)))
    expect(again.map((r) => r.orphansRemoved)).toEqual([0, 0])
  }, 60_000)
})
