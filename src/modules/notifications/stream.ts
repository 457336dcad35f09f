import type { Deps, LiveStreams } from '../../deps.ts'
import type { Sql } from '../../db/connect.ts'
import { AppError } from '../../http/errors.ts'
import type { Locale } from '../../i18n/locale.ts'
import { setSseStreams } from '../../metrics.ts'
import { subscribe, type Signal, type SignalSource } from './bus.ts'
import { releaseInstanceLeases, releaseLeases, renewLeases, reserveLease } from './lease-queries.ts'
import { countersOf, notificationsAfter, type NotificationRow } from './queries.ts'
import { toNotification } from './service.ts'

/*
 * The live stream (GET /notifications/stream): one hub per process fans change signals
 * (bus.ts) out to the open streams of this process.
 *
 * Per signal, whatever the number of open streams: one query for the new notifications of the
 * users who have a stream here, one for their counters; each stream renders in its own language.
 * One timer for all streams writes `: ping` and checks, in one query, that their sessions are
 * still valid (logout on any instance, expiry): a stream ends within one heartbeat of its session.
 *
 * The cap (MAX_STREAMS_PER_USER) holds across instances: a connect first reserves a lease row in
 * the database (sql/031, one reservation at a time per user) and is refused when the user holds
 * the maximum; the same timer renews this instance's leases, a closed stream releases its lease,
 * and a dead process's leases lapse after LEASE_HEARTBEATS heartbeats.
 */

export const MAX_STREAMS_PER_USER = 10
export const REPLAY_LIMIT = 100
/** A lease lives this many heartbeats unless renewed: how long a dead process keeps its slots. */
export const LEASE_HEARTBEATS = 3
const encoder = new TextEncoder()

interface Sink {
  leaseId: string
  userId: string
  sessionId: string
  locale: Locale
  write(chunk: string): void
  close(): void
  /** Ids already written (replay and live may overlap right after connecting). */
  seen: Set<string>
}

const sse = {
  counts: (c: { unread: number; unread_reminders: number }) =>
    `event: counts\ndata: ${JSON.stringify({ unreadCount: c.unread, unreadReminderCount: c.unread_reminders })}\n\n`,
  notification: (n: ReturnType<typeof toNotification>) => `id: ${n.id}\nevent: notification\ndata: ${JSON.stringify(n)}\n\n`,
}

/** One per app: built by `withServices` (src/services/index.ts) and passed as `Deps.streams`. */
export class StreamHub implements LiveStreams {
  private byUser = new Map<string, Set<Sink>>()
  private source: Promise<SignalSource> | null = null
  private timer: ReturnType<typeof setInterval> | null = null
  private size = 0
  /** This hub's leases carry its id: a clean stop releases them all in one statement. */
  private readonly instanceId = crypto.randomUUID()
  private releasing: string[] = []
  private releaseScheduled = false

  constructor(
    private readonly deps: Pick<Deps, 'sql' | 'clock' | 'log'> & { embedded: boolean; listenUrl?: string | undefined },
    private readonly heartbeatMs: number,
  ) {}

  get openStreams() {
    return this.size
  }

  /** Starts listening on first use: a process that never serves a stream holds no LISTEN connection. */
  private ensureStarted() {
    if (!this.source) {
      this.source = subscribe(
        { sql: this.deps.sql, embedded: this.deps.embedded, listenUrl: this.deps.listenUrl, onError: (e) => this.deps.log.warn('unlisten failed', { error: String(e) }) },
        (s) => this.enqueue(s),
      )
      this.source.catch(() => (this.source = null))
      this.timer = setInterval(() => void this.tick(), this.heartbeatMs)
      ;(this.timer as { unref?: () => void }).unref?.()
    }
    return this.source
  }

  async stop() {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    for (const set of this.byUser.values()) for (const s of set) s.close()
    const src = this.source
    this.source = null
    if (src) await (await src).stop()
    this.releasing = []
    await releaseInstanceLeases(this.deps.sql, this.instanceId).catch((e) =>
      this.deps.log.warn('stream leases not released', { error: String((e as Error)?.message ?? e) }),
    )
  }

  private leaseExpiry() {
    return new Date(this.deps.clock.now().getTime() + LEASE_HEARTBEATS * this.heartbeatMs)
  }

  /** Closed streams give their leases back in batches (one statement for streams closing together). */
  private release(leaseId: string) {
    this.releasing.push(leaseId)
    if (this.releaseScheduled) return
    this.releaseScheduled = true
    setTimeout(() => {
      this.releaseScheduled = false
      const ids = this.releasing
      this.releasing = []
      // Not released (database unreachable): the lease lapses on its own.
      releaseLeases(this.deps.sql, ids).catch((e) => this.deps.log.warn('stream leases not released', { error: String((e as Error)?.message ?? e) }))
    }, 2)
  }

  /** Opens a stream: the 11th of one user, on any instance, is refused with 429. */
  async open(user: { id: string }, sessionId: string, locale: Locale, lastEventId: string | null): Promise<Response> {
    const sql = this.deps.sql
    const leaseId = crypto.randomUUID()
    const now = this.deps.clock.now()
    const reserved = await reserveLease(sql, {
      id: leaseId,
      userId: user.id,
      instanceId: this.instanceId,
      now,
      expiresAt: this.leaseExpiry(),
      max: MAX_STREAMS_PER_USER,
    })
    if (!reserved) {
      throw new AppError('TOO_MANY_REQUESTS', `At most ${MAX_STREAMS_PER_USER} live streams per user are open at once. Close one and retry.`)
    }
    try {
      await this.ensureStarted()
    } catch (e) {
      this.release(leaseId)
      throw e
    }
    let sink!: Sink
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let closed = false
        sink = {
          leaseId,
          userId: user.id,
          sessionId,
          locale,
          seen: new Set(),
          write: (chunk) => {
            if (closed) return
            try {
              controller.enqueue(encoder.encode(chunk))
            } catch {
              sink.close()
            }
          },
          close: () => {
            if (closed) return
            closed = true
            this.remove(sink)
            try {
              controller.close()
            } catch {}
          },
        }
        this.add(sink)
      },
      cancel: () => sink.close(),
    })
    // Reconnect hint, then replay (oldest first), then the current counts.
    sink.write('retry: 3000\n\n')
    const reader = { locale, now: this.deps.clock.now() }
    try {
      if (lastEventId) {
        for (const r of await notificationsAfter(sql, user.id, lastEventId, REPLAY_LIMIT)) this.deliver(sink, r, reader)
      }
      sink.write(sse.counts(await countersOf(sql, user.id)))
    } catch (e) {
      // No stream is returned: unregister it, and let the error handler answer.
      sink.close()
      throw e
    }
    return new Response(body, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      },
    })
  }

  private add(s: Sink) {
    let set = this.byUser.get(s.userId)
    if (!set) this.byUser.set(s.userId, (set = new Set()))
    set.add(s)
    setSseStreams(++this.size)
  }

  private remove(s: Sink) {
    const set = this.byUser.get(s.userId)
    if (!set?.delete(s)) return
    if (set.size === 0) this.byUser.delete(s.userId)
    setSseStreams(--this.size)
    this.release(s.leaseId)
  }

  private deliver(s: Sink, r: NotificationRow, reader: { locale: Locale; now: Date }) {
    if (s.seen.has(r.id)) return
    s.seen.add(r.id)
    if (s.seen.size > 2 * REPLAY_LIMIT) s.seen.delete(s.seen.values().next().value!)
    s.write(sse.notification(toNotification(r, { ...reader, locale: s.locale })))
  }

  // Signals arriving together (a large fan-out is NOTIFY'd in chunks) are handled as one batch:
  // two queries per batch, not per chunk.
  private pendingPairs: [string, string][] = []
  private pendingCounts = new Set<string>()
  /** Instants with new notifications → the local users they are for ('all': not listed). */
  private pendingAts = new Map<string, Set<string> | 'all'>()
  private flushScheduled = false
  private enqueue(sig: Signal) {
    if (this.byUser.size === 0) return
    if (sig.kind === 'new') {
      for (const p of sig.pairs) if (this.byUser.has(p[0])) this.pendingPairs.push(p)
    } else if (sig.kind === 'at') {
      const cur = this.pendingAts.get(sig.at)
      if (!sig.userIds) this.pendingAts.set(sig.at, 'all')
      else if (cur !== 'all') {
        const here = sig.userIds.filter((u) => this.byUser.has(u))
        if (here.length) this.pendingAts.set(sig.at, new Set([...(cur ?? []), ...here]))
      }
    }
    else for (const u of sig.userIds) if (this.byUser.has(u)) this.pendingCounts.add(u)
    if (this.flushScheduled || (this.pendingPairs.length === 0 && this.pendingCounts.size === 0 && this.pendingAts.size === 0)) return
    this.flushScheduled = true
    setTimeout(() => {
      this.flushScheduled = false
      const pairs = this.pendingPairs
      const counts = [...this.pendingCounts]
      const ats = [...this.pendingAts]
      this.pendingPairs = []
      this.pendingCounts = new Set()
      this.pendingAts = new Map()
      const run = async () => {
        for (const [at, users] of ats) await this.onSignal({ kind: 'at', at, userIds: users === 'all' ? null : [...users] })
        if (pairs.length) await this.onSignal({ kind: 'new', pairs })
        if (counts.length) await this.onSignal({ kind: 'counts', userIds: counts })
      }
      run().catch((e) => this.deps.log.error('stream fan-out failed', { error: String((e as Error)?.message ?? e) }))
    }, 2)
  }

  private async onSignal(sig: Signal) {
    const sql: Sql = this.deps.sql
    const here = (u: string) => this.byUser.has(u)
    let users: string[]
    let rows: (NotificationRow & { user_id: string })[] = []
    if (sig.kind === 'new') {
      const ids = sig.pairs.filter(([u]) => here(u)).map(([, id]) => id)
      if (ids.length === 0) return
      rows = await sql<(NotificationRow & { user_id: string })[]>`
        select id, user_id, notification_type, title, content, action_path, read_at, delivered_at, params
          from notifications where id = any(${ids}::uuid[])
         order by delivered_at, id`
      users = [...new Set(rows.map((r) => r.user_id))]
    } else if (sig.kind === 'at') {
      // Keyed by notifications_user_idx (user_id, delivered_at): this hub's users only. A row of
      // that instant already written to a stream is skipped there (`seen`).
      const here = (sig.userIds ?? [...this.byUser.keys()]).filter((u) => this.byUser.has(u))
      if (here.length === 0) return
      rows = await sql<(NotificationRow & { user_id: string })[]>`
        select n.id, n.user_id, n.notification_type, n.title, n.content, n.action_path, n.read_at, n.delivered_at, n.params
          from unnest(${here}::uuid[]) as u (id)
          join notifications n on n.user_id = u.id and n.delivered_at = ${new Date(sig.at)}
         order by n.delivered_at, n.id`
      users = [...new Set(rows.map((r) => r.user_id))]
    } else {
      users = sig.userIds.filter(here)
    }
    if (users.length === 0) return
    const counts = await sql<{ user_id: string; unread: number; unread_reminders: number }[]>`
      select u.id as user_id, coalesce(c.unread, 0) as unread, coalesce(c.unread_reminders, 0) as unread_reminders
        from unnest(${users}::uuid[]) as u (id)
        left join notification_counters c on c.user_id = u.id`
    const now = this.deps.clock.now()
    for (const c of counts) {
      for (const s of this.byUser.get(c.user_id) ?? []) {
        for (const r of rows) if (r.user_id === c.user_id) this.deliver(s, r, { locale: s.locale, now })
        s.write(sse.counts(c))
      }
    }
  }

  /**
   * Heartbeat for every stream, the end of streams whose session ended, and the renewal of this
   * instance's leases (a stream whose lease lapsed and was taken over is ended: the cap stays exact).
   */
  async tick() {
    if (this.size === 0) return
    const sessions = new Set<string>()
    const leases = new Set<string>()
    for (const set of this.byUser.values()) {
      for (const s of set) {
        sessions.add(s.sessionId)
        leases.add(s.leaseId)
      }
    }
    let valid: Set<string>
    let held: Set<string>
    try {
      const rows = await this.deps.sql<{ id: string }[]>`
        select id from sessions
         where id = any(${[...sessions]}::uuid[]) and revoked_at is null and expires_at > ${this.deps.clock.now()}`
      valid = new Set(rows.map((r) => r.id))
      held = await renewLeases(this.deps.sql, this.instanceId, [...leases], this.leaseExpiry())
    } catch (e) {
      // Database unreachable: keep the streams (the client reconnects if we go away), ping them.
      this.deps.log.warn('stream session check failed', { error: String((e as Error)?.message ?? e) })
      valid = sessions
      held = leases
    }
    for (const set of [...this.byUser.values()]) {
      for (const s of [...set]) {
        // A stream opened while the queries ran is not judged until the next tick.
        if (!leases.has(s.leaseId) || (valid.has(s.sessionId) && held.has(s.leaseId))) s.write(': ping\n\n')
        else s.close()
      }
    }
  }
}
