import { buildApp } from './app.ts'
import { ConfigError, loadConfig } from './config.ts'
import { connectDatabase } from './db/connect.ts'
import { migrate } from './db/migrate.ts'
import type { Deps } from './deps.ts'
import { defaultJobs, scheduler, stopJobs } from './jobs.ts'
import { systemClock } from './lib/clock.ts'
import { createLogger } from './lib/log.ts'
import { MAX_JSON_BYTES, MULTIPART_OVERHEAD_BYTES } from './http/plumbing.ts'
import { serveMetrics } from './metrics.ts'
import { embeddedJwtSecret } from './secrets.ts'
import { createStorage } from './storage/create.ts'
import { usePrebuiltWeb } from './web/assets.ts'

let config
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
usePrebuiltWeb(config.webDistDir)

const db = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.dbPoolMax })
const applied = await migrate(db.sql)
log.info('database ready', { kind: db.kind, migrationsApplied: applied })

const jwtSecret = config.jwtSecret ?? (await embeddedJwtSecret(config.dataDir))
const storage = await createStorage(config)
const deps: Deps = { sql: db.sql, config: { ...config, jwtSecret }, clock: systemClock, log, storage }

const jobs = scheduler(deps, defaultJobs(deps))
const app = buildApp(deps)
  .use(jobs)
  .listen({
    port: config.port,
    hostname: config.host,
    // Bun's own hard cap; the app answers 413 in the envelope before this is reached.
    maxRequestBodySize: Math.max(config.maxUploadBytes, MAX_JSON_BYTES) + MULTIPART_OVERHEAD_BYTES,
  })
log.info('listening', { url: `http://${config.host}:${config.port}`, database: db.kind })
// Prometheus metrics on their own port, never the public one.
const metrics = config.metricsPort ? serveMetrics({ port: config.metricsPort, hostname: config.host, sql: db.sql, log }) : undefined
if (metrics) log.info('metrics', { url: `http://${config.host}:${config.metricsPort}/metrics` })

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  log.info('shutting down', { signal })
  stopJobs(jobs.store)
  // Stop accepting; in-flight requests finish.
  await app.stop(false)
  metrics?.stop(true)
  await db.close()
  log.info('stopped')
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
