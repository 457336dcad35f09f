import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Sql } from './db/connect.ts'
import type { Logger } from './lib/log.ts'

/**
 * Prometheus metrics (prom-client), served on METRICS_PORT only (see serveMetrics). The
 * metric objects live here; the rest of the code calls the small functions below.
 */
export const registry = new Registry()
collectDefaultMetrics({ register: registry })

/** The route label of a request that matched no route (never the raw path: unbounded labels). */
export const UNMATCHED_ROUTE = 'unmatched'

const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
})
const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time from receiving a request to finishing its response, by method and route template.',
  labelNames: ['method', 'route'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
})
const notificationsCreated = new Counter({
  name: 'notifications_created_total',
  help: 'Notifications written, by type.',
  labelNames: ['type'] as const,
  registers: [registry],
})
const emailsSent = new Counter({
  name: 'emails_sent_total',
  help: 'E-mails handed to the mail server, by result.',
  labelNames: ['result'] as const,
  registers: [registry],
})
const jobRuns = new Counter({
  name: 'job_runs_total',
  help: 'Runs of the scheduled jobs on this instance, by job and result (ok: finished; failed: threw).',
  labelNames: ['job', 'result'] as const,
  registers: [registry],
})
const gradebookCache = new Counter({
  name: 'gradebook_cache_requests_total',
  help: 'Grade overview requests by cache result: hit (served as built for the current gradebook version), miss (not cached), shared (a miss that waited for a build of the same version under way).',
  labelNames: ['result'] as const,
  registers: [registry],
})
const sseStreams = new Gauge({
  name: 'sse_streams_open',
  help: 'Server-sent event streams open on this instance.',
  registers: [registry],
})

const dbReads = new Counter({
  name: 'db_replica_reads_total',
  help: 'Reads of the replica-capable routes (DATABASE_REPLICA_URL), by where they ran (replica, primary) and why: current (the replica served), marker (the reader\'s own recent write), lagging, down, unknown (not checked yet), failed (the replica failed under the read).',
  labelNames: ['target', 'reason'] as const,
  registers: [registry],
})
const replicaState = new Gauge({
  name: 'db_replica_state',
  help: 'The read replica\'s state on this instance: 1 for the current one of unknown, current, lagging, down.',
  labelNames: ['state'] as const,
  registers: [registry],
})
const replicaLag = new Gauge({
  name: 'db_replica_lag_seconds',
  help: 'How far behind the primary the read replica was at its last check (a lower bound when lagging; NaN when unknown or down).',
  registers: [registry],
})

/** One read of a replica-capable route (src/db/replica.ts). */
export function countReplicaRead(target: 'replica' | 'primary', reason: string) {
  dbReads.inc({ target, reason })
}

/** This process's replica-capable reads so far, by `target/reason` (tests read deltas). */
export async function replicaReadCounts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const v of (await dbReads.get()).values) out[`${v.labels.target}/${v.labels.reason}`] = v.value
  return out
}

/** The replica's state after a check (src/db/replica.ts). */
export function setReplicaState(status: { state: string; lagMs: number | null }) {
  for (const s of ['unknown', 'current', 'lagging', 'down']) replicaState.set({ state: s }, s === status.state ? 1 : 0)
  replicaLag.set(status.lagMs === null ? Number.NaN : status.lagMs / 1000)
}

// Collected by one query at scrape time (shared by the four gauges of a scrape).
interface ScrapeState {
  due: number
  lag: number
  /** Background fan-out (src/services/fanout.ts): jobs queued (whatever their parts), age of the oldest. */
  queued: number
  queueAge: number
}

/**
 * The gauges read from the database at scrape time, in a registry of their own for the
 * database `sql` that serveMetrics is given (no module state: each metrics server has its own).
 */
function databaseGauges(sql: Sql, log: Logger): Registry {
  const gauges = new Registry()
  let pending: Promise<ScrapeState> | undefined
  const state = (): Promise<ScrapeState> => {
    pending ??= (async () => {
      try {
        return await reminderQuery(sql)
      } catch (e) {
        // The database is down: the rest of the scrape still answers; these read NaN.
        log.warn('metrics: reminder state unavailable', { error: String((e as Error)?.message ?? e) })
        return { due: Number.NaN, lag: Number.NaN, queued: Number.NaN, queueAge: Number.NaN }
      } finally {
        queueMicrotask(() => (pending = undefined))
      }
    })()
    return pending
  }
  const gauge = (name: string, help: string, pick: (s: ScrapeState) => number) =>
    new Gauge({
      name,
      help,
      registers: [gauges],
      async collect() {
        this.set(pick(await state()))
      },
    })
  gauge('reminder_events_due', 'Reminder events that are due and neither sent nor canceled.', (s) => s.due)
  gauge('reminder_dispatch_lag_seconds', 'Age of the oldest due, unsent reminder event (0 when none).', (s) => s.lag)
  gauge(
    'fanout_queued',
    'Homework and announcements of large courses whose reminder events or notifications are still being written (background fan-out).',
    (s) => s.queued,
  )
  gauge('fanout_oldest_seconds', 'Age of the oldest background fan-out still queued (0 when none).', (s) => s.queueAge)
  return gauges
}

async function reminderQuery(sql: Sql): Promise<ScrapeState> {
  const [row] = await sql<{ due: string; oldest: Date | null; queued: string; queued_since: Date | null }[]>`
    select e.due, e.oldest, f.queued, f.queued_since
      from (select count(*) as due, min(scheduled_at) as oldest
              from homework_reminder_events
             where sent_at is null and not canceled and scheduled_at <= now()) e,
           -- Jobs, not their parts (sql/050): a homework or an announcement counts once.
           (select count(*) as queued, min(queued_at) as queued_since
              from (select min(queued_at) as queued_at from reminder_fanout group by task_id
                    union all
                    select min(queued_at) from announcement_fanout group by announcement_id) q) f`
  const age = (d: Date | null | undefined) => (d ? Math.max(0, (Date.now() - new Date(d).getTime()) / 1000) : 0)
  return { due: Number(row?.due ?? 0), lag: age(row?.oldest), queued: Number(row?.queued ?? 0), queueAge: age(row?.queued_since) }
}

export function observeRequest(method: string, route: string, status: number, seconds: number) {
  httpRequests.inc({ method, route, status: String(status) })
  httpDuration.observe({ method, route }, seconds)
}

export function countNotifications(type: string, n: number) {
  if (n > 0) notificationsCreated.inc({ type }, n)
}

export function countEmail(result: 'sent' | 'failed' | (string & {}), n = 1) {
  if (n > 0) emailsSent.inc({ result }, n)
}

/** One finished run of a scheduled job (src/jobs.ts `scheduler`). */
export function countJobRun(job: string, result: 'ok' | 'failed') {
  jobRuns.inc({ job, result })
}

export function countGradebookCache(result: 'hit' | 'miss' | 'shared') {
  gradebookCache.inc({ result })
}

/** This process's counts so far (tests read deltas). */
export async function gradebookCacheCounts() {
  const values = (await gradebookCache.get()).values
  const of = (r: string) => values.find((v) => v.labels.result === r)?.value ?? 0
  return { hit: of('hit'), miss: of('miss'), shared: of('shared') }
}

export function setSseStreams(n: number) {
  sseStreams.set(n)
}

/**
 * Serves `/metrics` on its own port (a separate Bun.serve, never the public one), for a
 * Prometheus scraper on the private network. Returns the server (stop it on shutdown).
 */
export function serveMetrics(opts: { port: number; hostname: string; sql: Sql; log: Logger }) {
  // The process's counters (this module's registry) and this database's gauges.
  const scraped = Registry.merge([registry, databaseGauges(opts.sql, opts.log)])
  return Bun.serve({
    port: opts.port,
    hostname: opts.hostname,
    reusePort: false,
    async fetch(request) {
      const url = tryRequestUrl(request)
      if (!url) return new Response('Bad request: the Host header is not valid.\n', { status: 400 })
      if (url.pathname !== '/metrics') return new Response('Not found. Metrics are at /metrics.\n', { status: 404 })
      if (request.method !== 'GET' && request.method !== 'HEAD') return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } })
      try {
        return new Response(await scraped.metrics(), { headers: { 'content-type': scraped.contentType } })
      } catch (e) {
        opts.log.error('metrics scrape failed', { error: String((e as Error)?.message ?? e) })
        return new Response('metrics unavailable\n', { status: 503 })
      }
    },
  })
}

/** The request's URL, or null when a malformed Host header made it unparsable (as http/request-url.ts; metrics imports nothing of http). */
function tryRequestUrl(request: Request): URL | null {
  try {
    return new URL(request.url)
  } catch {
    return null
  }
}
