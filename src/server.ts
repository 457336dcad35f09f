import { buildApp } from './app.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { connectDatabase, connectReplica } from './db/connect.ts'
import { createReadRouter } from './db/replica.ts'
import { migrate } from './db/migrate.ts'
import type { Deps, Lifecycle } from './deps.ts'
import { backupJob, backupTaker, defaultJobs, scheduler, stopJobs } from './jobs.ts'
import { removeBackupLeftovers } from './backup/backup.ts'
import { answerBackupRequests, writePidFile } from './backup/on-demand.ts'
import { withServices } from './services/index.ts'
import { systemClock } from './lib/clock.ts'
import { createLogger } from './lib/log.ts'
import { bodyCeiling, isConnectionError, onUnhandledRejection } from './http/plumbing.ts'
import { isStorageFull } from './http/errors.ts'
import { databaseHost, DatabaseStartTimeout, retryStart, waitForDatabase } from './db/wait-start.ts'
import { serveWhileStarting } from './http/starting.ts'
import { countReplicaRead, serveMetrics, setReplicaState } from './metrics.ts'
import { embeddedJwtSecret } from './secrets.ts'
import { createStorage } from './storage/create.ts'

let config: Config
try {
  config = loadConfig()
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message)
    process.exit(1)
  }
  throw e
}
const log = createLogger(config.logLevel)
process.on('unhandledRejection', (reason) => {
  if (onUnhandledRejection(log, reason) === 'exit') process.exit(1)
})

/** Listening failed (the port is taken): one clear line, and the start ends. */
function cannotListen(e: unknown): never {
  const code = (e as NodeJS.ErrnoException)?.code
  const reason = code === 'EADDRINUSE' ? 'the port is already in use by another process' : String((e as Error)?.message ?? e)
  log.error('cannot listen', { host: config.host, port: config.port, code, reason })
  console.error(`Cannot listen on ${config.host}:${config.port}: ${reason}. Stop the other process or set PORT.`)
  process.exit(1)
}

/** A start that cannot go on (a database that refuses us, a data directory we cannot use): one line, no stack. */
function cannotStart(what: string, e: unknown): never {
  const fields = { code: (e as { code?: unknown })?.code, error: String((e as Error)?.message ?? e) }
  log.error(what, fields)
  console.error(`${what}: ${fields.error}`)
  process.exit(1)
}

// PostgreSQL may come up after us, the disk under DATA_DIR may be full (issue 49): from the first
// failed attempt the port answers 503 while the database is awaited, and the app takes the port
// over as soon as the database is there. A start that succeeds at once opens the port once, ready.
let starting: { stop(): void } | undefined
const answerWhileWaiting = () => void (starting ??= serveWhileStarting({ port: config.port, hostname: config.host }, cannotListen))
let db: Awaited<ReturnType<typeof connectDatabase>>
let applied: string[]
try {
  const connect = () =>
    connectDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      embeddedTemplate: config.embeddedTemplateDir,
      poolMax: config.dbPoolMax,
      connectTimeoutSeconds: config.dbConnectTimeoutSeconds,
      directUrl: config.databaseDirectUrl,
      pooled: config.databasePooled,
    })
  db = config.databaseUrl
    ? await connect()
    : await retryStart(connect, {
        fields: { dataDir: config.dataDir },
        retrying: 'disk under DATA_DIR full at start; retrying',
        givingUp: 'disk under DATA_DIR full at start; giving up (DB_START_TIMEOUT_SECONDS)',
        timeoutMessage: `The disk under ${config.dataDir} stayed full for ${config.dbStartTimeoutSeconds} s (DB_START_TIMEOUT_SECONDS).`,
        timeoutSeconds: config.dbStartTimeoutSeconds,
        log,
        isRetryable: isStorageFull,
        onWait: answerWhileWaiting,
      })
  if (config.databaseUrl) {
    await waitForDatabase(db.sql, { host: databaseHost(config.databaseUrl), timeoutSeconds: config.dbStartTimeoutSeconds, log, isUnreachable: isConnectionError, onWait: answerWhileWaiting })
  }
  // Migrations take an advisory lock and run DDL: on PostgreSQL itself, never through a pooler.
  applied = await migrate(db.direct)
} catch (e) {
  if (e instanceof DatabaseStartTimeout) {
    console.error(e.message)
    process.exit(1)
  }
  if (isStorageFull(e)) cannotStart('cannot start: the disk under DATA_DIR is full', e)
  cannotStart('cannot start: the database failed', e)
}
log.info('database ready', { kind: db.kind, migrationsApplied: applied })

let jwtSecret: string
let storage: Awaited<ReturnType<typeof createStorage>>
try {
  jwtSecret = config.jwtSecret ?? (await embeddedJwtSecret(config.dataDir))
  storage = await createStorage(config, log)
} catch (e) {
  cannotStart(isStorageFull(e) ? 'cannot start: the disk under DATA_DIR is full' : 'cannot start: DATA_DIR cannot be used', e)
}
const lifecycle: Lifecycle = { draining: false }
// A streaming read replica (issue 55): the read-heavy routes read through `read`, which falls back
// to the primary for a user's own recent writes, a lagging or an unreachable replica. Its pool
// is made lazily by postgres.js: a replica that is down at start costs nothing but a warning.
const replicaSql =
  config.databaseReplicaUrl && db.kind === 'external'
    ? connectReplica(config.databaseReplicaUrl, config.dbPoolMax, { connectTimeoutSeconds: config.dbConnectTimeoutSeconds, pooled: config.databasePooled })
    : undefined
if (replicaSql) log.info('read replica configured', { maxLagMs: config.replicaMaxLagMs, retrySeconds: config.replicaRetrySeconds })
const read = replicaSql
  ? createReadRouter({
      primary: db.sql,
      replica: replicaSql,
      log,
      maxLagMs: config.replicaMaxLagMs,
      retryMs: config.replicaRetrySeconds * 1000,
      observe: { read: countReplicaRead, state: setReplicaState },
    })
  : undefined
const deps: Deps = withServices({
  sql: db.sql,
  ...(db.direct !== db.sql ? { direct: db.direct } : {}),
  ...(read ? { read } : {}),
  db: db.capability,
  config: { ...config, jwtSecret },
  emailEnabled: Boolean(config.smtpUrl),
  clock: systemClock,
  log,
  storage,
  lifecycle,
})

let lastRequestAt = 0
const takeBackup = db.dumpDataDir ? backupTaker(deps, db.dumpDataDir, db.directory) : undefined
let removePidFile = async () => {}
if (takeBackup) {
  // Backups killed half-way (kill -9, a power cut) leave nothing behind after the next start.
  const leftovers = await removeBackupLeftovers(config.backupDir)
  if (leftovers.length) log.info('removed leftovers of interrupted backups', { backupDir: config.backupDir, removed: leftovers })
  // `bun run backup` (src/cli/backup.ts) finds this process through the pid file and asks with SIGUSR2.
  removePidFile = await writePidFile(config.dataDir)
  process.on('SIGUSR2', () => void answerBackupRequests(config.backupDir, () => takeBackup(new Date()), log))
}
const jobs = scheduler(deps, [...defaultJobs(deps), ...(db.dumpDataDir ? [backupJob(deps, db.dumpDataDir, takeBackup)] : [])])
const app = buildApp(deps)
  .onRequest(({ set }) => {
    lastRequestAt = performance.now()
    // While draining, every answer tells the client to open its next connection elsewhere.
    if (lifecycle.draining) set.headers['connection'] = 'close'
  })
  .use(jobs)
starting?.stop()
try {
  app.listen({
    port: config.port,
    hostname: config.host,
    // Elysia turns reusePort on, which lets a second process share a port in use.
    reusePort: false,
    // Bun's own hard cap, above the app's limits: the app answers 413 in the envelope first.
    maxRequestBodySize: bodyCeiling(Math.max(config.maxUploadBytes, config.maxImportBytes)),
  })
} catch (e) {
  stopJobs(jobs.store)
  await db.close().catch(() => {})
  cannotListen(e)
}
log.info('listening', { url: `http://${config.host}:${config.port}`, database: db.kind })
// Prometheus metrics on their own port, never the public one.
const metrics = config.metricsPort ? serveMetrics({ port: config.metricsPort, hostname: config.host, sql: db.sql, log }) : undefined
if (metrics) log.info('metrics', { url: `http://${config.host}:${config.metricsPort}/metrics` })

/** After the signal, the listener stays open until no request came for this long (at most DRAIN_GRACE_MAX_MS). */
const DRAIN_QUIET_MS = 1000
const DRAIN_GRACE_MAX_MS = 5000

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  const started = performance.now()
  const deadlineMs = config.shutdownTimeoutSeconds * 1000
  log.info('shutting down', { signal, timeoutSeconds: config.shutdownTimeoutSeconds })
  setTimeout(() => {
    log.error('shutdown deadline reached; exiting with requests in flight', {
      timeoutSeconds: config.shutdownTimeoutSeconds,
      pendingRequests: app.server?.pendingRequests,
    })
    process.exit(1)
  }, deadlineMs)
  // Not ready from now on; answers carry `Connection: close`, so keep-alive clients leave
  // (a request already on its way over a kept-alive connection is answered, not reset).
  lifecycle.draining = true
  lastRequestAt = Math.max(lastRequestAt, started)
  stopJobs(jobs.store)
  const graceEnd = started + Math.min(DRAIN_GRACE_MAX_MS, deadlineMs / 4)
  while (performance.now() < graceEnd && performance.now() - lastRequestAt < DRAIN_QUIET_MS) await Bun.sleep(50)
  // Stop accepting; in-flight requests finish (or the deadline ends them).
  void app.server?.stop(false)
  metrics?.stop(true)
  // Live streams end now (their clients reconnect to another instance) and their leases are released.
  await deps.streams.stop()
  while ((app.server?.pendingRequests ?? 0) > 0) await Bun.sleep(50)
  // A background fan-out chunk in progress commits first; the rest resumes on another instance
  // or after the restart (its queue row stays).
  await deps.fanout.stop()
  // A forgot-password mail being queued finishes (the answer has gone).
  await deps.background.settled()
  await db.close()
  await replicaSql?.end({ timeout: 5 })
  await removePidFile()
  log.info('stopped', { durationMs: Math.round(performance.now() - started) })
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
