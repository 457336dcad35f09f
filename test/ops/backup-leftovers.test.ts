import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { teacherWithCourse } from '../support/harness.ts'
import { runBackupCommand, startService } from '../support/processes.ts'

/*
 * Issue 49: a backup killed half-way (kill -9) left its `.part` file and its staging folder of
 * hard links behind for ever, also after the next successful backup; and there was no way to
 * take one on demand. Now `bun run backup` takes one (through the running service, or by itself
 * when the service is stopped) and prints the file; leftovers go at the next start and before
 * the next backup. The embedded database only (a PostgreSQL server has its own tools).
 */
const cleanup: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
})

const inProgress = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).filter((n) => n.startsWith('.staging-') || n.endsWith('.part'))

const runBackup = runBackupCommand

describe.skipIf(Boolean(process.env.DATABASE_URL))('backups on demand and after a kill -9', () => {
  test('a backup killed half-way leaves nothing after the next start; `bun run backup` prints the new file, with the service running or stopped', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cls-backup-kill-'))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    const backups = join(dataDir, 'backups')
    const env = { JWT_SECRET: 'backup-kill-test-secret-backup-kill-test-00', BACKUP_CRON: 'off', REMINDER_SCAN_CRON: 'off' }
    let svc = await startService({ env, dataDir })
    cleanup.push(async () => svc.proc.exitCode === null && svc.stop())
    const { teacher, courseId } = await teacherWithCourse(svc.api)
    const form = new FormData()
    form.set('name', 'notes')
    form.set('type', 'FILE')
    form.set('file', new File([new Uint8Array(300_000).fill(1)], 'notes.bin'))
    expect((await svc.api.post(`/courses/${courseId}/resources`, { token: teacher.token, form })).status).toBe(201)

    // On demand while the service runs: the service takes it and the command prints the file.
    const online = runBackup(dataDir)
    expect(await online.exited).toBe(0)
    const printed = (await new Response(online.stdout).text()).trim()
    expect(printed).toMatch(/backup-\d{8}T\d{6}Z(-\d+)?\.tar$/)
    expect((await stat(printed)).size).toBeGreaterThan(300_000)
    expect((await svc.api.get(`/courses/${courseId}/resources`, { token: teacher.token })).status).toBe(200)
    await svc.stop()

    // Stopped: the command opens the database itself; killed (-9) as soon as its staging folder appears.
    const killHalfWay = async () => {
      const killed = runBackup(dataDir)
      let seen: string[] = []
      for (let i = 0; i < 3000 && !seen.length && killed.exitCode === null; i++) {
        seen = await inProgress(backups)
        // Polling the folder for the staging folder to appear (a state of another process's file system).
        if (!seen.length) await Bun.sleep(5)
      }
      killed.kill('SIGKILL')
      await killed.exited
      expect(seen.length).toBeGreaterThan(0)
      expect((await inProgress(backups)).length).toBeGreaterThan(0)
    }
    await killHalfWay()

    // The next start removes them.
    svc = await startService({ env, dataDir })
    expect(await inProgress(backups)).toEqual([])
    expect(svc.output()).not.toContain('"stack"')
    await svc.stop()

    // Killed again: this time the next backup (of a stopped service) removes them, and succeeds.
    await killHalfWay()
    const offline = runBackup(dataDir)
    expect(await offline.exited).toBe(0)
    const second = (await new Response(offline.stdout).text()).trim()
    expect((await stat(second)).isFile()).toBe(true)
    expect((await readdir(backups)).filter((n) => !/^backup-.*\.tar$/.test(n))).toEqual([])
  }, 90_000)
})
