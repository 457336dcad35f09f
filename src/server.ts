import { join } from 'node:path'
import { buildApp } from './app.ts'
import { ConfigError, loadConfig } from './config.ts'
import { connectDatabase } from './db/connect.ts'
import { migrate } from './db/migrate.ts'
import type { Deps } from './deps.ts'
import { defaultJobs, scheduler, stopJobs } from './jobs.ts'
import { systemClock } from './lib/clock.ts'
import { createLogger } from './lib/log.ts'
import { bodyCeiling } from './http/plumbing.ts'
import { embeddedJwtSecret } from './secrets.ts'
import { LocalDiskStorage } from './storage/local-disk.ts'

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

const db = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.dbPoolMax })
const applied = await migrate(db.sql)
log.info('database ready', { kind: db.kind, migrationsApplied: applied })

const jwtSecret = config.jwtSecret ?? (await embeddedJwtSecret(config.dataDir))
const storage = await LocalDiskStorage.create(join(config.dataDir, 'files'))
const deps: Deps = { sql: db.sql, config: { ...config, jwtSecret }, clock: systemClock, log, storage }

const jobs = scheduler(deps, defaultJobs(deps))
const app = buildApp(deps)
  .use(jobs)
  .listen({
    port: config.port,
    hostname: config.host,
    // Bun's own hard cap, above the app's limits: the app answers 413 in the envelope first.
    maxRequestBodySize: bodyCeiling(config.maxUploadBytes),
  })
log.info('listening', { url: `http://${config.host}:${config.port}`, database: db.kind })

let stopping = false
async function shutdown(signal: string) {
  if (stopping) return
  stopping = true
  log.info('shutting down', { signal })
  stopJobs(jobs.store)
  // Stop accepting; in-flight requests finish.
  await app.stop(false)
  await db.close()
  log.info('stopped')
  process.exit(0)
}
process.on('SIGTERM', () => void shutdown('SIGTERM'))
process.on('SIGINT', () => void shutdown('SIGINT'))
