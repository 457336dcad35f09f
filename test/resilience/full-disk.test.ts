import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { open, readdir, rm, stat, truncate } from 'node:fs/promises'
import { join } from 'node:path'
import { teacherWithCourse } from '../support/harness.ts'
import { passDatabase, runBackupCommand, startService, type ServiceProcess } from '../support/processes.ts'
import { waitFor } from '../support/wait.ts'
import { mountSmallDisk, type SmallDisk } from './support.ts'

/*
 * Issue 49: a full disk under DATA_DIR. The first upload to meet ENOSPC used to end the process
 * (Bun's file writer rejected with nobody listening) and, before that, an upload could be
 * acknowledged with a truncated file; the embedded database answered its writes 500 (SQLSTATE
 * 53100). Now: 507 50701, the process stays up, and serves again once space is freed.
 *
 * A real service process whose DATA_DIR is on a 96 MiB tmpfs (the embedded database's files take
 * ~40 MiB of it), filled until ENOSPC by a file of the test's.
 */

const disk: { mount?: SmallDisk; reason?: string } = {}
let svc: ServiceProcess | undefined
const db = await passDatabase('cls_full')

beforeAll(async () => {
  const mounted = await mountSmallDisk(96)
  if (typeof mounted === 'string') disk.reason = mounted
  else disk.mount = mounted
})
afterAll(async () => {
  if (svc) await svc.stop()
  await db.drop()
  await disk.mount?.unmount()
})

const uploadForm = (bytes: number, name: string) => {
  const form = new FormData()
  form.set('name', name)
  form.set('type', 'FILE')
  form.set('file', new File([new Uint8Array(bytes).fill(0x61)], `${name}.bin`))
  return form
}

/** Writes a file of zeros until the disk says ENOSPC; returns its path. */
async function fillDisk(dir: string): Promise<string> {
  const path = join(dir, 'filler')
  const handle = await open(path, 'w')
  const chunk = new Uint8Array(256 * 1024)
  try {
    for (;;) await handle.write(chunk)
  } catch (e: any) {
    if (e?.code !== 'ENOSPC') throw e
  } finally {
    await handle.close()
  }
  return path
}

describe('the disk under DATA_DIR fills up', () => {
  test('uploads (512 KiB and 12 MiB) and database writes answer 507 50701; the process stays up and serves again once space is freed', async () => {
    if (!disk.mount) {
      console.warn(`skipped: ${disk.reason}`)
      return
    }
    const dataDir = join(disk.mount.dir, 'data')
    svc = await startService({ dataDir, env: { ...db.env, JWT_SECRET: 'full-disk-test-secret-full-disk-test-0000', LOG_LEVEL: 'info', REMINDER_SCAN_CRON: 'off', BACKUP_CRON: 'off' } })
    const { teacher, courseId } = await teacherWithCourse(svc.api)
    const before = await svc.api.post(`/courses/${courseId}/resources`, { token: teacher.token, form: uploadForm(100_000, 'before') })
    expect(before.status).toBe(201)

    const filler = await fillDisk(disk.mount.dir)
    for (const bytes of [512 * 1024, 12 * 1024 * 1024]) {
      const r = await svc.api.post(`/courses/${courseId}/resources`, { token: teacher.token, form: uploadForm(bytes, `full-${bytes}`) })
      expect([r.status, r.code, r.message, r.data]).toEqual([507, 50701, 'Storage is full; nothing was stored. Please try again later.', null])
      expect(JSON.stringify(r.body)).not.toContain(' at ')
    }
    if (!db.env.DATABASE_URL) {
      // The embedded database's files are on the same disk: a write that needs room is refused the same way.
      // Random letters, so the stored row is not compressed away: the table has to grow.
      const big = '<p>' + Buffer.from(crypto.getRandomValues(new Uint8Array(70_000))).toString('base64') + '</p>'
      let refused: { status: number; code: number } | undefined
      for (let i = 0; i < 200 && !refused; i++) {
        const r = await svc.api.post(`/courses/${courseId}/announcements`, { token: teacher.token, json: { title: `A${i}`, content: big } })
        if (r.status !== 201) refused = { status: r.status, code: r.code }
      }
      expect(refused).toEqual({ status: 507, code: 50701 })
      // A backup asked for now is refused before its CHECKPOINT (which on a full disk left PGlite
      // spinning for ever, and the whole process with it); the service goes on answering.
      const backup = runBackupCommand(dataDir)
      expect(await backup.exited).toBe(1)
      expect(await new Response(backup.stderr).text()).toContain('Backup failed')
      const health = await fetch(`${svc.url}/status/health`, { signal: AbortSignal.timeout(3_000) })
      expect(health.status).toBe(200)
    }
    // Alive, and reads still work while the disk is full.
    expect(svc.proc.exitCode).toBeNull()
    expect((await fetch(`${svc.url}/status/health`)).status).toBe(200)
    const list = await svc.api.get(`/courses/${courseId}/resources`, { token: teacher.token })
    expect(list.status).toBe(200)
    expect(list.data.items.map((i: { name: string }) => i.name)).toEqual(['before'])

    await rm(filler)
    const after = await svc.api.post(`/courses/${courseId}/resources`, { token: teacher.token, form: uploadForm(512 * 1024, 'after') })
    expect(after.status).toBe(201)
    if (!db.env.DATABASE_URL) {
      const a = await svc.api.post(`/courses/${courseId}/announcements`, { token: teacher.token, json: { title: 'after', content: '<p>ok</p>' } })
      expect(a.status).toBe(201)
    }
    // Nothing acknowledged is lost: both files come back whole.
    for (const [id, bytes] of [[before.data.id, 100_000], [after.data.id, 512 * 1024]] as const) {
      const file = await fetch(`${svc.url}/api/v1/resources/${id}/file`, { headers: { authorization: `Bearer ${teacher.token}` } })
      expect(file.status).toBe(200)
      expect((await file.arrayBuffer()).byteLength).toBe(bytes)
    }
    let earlier = ''
    if (!db.env.DATABASE_URL) {
      // Stopped on a full disk: the shutdown leaves out the checkpoint it cannot write, and the next
      // start recovers every acknowledged row from the WAL.
      const again = await fillDisk(disk.mount.dir)
      expect(await svc.stop()).toBe(0)
      earlier = svc.output()
      await rm(again)
      svc = await startService({ dataDir, env: { ...db.env, JWT_SECRET: 'full-disk-test-secret-full-disk-test-0000', LOG_LEVEL: 'info', BACKUP_CRON: 'off' } })
      const names = (await svc.api.get(`/courses/${courseId}/resources`, { token: teacher.token })).data.items.map((i: { name: string }) => i.name).sort()
      expect(names).toEqual(['after', 'before'])
    }
    const log = earlier + svc.output()
    expect(log).toContain('"msg":"storage full"')
    expect(log).not.toContain('unhandled')
    expect(log).not.toContain('"stack"')
  }, 60_000)
})

describe.skipIf(Boolean(process.env.DATABASE_URL))('a first start on a full disk (embedded database)', () => {
  test('waits, answering /status/health 503, leaves no half-copied database behind, and serves once space is freed', async () => {
    const mounted = await mountSmallDisk(80)
    if (typeof mounted === 'string') {
      console.warn(`skipped: ${mounted}`)
      return
    }
    const cleanup: (() => Promise<unknown>)[] = [() => mounted.unmount()]
    try {
      // Room for less than the database's first files (~40 MiB).
      const filler = await fillDisk(mounted.dir)
      await truncate(filler, (await stat(filler)).size - 20 * 1024 * 1024)
      const dataDir = join(mounted.dir, 'data')
      const starting = await startService({ dataDir, env: { JWT_SECRET: 'full-disk-test-secret-full-disk-test-0000', LOG_LEVEL: 'info' }, waitHealthy: false })
      cleanup.unshift(() => starting.stop())
      const health = await waitFor(async () => (await fetch(`${starting.url}/status/health`).catch(() => undefined)) ?? null, { timeoutMs: 20_000, intervalMs: 50, what: 'the port' })
      expect(health.status).toBe(503)
      expect(((await health.json()) as { data: unknown }).data).toEqual({ status: 'DOWN', database: 'DOWN' })
      await waitFor(() => (starting.output().match(/disk under DATA_DIR full at start; retrying/g)?.length ?? 0) >= 2, { timeoutMs: 15_000, what: 'two attempts' })
      expect((await readdir(dataDir)).filter((n) => n.startsWith('pgdata'))).toEqual([])
      expect(starting.proc.exitCode).toBeNull()

      await rm(filler)
      await waitFor(async () => (await fetch(`${starting.url}/status/health`).catch(() => undefined))?.status === 200, { timeoutMs: 30_000, intervalMs: 100, what: 'healthy' })
      const { teacher, courseId } = await teacherWithCourse(starting.api)
      expect((await starting.api.post(`/courses/${courseId}/resources`, { token: teacher.token, form: uploadForm(1000, 'first') })).status).toBe(201)
      expect(starting.output()).not.toContain('"stack"')
    } finally {
      for (const c of cleanup) await c()
    }
  }, 60_000)
})
