import { join } from 'node:path'
import type { Config } from '../config.ts'
import { LocalDiskStorage } from './local-disk.ts'
import { S3Storage } from './s3.ts'
import type { FileStorage } from './storage.ts'
import { guardStorage } from './guard.ts'
import type { Logger } from '../lib/log.ts'

/** The file storage FILE_STORAGE names: `DATA_DIR/files` on local disk (default) or an S3 bucket. */
export async function createStorage(config: Pick<Config, 'fileStorage' | 's3' | 'dataDir'>, log: Logger): Promise<FileStorage> {
  if (config.fileStorage === 's3') return guardStorage(new S3Storage({ ...config.s3, bucket: config.s3.bucket! }), 's3', log)
  return guardStorage(await LocalDiskStorage.create(join(config.dataDir, 'files')), 'local', log)
}
