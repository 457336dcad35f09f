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

export interface RetryStartOptions {
  /** Fields of every log line (the host, the data directory). */
  fields: Record<string, unknown>
  /** The log line of a failed attempt, and the message of giving up (exit). */
  retrying: string
  givingUp: string
  timeoutMessage: string
  timeoutSeconds: number
  log: Logger
  isRetryable: (e: unknown) => boolean
  /** Called before each wait (the caller opens the port to answer 503 meanwhile). */
  onWait?: () => void
  sleep?: (ms: number) => Promise<void>
}

/**
 * Runs `attempt` until it succeeds (issue 49): a dependency missing at start (PostgreSQL
 * unreachable, the disk under DATA_DIR full) is retried with backoff, one JSON log line per
 * attempt (never a stack), instead of ending the process. `timeoutSeconds` 0 waits for ever;
 * otherwise the wait ends with DatabaseStartTimeout. Other errors (a wrong password, an unknown
 * database) end the start at once, as before.
 */
export async function retryStart<T>(attempt: () => Promise<T>, o: RetryStartOptions): Promise<T> {
  const started = performance.now()
  const sleep = o.sleep ?? ((ms: number) => Bun.sleep(ms))
  for (let n = 1; ; n++) {
    try {
      const result = await attempt()
      if (n > 1) o.log.info('start: dependency available', { ...o.fields, attempt: n })
      return result
    } catch (e) {
      if (!o.isRetryable(e)) throw e
      const waitedSeconds = (performance.now() - started) / 1000
      const retryInMs = startBackoffMs(n)
      const fields = { ...o.fields, attempt: n, code: (e as { code?: unknown })?.code, error: String((e as Error)?.message ?? e) }
      if (o.timeoutSeconds > 0 && waitedSeconds + retryInMs / 1000 > o.timeoutSeconds) {
        o.log.error(o.givingUp, { ...fields, timeoutSeconds: o.timeoutSeconds })
        throw new DatabaseStartTimeout(o.timeoutMessage)
      }
      o.log.warn(o.retrying, { ...fields, retryInMs })
      o.onWait?.()
      await sleep(retryInMs)
    }
  }
}

/** Waits until PostgreSQL at `host` answers `select 1` (see retryStart). */
export function waitForDatabase(
  sql: Sql,
  o: { host: string; timeoutSeconds: number; log: Logger; isUnreachable: (e: unknown) => boolean; onWait?: () => void; sleep?: (ms: number) => Promise<void> },
): Promise<unknown> {
  return retryStart(() => sql`select 1`, {
    fields: { host: o.host },
    retrying: 'database unreachable; retrying',
    givingUp: 'database unreachable; giving up (DB_START_TIMEOUT_SECONDS)',
    timeoutMessage: `The database at ${o.host} was unreachable for ${o.timeoutSeconds} s (DB_START_TIMEOUT_SECONDS).`,
    timeoutSeconds: o.timeoutSeconds,
    log: o.log,
    isRetryable: o.isUnreachable,
    onWait: o.onWait,
    sleep: o.sleep,
  })
}
