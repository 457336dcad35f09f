import type { Config } from './config.ts'
import type { DatabaseCapability, Sql } from './db/connect.ts'
import type { ReadRouter } from './db/replica.ts'
import type { Clock } from './lib/clock.ts'
import type { Fanout } from './lib/fanout.ts'
import type { Logger } from './lib/log.ts'
import type { FileStorage } from './storage/storage.ts'

/** What the app needs from the outside world and its shared services; built by server.ts or by the test harness (through `withServices`). */
export interface Deps {
  sql: Sql
  /**
   * PostgreSQL itself, for what needs a session (a session advisory lock held across
   * statements): DATABASE_DIRECT_URL's pool when `sql` goes through a transaction-mode pooler
   * (issue 55). Absent: `sql` is direct.
   */
  direct?: Sql
  /**
   * A streaming read replica (DATABASE_REPLICA_URL, issue 55): the read-heavy routes read through
   * it (`onReplica` in src/db/replica.ts), which falls back to `sql` for a user's own recent
   * writes, a lagging or an unreachable replica. Absent: every read on `sql`.
   */
  read?: ReadRouter
  /** The database's mode and size (embedded: one connection, no LISTEN). */
  db: DatabaseCapability
  config: Config & { jwtSecret: string }
  clock: Clock
  log: Logger
  storage: FileStorage
  /**
   * Whether this process queues notification e-mails (server.ts: SMTP_URL is set). A switch
   * passed here, read by the e-mail channel (src/channels.ts), never a module global. Absent:
   * off (tools and tests that build Deps without an SMTP server).
   */
  emailEnabled?: boolean
  /**
   * The background fan-out runner of large courses (src/services/fanout.ts), built once by
   * `withServices` (src/services/index.ts) where the app is composed.
   */
  fanout: Fanout
  /** The process's state (server.ts sets `draining` on SIGTERM); absent in most tests. */
  lifecycle?: Lifecycle
}

export interface Lifecycle {
  /** True from the shutdown signal on: /status/ready answers 503, responses close the connection. */
  draining: boolean
}
