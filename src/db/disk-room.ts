import { statfs } from 'node:fs/promises'

/**
 * Room the embedded database needs before a CHECKPOINT (a backup's, the one db.close() takes at
 * shutdown, the one that ends crash recovery at start): the next WAL segment it may preallocate
 * (16 MiB) and a few small new files, with room to spare.
 * Measured (issue 49): a CHECKPOINT that meets ENOSPC fails with 53100, and the next statement
 * then spins inside PGlite for ever (the process's event loop with it: no request, no timer is
 * served again). So a checkpoint is not attempted on a disk this full.
 */
export const CHECKPOINT_ROOM_BYTES = 32 * 1024 * 1024

/** Free bytes for this process on the file system holding `path`; Infinity when it cannot be told. */
export async function freeBytes(path: string): Promise<number> {
  try {
    const s = await statfs(path)
    return Number(s.bavail) * Number(s.bsize)
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/** True when the disk under `path` has room for a checkpoint of the embedded database. */
export const roomForCheckpoint = async (path: string) => (await freeBytes(path)) >= CHECKPOINT_ROOM_BYTES
