import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { passDatabase, startService } from '../support/processes.ts'
import { teacherWithCourse } from '../support/harness.ts'
import { waitFor } from '../support/wait.ts'

/**
 * Issue 11.4 on a real process: the `.part` file of an upload cut off by `kill -9` used to
 * survive restarts (only files older than an hour were removed). It carries the pid now, and
 * the next start removes it at once.
 */
/*
 * On both databases: in the embedded pass the process runs the embedded default in its DATA_DIR
 * (the README's quick start), so the kill -9 also cuts off its database, which the second start
 * must open again.
 */
describe('an upload killed mid-way', () => {
  const cleanup: (() => Promise<unknown>)[] = []
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c()
  })

  test('leaves a .part file named with its pid, removed at the next start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cls-crash-'))
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }))
    const db = await passDatabase('cls_crash')
    cleanup.push(() => db.drop())
    const env: Record<string, string> = { ...db.env, JWT_SECRET: 'crash-test-secret-crash-test-secret-0000', REMINDER_SCAN_CRON: 'off' }
    const first = await startService({ env, dataDir })
    const { teacher, courseId } = await teacherWithCourse(first.api)

    // A body that sends a first megabyte and then stalls.
    const boundary = 'stall'
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nBig\r\n--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nFILE\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
    )
    let step = 0
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (step++ === 0) c.enqueue(head)
        else if (step < 6) c.enqueue(new Uint8Array(256 * 1024))
        else await new Promise(() => {})
      },
    })
    const upload = fetch(`${first.url}/api/v1/courses/${courseId}/resources`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${teacher.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    }).catch(() => null)
    const tmp = join(dataDir, 'files', 'tmp')
    const parts = await waitFor(
      async () => {
        const found = (await readdir(tmp).catch(() => [])).filter((n) => n.endsWith('.part'))
        return found.length ? found : null
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the upload to create its .part file' },
    )
    expect(parts).toHaveLength(1)
    expect(parts[0]).toEndWith(`.${first.proc.pid}.part`)

    first.proc.kill('SIGKILL')
    await first.proc.exited
    await upload
    expect(await readdir(tmp)).toEqual(parts)

    const second = await startService({ env, dataDir })
    cleanup.push(() => second.stop())
    expect(await readdir(tmp)).toEqual([])
    // What was committed before the kill is served by the second process (its session, its course).
    const course = await second.api.get(`/courses/${courseId}`, { token: teacher.token })
    expect([course.status, course.code, course.data.id]).toEqual([200, 0, courseId])
  }, 90_000)
})
