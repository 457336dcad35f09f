import type { Sql } from '../db/connect.ts'
import type { FileStorage } from './storage.ts'

const BATCH = 500

export interface SweepResult {
  /** Temp files of processes that are gone. */
  tempRemoved: number
  /** Stored objects old enough to judge. */
  checked: number
  /** Of those, the ones no row referenced. */
  orphansRemoved: number
}

/** Keys of `keys` that a submission, a resource or a waiting course import references. */
async function referenced(sql: Sql, keys: string[]): Promise<Set<string>> {
  const rows = await sql<{ k: string }[]>`
    select storage_key as k from experiment_submissions where storage_key = any(${keys}::text[])
    union
    select storage_key as k from course_resources where storage_key = any(${keys}::text[])
    union
    select storage_key as k from submission_files where storage_key = any(${keys}::text[])
    union
    select storage_key as k from course_imports where storage_key = any(${keys}::text[])`
  return new Set(rows.map((r) => r.k))
}

/**
 * Removes what crashes leave behind in the file storage: temp files of processes that are
 * gone, and stored objects that no row references (a file stored just before a crash, or
 * whose row insert failed and whose removal failed too). An object younger than the grace
 * period is never judged: its row may be about to be inserted. Safe on several instances at
 * once (sharing the volume or the bucket): a key is removed only when no row references it,
 * a row is never inserted for an object older than the grace period, and removing is
 * idempotent, so two sweeps at once at worst remove the same orphan twice.
 */
export async function sweepStorage(sql: Sql, storage: FileStorage, now: Date, graceSeconds: number): Promise<SweepResult> {
  const tempRemoved = await storage.sweepTemp(now)
  const cutoff = now.getTime() - graceSeconds * 1000
  let checked = 0
  let orphansRemoved = 0
  let batch: string[] = []
  const flush = async () => {
    if (!batch.length) return
    const keep = await referenced(sql, batch)
    for (const key of batch) {
      if (keep.has(key)) continue
      await storage.remove(key)
      orphansRemoved++
    }
    batch = []
  }
  for await (const o of storage.list()) {
    if (o.modifiedAt.getTime() > cutoff) continue
    checked++
    batch.push(o.key)
    if (batch.length >= BATCH) await flush()
  }
  await flush()
  return { tempRemoved, checked, orphansRemoved }
}
