import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Deps, Runner } from '../../deps.ts'
import { ERROR_CATALOGUE } from '../../http/errors.ts'
import { isLocale } from '../../i18n/locale.ts'
import { renderMessage } from '../../i18n/messages.ts'
import { sniff } from './archive.ts'
import { ccPlan } from './cc.ts'
import { ImportFailure } from './failure.ts'
import { moodlePlan } from './moodle.ts'
import * as q from './queries.ts'
import { scanPackage } from './scan.ts'
import { writePlan } from './write.ts'

/** How long a claim holds an import before another instance may take it over (renewed with the progress). */
export const LEASE_MS = 2 * 60 * 1000
/** A package whose import was cut off this many times (the process killed each time) fails. */
const MAX_ATTEMPTS = 3

const failure = (name: keyof typeof ERROR_CATALOGUE, message: string) => ({ code: ERROR_CATALOGUE[name].code, message })

/**
 * Runs due imports one after the other until none is left (any instance; SKIP LOCKED claims with
 * a lease). Each: the package copied to a temporary file, read once (documents in memory, files
 * streamed into the storage), mapped to a plan, written as a course in one transaction; the
 * stored files the plan did not use and the package are removed. A failure removes every file it
 * stored and ends FAILED with its code and message; a killed process leaves a lease that runs out,
 * and the next runner starts the import again from the package (or fails it after three tries).
 */
export async function runImports(deps: Deps, now: () => Date = () => deps.clock.now()): Promise<number> {
  let done = 0
  for (;;) {
    const job = await q.claimImport(deps.sql, now(), LEASE_MS)
    if (!job) return done
    done++
    if (job.attempts > MAX_ATTEMPTS || !job.storage_key) {
      await q.markFailed(deps.sql, job.id, failure('IMPORT_INTERRUPTED', 'The import stopped before it finished; nothing was created. Try again.'), now())
      continue
    }
    await runOne(deps, job, now)
  }
}

async function runOne(deps: Deps, job: q.ImportRow & { locale: string | null }, now: () => Date) {
  const { sql, storage, log } = deps
  const dir = await mkdtemp(join(tmpdir(), 'course-import-'))
  const path = join(dir, 'package')
  let stored = new Map<string, { key: string; size: number }>()
  let lastProgress = -1
  const progress = async (p: number) => {
    const v = Math.max(0, Math.min(99, Math.floor(p)))
    if (v === lastProgress) return
    lastProgress = v
    await q.markProgress(sql, job.id, job.attempts, v, now(), LEASE_MS)
  }
  try {
    const source = await storage.open(job.storage_key!)
    if (!source) throw new ImportFailure('IMPORT_INTERRUPTED', 'The import stopped before it finished; nothing was created. Try again.')
    if (source instanceof Blob) await Bun.write(path, source)
    else await Bun.write(path, new Response(source))
    const kind = await sniff(path)
    if (!kind) throw new ImportFailure('IMPORT_NOT_A_PACKAGE', 'The file is neither a Moodle backup nor a Common Cartridge package.')
    let pending: Promise<void> = Promise.resolve()
    const scanned = await scanPackage(path, kind, storage, {
      maxExtractedBytes: deps.config.importMaxExtractedBytes,
      onProgress: (share) => {
        pending = pending.then(() => progress(share * 90)).catch(() => {})
      },
    })
    await pending
    stored = scanned.files
    const locale = isLocale(job.locale) ? job.locale : 'en'
    const topic = (n: number) => (n === 0 ? renderMessage(locale, 'error', 'importGeneralSection') : renderMessage(locale, 'error', 'importTopic', { n: String(n) }))
    const paths = new Set(stored.keys())
    const plan = scanned.texts.has('moodle_backup.xml')
      ? moodlePlan(scanned.texts, paths, job.shift_days, topic)
      : scanned.texts.has('imsmanifest.xml')
        ? ccPlan(scanned.texts, paths, job.shift_days, topic)
        : null
    if (!plan) throw new ImportFailure('IMPORT_NOT_A_PACKAGE', 'The file is neither a Moodle backup nor a Common Cartridge package.')
    await progress(92)
    const at = now()
    const { courseId, created, usedKeys } = await writePlan(sql, plan, stored, job.teacher_id, at)
    // The report is text from the package: no control characters into jsonb (it refuses \u0000).
    const clean = (v: string) => v.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, 300)
    const skipped = plan.skipped.map((x) => ({ kind: clean(x.kind), title: clean(x.title), reason: clean(x.reason) }))
    const ok = await q.markDone(sql, job.id, job.attempts, courseId, { created, skipped }, now())
    if (!ok) {
      // Another runner took the import over (this one's lease ran out): its course stands, not ours.
      await sql`delete from courses where id = ${courseId}`
      throw new ImportFailure('IMPORT_INTERRUPTED', 'The import stopped before it finished; nothing was created. Try again.')
    }
    for (const [, f] of stored) if (!usedKeys.has(f.key)) await storage.remove(f.key).catch(() => {})
    await storage.remove(job.storage_key!).catch(() => {})
    log.info('course imported', { importId: job.id, courseId, ...created, skipped: skipped.length })
  } catch (e) {
    await Promise.allSettled([...stored.values()].map((f) => storage.remove(f.key)))
    const f =
      e instanceof ImportFailure
        ? failure(e.errorName, e.message)
        : failure('IMPORT_INTERRUPTED', 'The import stopped before it finished; nothing was created. Try again.')
    if (!(e instanceof ImportFailure)) log.error('course import failed', { importId: job.id, error: String((e as Error)?.stack ?? e) })
    await q.markFailed(sql, job.id, f, now())
    await storage.remove(job.storage_key!).catch(() => {})
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {})
  }
}

/**
 * This process's import runner (`Deps.imports`, built once by `withServices`): `kick` after an
 * upload starts it now (one loop at a time); IMPORT_CRON picks up the rest.
 */
export function createImportRunner(deps: Deps): Runner {
  let running: Promise<void> | null = null
  let again = false
  const kick = (): Promise<void> => {
    if (running) {
      again = true
      return running
    }
    running = (async () => {
      do {
        again = false
        await runImports(deps).catch((e) => deps.log.error('import runner failed', { error: String(e) }))
      } while (again)
    })().finally(() => (running = null))
    return running
  }
  return { kick }
}
