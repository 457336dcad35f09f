import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdir, open } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import postgres from 'postgres'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { S3Storage } from '../../src/storage/s3.ts'
import type { StoredFile } from '../../src/storage/storage.ts'
import { scratchDatabase, startService, type ServiceProcess } from '../support/processes.ts'
import { startS3Server, type S3Server } from '../support/s3.ts'
import { signUp, teacherWithCourse } from '../support/harness.ts'
import { rssOf } from './api.ts'

const MB = 1024 * 1024
const STUDENTS = 8
const FILE_SIZE = 128 * MB

/**
 * The submissions zip of an experiment with 1 GiB of files (8 students × 128 MiB), downloaded
 * from a real service process: the files are streamed through one at a time, so RSS rises by
 * at most 64 MB. Local files are sparse (created by truncation); S3 objects are streamed in.
 * The rows are written straight into the service's database, so this needs DATABASE_URL.
 */
describe.skipIf(!process.env.DATABASE_URL).each(['local', 's3'])('a 1 GiB submissions zip on a real service process (%s storage)', (backend) => {
  let db: Awaited<ReturnType<typeof scratchDatabase>>
  let svc: ServiceProcess
  let s3: S3Server | undefined
  let sql: postgres.Sql
  beforeAll(async () => {
    db = await scratchDatabase('cls_zipmem')
    if (backend === 's3') s3 = await startS3Server()
    svc = await startService({ env: { DATABASE_URL: db.url, JWT_SECRET: 'x'.repeat(40), REMINDER_SCAN_CRON: 'off', BACKUP_CRON: 'off', ...s3?.env('zipmem/') } })
    sql = postgres(db.url, { max: 2, onnotice: () => {} })
  }, 90_000)
  afterAll(async () => {
    await sql?.end()
    await svc?.stop()
    await s3?.stop()
    await db?.drop()
  })

  /** A file of `size` bytes in the service's storage, without holding it in this process. */
  async function storeFile(size: number): Promise<StoredFile> {
    if (backend === 'local') {
      const storage = new LocalDiskStorage(join(svc.dataDir, 'files'))
      const key = Bun.randomUUIDv7()
      const path = storage.pathOf(key)
      await mkdir(dirname(path), { recursive: true })
      const handle = await open(path, 'w')
      await handle.truncate(size)
      await handle.close()
      return { key, size }
    }
    const storage = new S3Storage({ bucket: s3!.bucket, endpoint: s3!.endpoint, region: s3!.region, accessKeyId: s3!.accessKeyId, secretAccessKey: s3!.secretAccessKey, prefix: 'zipmem/' })
    const piece = new Uint8Array(MB).fill(0x61)
    let sent = 0
    return storage.put(
      new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent >= size) return c.close()
          const n = Math.min(piece.length, size - sent)
          c.enqueue(n === piece.length ? piece : piece.subarray(0, n))
          sent += n
        },
      }),
    )
  }

  async function experimentWith(courseId: string, token: string, students: { id: string }[], size: number) {
    const e = await svc.api.post(`/courses/${courseId}/experiments`, {
      token,
      json: { title: 'Big lab', description: '<p>x</p>', dueAt: new Date(Date.now() + 86400_000).toISOString() },
    })
    expect(e.status).toBe(201)
    for (const s of students) {
      const stored = await storeFile(size)
      await sql`
        insert into experiment_submissions (id, experiment_id, course_id, student_id, storage_key, file_name, file_size, content_type, submitted_at)
        values (${Bun.randomUUIDv7()}, ${e.data.id}, ${courseId}, ${s.id}, ${stored.key}, 'report.bin', ${stored.size}, 'application/octet-stream', now())`
    }
    return e.data.id as string
  }

  /** Downloads the zip, counting its bytes (nothing kept). */
  async function download(courseId: string, experimentId: string, token: string) {
    const res = await fetch(`${svc.url}/api/v1/courses/${courseId}/experiments/${experimentId}/submissions.zip`, { headers: { authorization: `Bearer ${token}` } })
    expect(res.status).toBe(200)
    let bytes = 0
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength
    return bytes
  }

  test('RSS rises by at most 64 MB while 1 GiB streams out', async () => {
    const { teacher, courseId } = await teacherWithCourse(svc.api)
    const [{ invite_code: code }] = await sql<[{ invite_code: string }]>`select invite_code from courses where id = ${courseId}`
    const students = []
    for (let i = 0; i < STUDENTS; i++) {
      const s = await signUp(svc.api, 'STUDENT')
      expect((await svc.api.post('/courses/join', { token: s.token, json: { inviteCode: code } })).status).toBe(200)
      students.push(s)
    }
    // Warm up: the zip path's code is loaded before idle is sampled.
    const small = await experimentWith(courseId, teacher.token, students.slice(0, 2), 32 * MB)
    expect(await download(courseId, small, teacher.token)).toBeGreaterThan(64 * MB)
    const big = await experimentWith(courseId, teacher.token, students, FILE_SIZE)

    const pid = svc.proc.pid
    async function attempt() {
      const idle = await rssOf(pid)
      let peak = idle
      let sampling = true
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await rssOf(pid))
          await Bun.sleep(25) // the sampling period, not a wait for state
        }
      })()
      const bytes = await download(courseId, big, teacher.token)
      sampling = false
      await sampler
      console.log(`zip RSS (${backend}): ${(bytes / MB).toFixed(0)} MB out, idle ${(idle / MB).toFixed(1)} MB, peak ${(peak / MB).toFixed(1)} MB`)
      expect(bytes).toBeGreaterThan(STUDENTS * FILE_SIZE)
      return peak - idle
    }
    // RSS moves with the collector's timing: a second download is judged if the first was over.
    let rise = await attempt()
    if (rise > 64 * MB) rise = Math.min(rise, await attempt())
    expect(rise).toBeLessThanOrEqual(64 * MB)
  }, 300_000)
})
