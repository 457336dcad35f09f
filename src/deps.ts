import type { Config } from './config.ts'
import type { DatabaseCapability, Fragment, Sql, TxSql } from './db/connect.ts'
import type { OidcClient } from './infra/oidc.ts'
import type { Locale } from './i18n/locale.ts'
import type { ReadRouter } from './db/replica.ts'
import type { Clock } from './lib/clock.ts'
import type { Fanout } from './lib/fanout.ts'
import type { Logger } from './lib/log.ts'
import type { OverviewCache } from './lib/overview-cache.ts'
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
   * The one e-mail switch: whether this process sends mail (server.ts: SMTP_URL is set; the test
   * harness: its config has an SMTP server). Account mail (verification, reset, address
   * change), roster invitations, the notification e-mail channel and the mail jobs all ask this,
   * never `config.smtpUrl` (only server.ts and the e-mail job, which connects to it, read that).
   */
  emailEnabled: boolean
  /**
   * The background fan-out runner of large courses (src/services/fanout.ts), built once by
   * `withServices` (src/services/index.ts) where the app is composed.
   */
  fanout: Fanout
  /**
   * The live notification streams of this process (src/modules/notifications/stream.ts
   * `StreamHub`): one LISTEN connection and one heartbeat for all of them, whichever prefix the
   * stream was opened under. Built by `withServices`; server.ts stops it on shutdown.
   */
  streams: LiveStreams
  /** The grade overview cache (src/lib/overview-cache.ts), GRADEBOOK_CACHE_MB in all; null when that is 0. */
  overviewCache: OverviewCache | null
  /** The OpenID relying party (src/infra/oidc.ts: discovery, the provider's keys); null without OIDC_* settings. */
  oidc: OidcClient | null
  /** This process's course import runner (src/modules/transfer/job.ts): `kick` after an upload; IMPORT_CRON too. */
  imports: Runner
  /**
   * The notification channels this process delivers on (of src/services/channels.ts `CHANNELS`,
   * those whose `enabled(deps)` holds), built by `withServices`; notify fans out to them.
   */
  channels: readonly Channel[]
  /** Work a request started and does not wait for (the forgot-password mail); tests and shutdown await it. */
  background: Background
  /** The process's state (server.ts sets `draining` on SIGTERM); absent in most tests. */
  lifecycle?: Lifecycle
}

export interface Lifecycle {
  /** True from the shutdown signal on: /status/ready answers 503, responses close the connection. */
  draining: boolean
}

/** What the routes need of the stream hub (src/modules/notifications/stream.ts implements it). */
export interface LiveStreams {
  /** A stream for `user` (replaying what came after `lastEventId`), or 429 past the per-user cap. */
  open(user: { id: string }, sessionId: string, locale: Locale, lastEventId: string | null): Promise<Response>
  readonly openStreams: number
  /** Closes every stream, stops listening and releases this hub's leases. */
  stop(): Promise<void>
}

/** A loop run now on demand, one at a time: a kick during a run runs it once more after. */
export interface Runner {
  kick(): Promise<void>
}

/** Work started after a request's answer, kept so that it can be awaited (src/services/background.ts). */
export interface Background {
  /** Keeps `work` until it settles; its failure is logged by the caller. */
  add(work: Promise<unknown>): void
  /** Resolves when everything added so far (and added meanwhile) has settled. */
  settled(): Promise<void>
}

/**
 * A delivery channel besides the inbox and the live stream (src/modules/notifications/channel.ts
 * says how one works; e-mail's is src/modules/email/channel.ts).
 */
export interface Channel {
  /** Its key in /me/notification-preferences and in notification_channel_preferences.channel. */
  readonly name: string
  /** Whether this process delivers on it (a switch on Deps, e.g. e-mail: `emailEnabled`). */
  enabled(deps: Deps): boolean
  /** Its part of the writing statement; `wants` is a boolean expression over `w` (a row of `written`). */
  fanOut(tx: TxSql, wants: Fragment): Fragment
}
