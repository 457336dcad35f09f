import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, ROOT } from './processes.ts'
import { waitFor } from './wait.ts'

/**
 * A real S3-compatible server for the tests: `s3rver` (npm), which speaks the S3 protocol
 * over HTTP and keeps objects on disk, run as its own process on 127.0.0.1 with one bucket.
 */
export interface S3Server {
  endpoint: string
  bucket: string
  accessKeyId: string
  secretAccessKey: string
  region: string
  /** The environment a service process needs to use this bucket. */
  env(prefix?: string): Record<string, string>
  stop(): Promise<void>
}

export const S3_BUCKET = 'cls-test'

export async function startS3Server(): Promise<S3Server> {
  const dir = await mkdtemp(join(tmpdir(), 'cls-s3rver-'))
  const port = await freePort()
  const proc = Bun.spawn(
    ['bun', join(ROOT, 'test', 'support', 's3rver-child.ts'), dir, String(port), S3_BUCKET, String(process.pid)],
    { stdout: 'ignore', stderr: 'pipe' },
  )
  // It exits by itself once this process is gone (s3rver-child.ts watches it).
  const endpoint = `http://127.0.0.1:${port}`
  const up = await waitFor(
    async () => {
      if (proc.exitCode !== null) throw new Error(`s3rver exited with ${proc.exitCode}`)
      const r = await fetch(`${endpoint}/${S3_BUCKET}?list-type=2&max-keys=1`).catch(() => undefined)
      // Unsigned requests are refused (403), which proves the server and the bucket are up.
      return Boolean(r && r.status < 500)
    },
    { timeoutMs: 20_000, intervalMs: 100 },
  ).catch(() => false)
  if (!up) {
    proc.kill('SIGKILL')
    throw new Error('s3rver did not start')
  }
  const server: S3Server = {
    endpoint,
    bucket: S3_BUCKET,
    // s3rver's fixed development credentials.
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    region: 'us-east-1',
    env: (prefix = '') => ({
      FILE_STORAGE: 's3',
      S3_BUCKET,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      ...(prefix ? { S3_PREFIX: prefix } : {}),
    }),
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      await rm(dir, { recursive: true, force: true })
    },
  }
  return server
}

let shared: Promise<S3Server> | undefined
/** One s3rver per test process, started on first use and stopped when the process exits. */
export function sharedS3Server(): Promise<S3Server> {
  shared ??= startS3Server()
  return shared
}
