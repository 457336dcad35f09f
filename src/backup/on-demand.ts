import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '../lib/log.ts'

/**
 * `bun run backup` (src/cli/backup.ts) while the service runs: the embedded database belongs to
 * the service's process (PGlite has one writer), so the command asks the service to take the
 * backup. It leaves a request file in BACKUP_DIR and sends SIGUSR2 to the pid the service wrote
 * in DATA_DIR/service.pid; the service answers each request file with the backup's path (or the
 * error) in an answer file the command then prints. With the service stopped the command opens
 * the database itself.
 */
export const PID_FILE = 'service.pid'
export const requestName = (pid: number) => `.request-${pid}`
export const answerName = (pid: number) => `.answer-${pid}.json`
const REQUEST = /^\.request-(\d+)$/

export interface BackupAnswer {
  path?: string
  error?: string
}

/** Runs `take` one at a time: a backup asked for while another runs waits for it. */
export function oneAtATime<A, T>(take: (arg: A) => Promise<T>): (arg: A) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve()
  return (arg: A) => {
    const run = () => take(arg)
    const next = last.then(run, run)
    last = next.catch(() => {})
    return next
  }
}

/** Takes one backup for every request file in `backupDir` and answers each. */
export async function answerBackupRequests(backupDir: string, take: () => Promise<{ path: string }>, log: Logger): Promise<void> {
  const requests = (await readdir(backupDir).catch(() => [] as string[])).filter((n) => REQUEST.test(n))
  if (!requests.length) return
  let answer: BackupAnswer
  try {
    answer = { path: (await take()).path }
  } catch (e) {
    answer = { error: String((e as Error)?.message ?? e) }
    log.error('on-demand backup failed', { error: answer.error })
  }
  for (const name of requests) {
    const pid = Number(REQUEST.exec(name)![1])
    const tmp = join(backupDir, `${answerName(pid)}.tmp`)
    try {
      await writeFile(tmp, JSON.stringify(answer), { mode: 0o600 })
      await rename(tmp, join(backupDir, answerName(pid)))
    } catch (e) {
      // A full disk cannot take the answer either: the request file's going tells the command.
      await rm(tmp, { force: true }).catch(() => {})
      log.warn('on-demand backup: cannot write the answer', { error: String((e as Error)?.message ?? e) })
    }
    await rm(join(backupDir, name), { force: true })
  }
}

/** Writes DATA_DIR/service.pid; returns a function that removes it (at shutdown). */
export async function writePidFile(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true })
  const path = join(dataDir, PID_FILE)
  await writeFile(path, String(process.pid))
  return async () => {
    if ((await readFile(path, 'utf8').catch(() => '')).trim() === String(process.pid)) await rm(path, { force: true })
  }
}
