/**
 * Runs s3rver for the tests and exits when the process that started it is gone (a test run
 * that is killed, or that ends without stopping it, leaves no server behind).
 * Usage: bun test/support/s3rver-child.ts <dir> <port> <bucket> <parent pid>
 */
import { rmSync } from 'node:fs'
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver'

const [dir, port, bucket, parent] = process.argv.slice(2) as [string, string, string, string]
const server = new S3rver({ port: Number(port), address: '127.0.0.1', directory: dir, silent: true, configureBuckets: [{ name: bucket, configs: [] }] } as any)
await server.run()
const stop = async () => {
  await server.close().catch(() => {})
  rmSync(dir, { recursive: true, force: true })
  process.exit(0)
}
process.on('SIGTERM', stop)
setInterval(() => {
  try {
    process.kill(Number(parent), 0)
  } catch {
    void stop()
  }
}, 500)
