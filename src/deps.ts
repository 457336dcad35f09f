import type { Config } from './config.ts'
import type { Sql } from './db/connect.ts'
import type { Clock } from './lib/clock.ts'
import type { Logger } from './lib/log.ts'
import type { FileStorage } from './storage/storage.ts'

/** What the app needs from the outside world; built by server.ts or by the test harness. */
export interface Deps {
  sql: Sql
  config: Config & { jwtSecret: string }
  clock: Clock
  log: Logger
  storage: FileStorage
}
