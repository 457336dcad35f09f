import type { Sql } from '../../db/connect.ts'

/*
 * Stream leases (sql/031): the per-user cap on open live streams, across instances.
 */

export interface LeaseRequest {
  id: string
  userId: string
  instanceId: string
  now: Date
  expiresAt: Date
  max: number
}

/** Reserves a lease, or returns false when the user already holds `max` unexpired ones. */
export async function reserveLease(sql: Sql, l: LeaseRequest): Promise<boolean> {
  const [row] = await sql<{ ok: boolean }[]>`
    select reserve_stream_lease(${l.id}, ${l.userId}, ${l.instanceId}, ${l.now}, ${l.expiresAt}, ${l.max}) as ok`
  return row!.ok
}

/** Extends this instance's leases; returns the ids still held (a lapsed one was taken over). */
export async function renewLeases(sql: Sql, instanceId: string, ids: string[], expiresAt: Date): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await sql<{ id: string }[]>`
    update stream_leases set expires_at = ${expiresAt}
     where instance_id = ${instanceId} and id = any(${ids}::uuid[])
    returning id`
  return new Set(rows.map((r) => r.id))
}

export async function releaseLeases(sql: Sql, ids: string[]): Promise<void> {
  if (ids.length) await sql`delete from stream_leases where id = any(${ids}::uuid[])`
}

export async function releaseInstanceLeases(sql: Sql, instanceId: string): Promise<void> {
  await sql`delete from stream_leases where instance_id = ${instanceId}`
}
