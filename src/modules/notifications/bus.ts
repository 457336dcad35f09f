import { EventEmitter } from 'node:events'
import postgres from 'postgres'
import type { Sql, TxSql } from '../../db/connect.ts'

/*
 * Change signals for the live stream (GET /notifications/stream), across instances.
 *
 * Writers call `announceNew` in the transaction that wrote notifications and `announceCounts`
 * after marking read: both `pg_notify` on one channel, so PostgreSQL delivers the signal to every
 * instance when (and only if) the transaction commits. Payloads carry ids only, never content:
 *   n|<userId>:<notificationId>,<userId>:<notificationId>…   new notifications (chunked < 8000 bytes)
 *   c|<userId>,<userId>…                                      counts changed
 *   a|<ISO-8601 instant>|<userId>,<userId>…                   notifications delivered at that instant to
 *                                                             these users (notify.ts; chunked like n|)
 *   a|<ISO-8601 instant>|                                     … to users the writer did not list (a whole
 *                                                             course, resolved in SQL): one payload
 *
 * Each process holds ONE listening connection (postgres.js `sql.listen`, a dedicated connection
 * outside the pool; DATABASE_LISTEN_URL when the pool goes through a transaction-mode pooler,
 * which cannot carry LISTEN) and fans signals out in-process to its streams (stream.ts).
 *
 * The embedded database (PGlite behind pglite-socket) serves one connection, so there is no
 * second connection to LISTEN on; one process is the whole service there, and the signals go
 * through an in-process emitter instead. They are emitted before the writer's transaction
 * commits, which is safe: the embedded pool has one connection, so the stream's read of the
 * ids queues behind the writer's transaction and sees its outcome (rolled back → nothing found).
 */

export const CHANNEL = 'cls_notifications'
const MAX_PAYLOAD = 7900

export type Signal =
  | { kind: 'new'; pairs: [userId: string, id: string][] }
  | { kind: 'counts'; userIds: string[] }
  /**
   * Notifications were written with delivered_at = `at`, to `userIds` (null: not listed, e.g. a
   * whole course): each hub reads the rows of that instant of its own streams' users.
   */
  | { kind: 'at'; at: string; userIds: string[] | null }

/** In-process signals (embedded database), and every signal this process sends (tests, metrics). */
export const localSignals = new EventEmitter()
localSignals.setMaxListeners(0)

function chunk(prefix: string, parts: string[], sep: string): string[] {
  const out: string[] = []
  let cur = ''
  for (const p of parts) {
    if (cur && prefix.length + cur.length + sep.length + p.length > MAX_PAYLOAD) {
      out.push(prefix + cur)
      cur = ''
    }
    cur = cur ? cur + sep + p : p
  }
  if (cur) out.push(prefix + cur)
  return out
}

export function encodeSignal(s: Signal): string[] {
  if (s.kind === 'at') return s.userIds ? chunk(`a|${s.at}|`, s.userIds, ',') : [`a|${s.at}|`]
  return s.kind === 'new' ? chunk('n|', s.pairs.map(([u, id]) => `${u}:${id}`), ',') : chunk('c|', s.userIds, ',')
}

export function decodeSignal(payload: string): Signal | null {
  const body = payload.slice(2)
  if (payload.startsWith('n|')) {
    const pairs = body
      .split(',')
      .map((p) => p.split(':') as [string, string])
      .filter((p) => p.length === 2)
    return { kind: 'new', pairs }
  }
  if (payload.startsWith('c|')) return { kind: 'counts', userIds: body.split(',').filter(Boolean) }
  if (payload.startsWith('a|')) {
    const bar = body.indexOf('|')
    const at = bar < 0 ? body : body.slice(0, bar)
    if (Number.isNaN(Date.parse(at))) return null
    const users = bar < 0 ? '' : body.slice(bar + 1)
    return { kind: 'at', at, userIds: users ? users.split(',').filter(Boolean) : null }
  }
  return null
}

async function send(sql: Sql | TxSql, s: Signal) {
  const payloads = encodeSignal(s)
  if (payloads.length === 0) return
  // One statement however many chunks; NOTIFY is transactional (sent on commit, dropped on rollback).
  await sql`select pg_notify(${CHANNEL}, p) from unnest(${payloads}::text[]) as p`
  localSignals.emit('signal', s)
}

/** New notifications were written in this transaction: tell their owners' streams on commit. */
export function announceNew(tx: Sql | TxSql, written: readonly { id: string; user_id: string }[]) {
  return send(tx, { kind: 'new', pairs: written.map((w) => [w.user_id, w.id]) })
}

/**
 * Notifications were written in this transaction with delivered_at = `at`, to `userIds` when the
 * writer has them (a hub then looks only if one of them has a stream there), else in one payload
 * however many (a course's students stay in the database; each hub looks up its own streams' users).
 */
export function announceAt(tx: Sql | TxSql, at: Date, userIds: readonly string[] | null) {
  return send(tx, { kind: 'at', at: at.toISOString(), userIds: userIds ? [...new Set(userIds)] : null })
}

/** Users' counts changed (marked read, notifications retracted): tell their streams. */
export function announceCounts(sql: Sql | TxSql, userId: string | readonly string[]) {
  const userIds = typeof userId === 'string' ? [userId] : [...userId]
  return userIds.length ? send(sql, { kind: 'counts', userIds }) : Promise.resolve()
}

export interface SignalSource {
  /** 'listen' (PostgreSQL LISTEN) or 'local' (embedded database, in-process). */
  mode: 'listen' | 'local'
  stop(): Promise<void>
}

/**
 * Subscribes `onSignal` to every instance's signals: LISTEN on one dedicated connection (of
 * `sql`, or of `listenUrl` when set), or the in-process emitter for the embedded database.
 */
export async function subscribe(
  opts: { sql: Sql; embedded: boolean; listenUrl?: string | undefined; onError?: (e: unknown) => void },
  onSignal: (s: Signal) => void,
): Promise<SignalSource> {
  if (opts.embedded) {
    const h = (s: Signal) => onSignal(s)
    localSignals.on('signal', h)
    return { mode: 'local', stop: async () => void localSignals.off('signal', h) }
  }
  const own = opts.listenUrl ? postgres(opts.listenUrl, { max: 1, onnotice: () => {}, connection: { application_name: 'course-learning-service listen' } }) : null
  const client = own ?? opts.sql
  const sub = await client.listen(CHANNEL, (payload) => {
    const s = decodeSignal(payload)
    if (s) onSignal(s)
  })
  return {
    mode: 'listen',
    async stop() {
      await sub.unlisten().catch(opts.onError ?? (() => {}))
      if (own) await own.end({ timeout: 2 })
    },
  }
}
