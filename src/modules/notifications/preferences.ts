import type { Fragment, Sql, TxSql } from '../../db/connect.ts'
import { defaultOn, TYPE_NAMES, typesOnByDefault, type NotificationType } from './types.ts'

/*
 * Preferences (sql/039): one row per (user, channel, type) the user chose; without a row the
 * type's default (types.ts) holds, so nothing is written for people who never changed anything.
 * A new channel or a new type is new rows, never a new column.
 */

export type ChannelPreferences = Record<NotificationType, boolean>

/**
 * Not a delivery channel: the row (user, 'digest', SUBMISSION_RECEIVED) says whether a teacher's
 * hand-in notifications come as one digest per task (true, the default) or one per hand-in.
 */
export const DIGEST_CHANNEL = 'digest'

/** Whether the user takes hand-ins as one digest per task (issue 54). */
export async function handInDigestOf(sql: Sql, userId: string) {
  const [row] = await sql<{ enabled: boolean }[]>`
    select enabled from notification_channel_preferences
     where user_id = ${userId} and channel = ${DIGEST_CHANNEL} and notification_type = 'SUBMISSION_RECEIVED'`
  return row?.enabled ?? true
}

/** The user's choices on each of `channels`, defaults filled in. */
export async function preferencesOf(sql: Sql, userId: string, channels: readonly string[]): Promise<Record<string, ChannelPreferences>> {
  const rows = await sql<{ channel: string; notification_type: string; enabled: boolean }[]>`
    select channel, notification_type, enabled
      from notification_channel_preferences
     where user_id = ${userId} and channel = any(${channels as string[]}::text[])`
  const out: Record<string, ChannelPreferences> = {}
  for (const c of channels) out[c] = Object.fromEntries(TYPE_NAMES.map((t) => [t, defaultOn(t, c)])) as ChannelPreferences
  for (const r of rows) if (out[r.channel] && r.notification_type in out[r.channel]!) out[r.channel]![r.notification_type as NotificationType] = r.enabled
  return out
}

/** Sets the given switches (channel → type → on), one statement; the others keep their value or default. */
export async function savePreferences(sql: Sql | TxSql, userId: string, set: Record<string, Partial<Record<NotificationType, boolean>>>, now: Date) {
  const channels: string[] = []
  const types: string[] = []
  const values: boolean[] = []
  for (const [channel, byType] of Object.entries(set)) {
    for (const [type, on] of Object.entries(byType)) {
      if (on === undefined) continue
      channels.push(channel)
      types.push(type)
      values.push(on)
    }
  }
  if (channels.length === 0) return
  await sql`
    insert into notification_channel_preferences (user_id, channel, notification_type, enabled, updated_at)
    select ${userId}, c, t, e::boolean, ${now}
      from unnest(${channels}::text[], ${types}::text[], ${values.map(String)}::text[]) as x (c, t, e)
    on conflict (user_id, channel, notification_type) do update set enabled = excluded.enabled, updated_at = excluded.updated_at`
}

/**
 * Whether the owner of `w` (a written notification: user_id, notification_type) wants it on
 * `channel`: their row (a keyed probe of the primary key), else the type's default.
 */
export function wants(tx: TxSql, channel: string): Fragment {
  return tx`coalesce(
    (select p.enabled from notification_channel_preferences p
      where p.user_id = w.user_id and p.channel = ${channel} and p.notification_type = w.notification_type),
    w.notification_type = any(${typesOnByDefault(channel)}::text[]))`
}
