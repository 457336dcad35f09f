import type { Logger } from '../lib/log.ts'
import type { Sql } from './connect.ts'

/** Backoff between start attempts: 0.5 s, 1 s, 2 s, … at most 10 s. */
export const startBackoffMs = (attempt: number) => Math.min(10_000, 500 * 2 ** Math.max(0, attempt - 1))

/** Where the database is, for the log: host and port of DATABASE_URL, never its password. */
export function databaseHost(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname || 'localhost'}:${u.port || '5432'}`
  } catch {
    return 'unknown'
  }
}

export class DatabaseStartTimeout extends Error {}

/**
 * Waits until PostgreSQL answers (issue 49): an unreachable database at start is retried with
 * backoff, one JSON log line per attempt naming the host (never a stack), instead of ending the
 * process on the first refused connect. `timeoutSeconds` 0 waits for ever; otherwise the wait
 * ends with DatabaseStartTimeout. Errors other than an unreachable database (a wrong password,
 * an unknown database) are not waited out: they end the start at once, as before.
 */
export async function waitForDatabase(
  sql: Sql,
  o: { host: string; timeoutSeconds: number; log: Logger; isUnreachable: (e: unknown) => boolean; sleep?: (ms: number) => Promise<void> },
): Promise<number> {
  const started = performance.now()
  const sleep = o.sleep ?? ((ms: number) => Bun.sleep(ms))
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`select 1`
      if (attempt > 1) o.log.info('database reachable', { host: o.host, attempt })
      return attempt
    } catch (e) {
      if (!o.isUnreachable(e)) throw e
      const waitedSeconds = (performance.now() - started) / 1000
      const retryInMs = startBackoffMs(attempt)
      const fields = { host: o.host, attempt, code: (e as { code?: unknown })?.code, error: String((e as Error)?.message ?? e) }
      if (o.timeoutSeconds > 0 && waitedSeconds + retryInMs / 1000 > o.timeoutSeconds) {
        o.log.error('database unreachable; giving up (DB_START_TIMEOUT_SECONDS)', { ...fields, timeoutSeconds: o.timeoutSeconds })
        throw new DatabaseStartTimeout(`The database at ${o.host} was unreachable for ${o.timeoutSeconds} s (DB_START_TIMEOUT_SECONDS).`)
      }
      o.log.warn('database unreachable; retrying', { ...fields, retryInMs })
      await sleep(retryInMs)
    }
  }
}
