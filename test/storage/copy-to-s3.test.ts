import { afterAll, expect, test } from 'bun:test'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { S3Storage } from '../../src/storage/s3.ts'
import { uniq } from '../support/harness.ts'
import { ROOT } from '../support/processes.ts'
import { sharedS3Server } from '../support/s3.ts'
import { discardStorage, sampleBytes } from './helpers.ts'

const root = join(tmpdir(), uniq('cls-copy-'))
let bucket: S3Storage | undefined
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
  if (bucket) await discardStorage(bucket)
})

test('copy-files-to-s3 copies a local store into the bucket under the same keys; a rerun skips them', async () => {
  const local = await LocalDiskStorage.create(root)
  const a = await local.put(new Blob([sampleBytes(3000, 1)]))
  const b = await local.put(new Blob([sampleBytes(200_000, 2)]))
  // A temp file of an upload in flight is not a stored file.
  await mkdir(join(root, 'tmp'), { recursive: true })
  await writeFile(join(root, 'tmp', 'x.part'), 'partial')

  const s3 = await sharedS3Server()
  const prefix = `${uniq('copy-')}/`
  bucket = new S3Storage({ bucket: s3.bucket, endpoint: s3.endpoint, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, prefix })
  const run = async () => {
    const proc = Bun.spawn(['bun', 'run', 'src/cli/copy-files-to-s3.ts', '--from', root], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: '', ...s3.env(prefix) },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
    return { out, err, code }
  }

  const first = await run()
  expect(first.code).toBe(0)
  expect(first.out).toContain('done: 2 copied')
  const keys: string[] = []
  for await (const o of bucket.list()) keys.push(o.key)
  expect(keys.sort()).toEqual([a.key, b.key].sort())
  for (const k of [a, b]) {
    const back = new Uint8Array(await new Response(await bucket.open(k.key)).arrayBuffer())
    const orig = new Uint8Array(await (await local.open(k.key))!.arrayBuffer())
    expect(Bun.hash(back)).toBe(Bun.hash(orig))
  }

  const second = await run()
  expect(second.code).toBe(0)
  expect(second.out).toContain('done: 0 copied (0 bytes), 2 already there')
}, 60_000)
