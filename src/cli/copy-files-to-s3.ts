/**
 * Copies a local file store (DATA_DIR/files, or --from <dir>) into the bucket that the S3_*
 * variables name, under the same keys, so the database rows keep pointing at their files.
 * Safe to rerun: objects already there with the same size are skipped. Run it with the
 * service stopped (or before switching to FILE_STORAGE=s3), then start with FILE_STORAGE=s3:
 *
 *   S3_BUCKET=... S3_ENDPOINT=... S3_ACCESS_KEY_ID=... S3_SECRET_ACCESS_KEY=... \
 *     bun run src/cli/copy-files-to-s3.ts [--from ./data/files]
 */
import { join } from 'node:path'
import { ConfigError, loadConfig } from '../config.ts'
import { LocalDiskStorage } from '../storage/local-disk.ts'
import { S3Storage } from '../storage/s3.ts'

export async function copyFilesToS3(from: string, to: S3Storage, log: (line: string) => void = () => {}) {
  const local = new LocalDiskStorage(from)
  const counts = { copied: 0, skipped: 0, bytes: 0 }
  for await (const o of local.list()) {
    const file = Bun.file(local.pathOf(o.key))
    const result = await to.copyIn(o.key, file)
    counts[result]++
    if (result === 'copied') counts.bytes += file.size
    log(`${result} ${o.key} (${file.size} bytes)`)
  }
  return counts
}

if (import.meta.main) {
  try {
    const config = loadConfig({ ...process.env, FILE_STORAGE: 's3' })
    const i = process.argv.indexOf('--from')
    const from = i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : join(config.dataDir, 'files')
    const target = new S3Storage({ ...config.s3, bucket: config.s3.bucket! })
    const counts = await copyFilesToS3(from, target, (line) => console.log(line))
    console.log(`done: ${counts.copied} copied (${counts.bytes} bytes), ${counts.skipped} already there`)
  } catch (e) {
    console.error(e instanceof ConfigError ? e.message : `copy failed: ${(e as Error)?.message ?? e}`)
    process.exit(1)
  }
}
