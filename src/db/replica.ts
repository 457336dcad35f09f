import type { Sql } from './connect.ts'
import type { Logger } from '../lib/log.ts'

/*
 * A streaming read replica for the read-heavy routes (issue 55, DATABASE_REPLICA_URL; the
 * design is in docs/scaling.md, "Read replica").
 *
 * Read-your-writes: after a request by a user that may have written, the primary's WAL insert
 * position is stored as the user's marker (table replica_markers, `record`); the session lookup
 * of every request reads it along with the session (src/http/auth.ts), and a replica read for
 * that user is allowed only when the replica has replayed past it. Otherwise, and whenever the
 * replica is further behind than `maxLagMs` or unreachable, the read runs on the primary.
 *
 * The replica's position is checked at most once per `checkMs` per process (two one-row
 * statements, shared by every request of that moment); a request between two checks only
 * compares numbers.
 */

/** Where a read ran, and why the primary when it was not the replica. */
export type ReadTarget = 'replica' | 'primary'
export type ReadReason = 'current' | 'marker' | 'lagging' | 'down' | 'unknown' | 'failed'
export type ReplicaState = 'unknown' | 'current' | 'lagging' | 'down'

export interface ReplicaStatus {
  state: ReplicaState
  /** How far behind the primary the replica was at the last check (ms; a lower bound when lagging), null before any. */
  lagMs: number | null
  /** The replica's replay position at the last check (`X/Y`). */
  replayLsn: string | null
}

export interface ReadRouter {
  /**
   * Runs `read` on the replica when it may serve a reader whose marker is `marker` (null: no
   * write recorded), else on the primary. A replica that fails under the read (gone, restarting,
   * a query cancelled by recovery) is not the reader's problem: the read runs again on the primary.
   */
  run<T>(marker: string | null, read: (sql: Sql) => Promise<T>): Promise<T>
  /** The primary's current WAL insert position becomes `userId`'s marker (call after their write). */
  record(userId: string): Promise<void>
  status(): ReplicaStatus
  /** Checks the replica now (tests; requests check by themselves). */
  check(): Promise<ReplicaStatus>
}

export interface ReadRouterOptions {
  primary: Sql
  replica: Sql
  log: Logger
  /** A replica further behind than this serves nothing (REPLICA_MAX_LAG_MS). */
  maxLagMs: number
  /** An unreachable replica is tried again after this long (REPLICA_RETRY_SECONDS × 1000). */
  retryMs: number
  /** The replica's position is re-read when the last reading is older than this (default 50 ms). */
  checkMs?: number
  /** A request waits this long at most for a check under way, then reads from the primary (default 100 ms). */
  checkWaitMs?: number
  /** A monotonic clock in ms (default performance.now). */
  now?: () => number
  /** Metrics (src/metrics.ts, wired in server.ts): every read, and every state change. */
  observe?: {
    read(target: ReadTarget, reason: ReadReason): void
    state(status: ReplicaStatus): void
  }
}

/** An LSN (`X/Y`, hex) as a number of bytes. */
export function parseLsn(lsn: string): bigint {
  const slash = lsn.indexOf('/')
  if (slash < 0) throw new Error(`not an LSN: ${lsn}`)
  return (BigInt(`0x${lsn.slice(0, slash)}`) << 32n) | BigInt(`0x${lsn.slice(slash + 1)}`)
}

const WAL_PAGE = 8192n
/** Page header sizes: a short one, and the long one at the start of a segment. */
const PAGE_HEADERS = new Set([24n, 40n])

/**
 * Whether a replica that has replayed up to `replay` has everything the primary had at `mark`
 * (a `pg_current_wal_insert_lsn()`). An insert position at the start of a WAL page points past
 * the page header, while the end of the last replayed record is the page boundary itself: on an
 * idle primary the two would never meet, so the header does not count.
 */
export function lsnReached(replay: bigint, mark: bigint): boolean {
  if (replay >= mark) return true
  const inPage = mark % WAL_PAGE
  return PAGE_HEADERS.has(inPage) && replay >= mark - inPage
}

/** Errors of the replica after which the read is done again on the primary. */
function replicaFailure(e: unknown): 'down' | 'retry' | null {
  const code = (e as { code?: unknown })?.code
  if (typeof code !== 'string') return null
  if (
    code.startsWith('08') || /^57P0[1-5]$/.test(code) || code === '53300' ||
    ['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
      'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT'].includes(code)
  ) {
    return 'down'
  }
  // 40001: cancelled by a conflict with recovery; 25006: a "read" that wrote (read-only transaction).
  if (code === '40001' || code === '25006') return 'retry'
  return null
}

interface Sample {
  lsn: bigint
  at: number
}

const MAX_SAMPLES = 256

export function createReadRouter(opts: ReadRouterOptions): ReadRouter {
  const { primary, replica, log, maxLagMs, retryMs } = opts
  const checkMs = opts.checkMs ?? 50
  const checkWaitMs = opts.checkWaitMs ?? 100
  const now = opts.now ?? (() => performance.now())
  let state: ReplicaState = 'unknown'
  let lagMs: number | null = null
  let replay: bigint | null = null
  let replayText: string | null = null
  let checkedAt = Number.NEGATIVE_INFINITY
  let downUntil = 0
  // The primary's insert positions with the time each was read, oldest first: how far behind
  // the replica is, in time, is how long ago the primary was where the replica is now.
  const samples: Sample[] = []
  let checking: Promise<void> | undefined

  const status = (): ReplicaStatus => ({ state, lagMs, replayLsn: replayText })

  function enter(next: ReplicaState, fields: Record<string, unknown> = {}) {
    if (next === state) return
    const was = state
    state = next
    // Once per change of state, never per request.
    if (next === 'down') log.warn('read replica unreachable; reads go to the primary', { was, retryMs, ...fields })
    else if (next === 'lagging') log.warn('read replica lagging; reads go to the primary', { was, lagMs, maxLagMs, ...fields })
    else if (next === 'current') log.info('read replica current; it serves reads', { was, lagMs })
    opts.observe?.state(status())
  }

  async function probe() {
    const startedAt = now()
    const [p] = await primary<{ lsn: string }[]>`select pg_current_wal_insert_lsn()::text as lsn`
    samples.push({ lsn: parseLsn(p!.lsn), at: startedAt })
    if (samples.length > MAX_SAMPLES) samples.splice(1, 1) // the oldest stays: the lag's lower bound
    let r: { lsn: string | null } | undefined
    try {
      ;[r] = await replica<{ lsn: string | null }[]>`select pg_last_wal_replay_lsn()::text as lsn`
    } catch (e) {
      downUntil = now() + retryMs
      checkedAt = now()
      lagMs = null
      enter('down', { code: (e as { code?: unknown })?.code, error: String((e as Error)?.message ?? e) })
      return
    }
    const at = now()
    checkedAt = at
    if (!r?.lsn) {
      // Not in recovery: DATABASE_REPLICA_URL names a primary. Nothing can be said of its lag.
      downUntil = at + retryMs
      lagMs = null
      enter('down', { error: 'DATABASE_REPLICA_URL is not a standby (pg_last_wal_replay_lsn() is null)' })
      return
    }
    replayText = r.lsn
    replay = parseLsn(r.lsn)
    let reached = -1
    for (let i = samples.length - 1; i >= 0; i--) {
      if (lsnReached(replay, samples[i]!.lsn)) {
        reached = i
        break
      }
    }
    if (reached >= 0) {
      lagMs = at - samples[reached]!.at
      // Replay only moves forward: the older samples say nothing any more.
      samples.splice(0, reached)
    } else {
      // Behind every position seen: at least this far. Before the first reading it reaches
      // (a first check, with WAL the primary has not flushed yet) nothing is known.
      lagMs = at - samples[0]!.at
    }
    const next: ReplicaState = reached >= 0 && lagMs <= maxLagMs ? 'current' : reached < 0 && lagMs <= maxLagMs && state === 'unknown' ? 'unknown' : 'lagging'
    const changed = next !== state
    enter(next)
    if (!changed) opts.observe?.state(status())
  }

  function check(): Promise<void> {
    checking ??= probe()
      .catch((e) => {
        // The primary failed: the requests meet that themselves; the state stays as it was.
        log.debug('read replica check failed on the primary', { error: String((e as Error)?.message ?? e) })
      })
      .finally(() => (checking = undefined))
    return checking
  }

  async function choose(marker: string | null): Promise<ReadReason> {
    const t = now()
    if (state === 'down') {
      if (t < downUntil) return 'down'
      // Time to try again: in the background, the reads meanwhile on the primary.
      void check()
      return 'down'
    }
    if (t - checkedAt > checkMs) {
      let timer: ReturnType<typeof setTimeout> | undefined
      const waited = await Promise.race([
        check().then(() => true),
        new Promise<false>((done) => (timer = setTimeout(() => done(false), checkWaitMs))),
      ])
      clearTimeout(timer)
      if (!waited) return status().state === 'unknown' ? 'unknown' : 'lagging'
    }
    // (Read again: the check above may have changed it.)
    const now2 = status().state
    if (now2 !== 'current') return now2 === 'down' ? 'down' : now2 === 'unknown' ? 'unknown' : 'lagging'
    if (marker !== null && (replay === null || !lsnReached(replay, parseLsn(marker)))) return 'marker'
    return 'current'
  }

  return {
    async run(marker, read) {
      const reason = await choose(marker)
      if (reason !== 'current') {
        opts.observe?.read('primary', reason)
        return read(primary)
      }
      try {
        const result = await read(replica)
        opts.observe?.read('replica', 'current')
        return result
      } catch (e) {
        const failure = replicaFailure(e)
        if (!failure) throw e
        if (failure === 'down') {
          downUntil = now() + retryMs
          enter('down', { code: (e as { code?: unknown })?.code, error: String((e as Error)?.message ?? e) })
        }
        opts.observe?.read('primary', 'failed')
        return read(primary)
      }
    },
    async record(userId) {
      // greatest(): two write requests of one user finishing together never move it back.
      await primary`
        insert into replica_markers (user_id, lsn) values (${userId}, pg_current_wal_insert_lsn())
        on conflict (user_id) do update set lsn = greatest(replica_markers.lsn, excluded.lsn)`
    },
    status,
    async check() {
      await check()
      return status()
    },
  }
}

/** The Sql a read-heavy route reads with: `deps.read` decides when a replica is configured, else the primary. */
export function onReplica<T>(deps: { sql: Sql; read?: ReadRouter }, marker: string | null | undefined, read: (sql: Sql) => Promise<T>): Promise<T> {
  return deps.read ? deps.read.run(marker ?? null, read) : read(deps.sql)
}
