import type { TxSql } from '../../db/connect.ts'
import { countNotifications } from '../../metrics.ts'
import { announceAt } from './bus.ts'
import type { Channel, Fragment } from './channel.ts'
import { wants } from './preferences.ts'
import type { NotificationParams } from './texts.ts'

/*
 * The one way a notification is made: `notify` writes the inbox rows, fans them out to the
 * channels (each channel's outbox rows, in the same statement, for the owners who want that
 * type on that channel) and announces them to the live streams (NOTIFY, sent on commit) — all
 * in the caller's transaction, so either everything happens or nothing does.
 *
 * A row stores no wording: `params` (the kind and what the text is made of) is rendered in the
 * reader's language when it is read or mailed (texts.ts, the catalogue); title and content stay
 * empty (they hold text only for rows written before sql/011). Whatever the fan-out, the
 * recipients' ids never pass through this process unless the caller already has them.
 */

/**
 * Who gets it: these users, every student of a course, or every teacher of a course (its owner
 * and its co-teachers, sql/034) — the last two resolved in the database.
 */
export type Recipients = readonly string[] | { courseStudents: string } | { courseTeachers: string }

export interface NewNotification {
  params: NotificationParams
  /** Where the web app opens it, e.g. /courses/{courseId}?taskId={taskId}. */
  actionPath: string | null
}

/** The same notification to many users, each row tied to a reminder event (dispatch). */
export interface EventGroup extends NewNotification {
  userIds: string[]
  eventIds: string[]
}

export interface Via {
  now: Date
  /** The channels this process delivers on (src/channels.ts `channelsOn(deps)`). */
  channels: readonly Channel[]
}

/** Notifies `recipients`; returns how many notifications were written. */
export async function notify(tx: TxSql, recipients: Recipients, n: NewNotification, via: Via): Promise<number> {
  // A course's teachers are a handful: their ids are read here, so the live streams are told
  // exactly whom to wake (a course's students are not: every stream checks for itself).
  if ('courseTeachers' in recipients) {
    const teachers = await tx<{ user_id: string }[]>`
      select c.teacher_id as user_id from courses c where c.id = ${recipients.courseTeachers}
      union
      select ct.user_id from course_teachers ct where ct.course_id = ${recipients.courseTeachers}`
    return notify(tx, teachers.map((t) => t.user_id), n, via)
  }
  const one = tx`select ${filled(tx, 'x.raw')} as params from (select ${tx.json(n.params as any)}::jsonb as raw) x`
  const source =
    'courseStudents' in recipients
      ? tx`select m.user_id, p.params, ${n.actionPath}::text as action_path, null::uuid as event_id
             from course_members m cross join (${one}) p
            where m.course_id = ${recipients.courseStudents}`
      : tx`select r.user_id, p.params, ${n.actionPath}::text as action_path, null::uuid as event_id
             from unnest(${recipients as string[]}::uuid[]) as r (user_id) cross join (${one}) p`
  if (!('courseStudents' in recipients) && recipients.length === 0) return 0
  return write(tx, source, via, 'courseStudents' in recipients ? null : (recipients as string[]))
}

/**
 * Notifies several groups at once (one statement), each row carrying its reminder event: an
 * event that somehow already has its notification is not delivered again (event_id is unique).
 */
export async function notifyEvents(tx: TxSql, groups: readonly EventGroup[], via: Via): Promise<number> {
  if (groups.every((g) => g.userIds.length === 0)) return 0
  const userIds: string[] = []
  const eventIds: string[] = []
  const index: number[] = []
  groups.forEach((g, i) => {
    for (let k = 0; k < g.userIds.length; k++) {
      userIds.push(g.userIds[k]!)
      eventIds.push(g.eventIds[k]!)
      index.push(i + 1)
    }
  })
  const source = tx`
    select r.user_id, g.params, g.action_path, r.event_id
      from unnest(${userIds}::uuid[], ${eventIds}::uuid[], ${index}::int[]) as r (user_id, event_id, g)
      join (select x.i, ${filled(tx, 'x.params')} as params, x.action_path
              from (select u.p::jsonb as params, u.action_path, u.i
                      from unnest(${groups.map((g) => JSON.stringify(g.params))}::text[], ${groups.map((g) => g.actionPath) as string[]}::text[])
                           with ordinality as u (p, action_path, i)) x) g on g.i = r.g`
  return write(tx, source, via, userIds)
}

/** The params in `column` with the course's current title filled in when they name a course without one. */
function filled(tx: TxSql, column: 'x.raw' | 'x.params'): Fragment {
  const p = column
  return tx.unsafe(`(case when ${p} ? 'courseId' and coalesce(${p}->>'courseTitle', '') = ''
                          then ${p} || jsonb_build_object('courseTitle', (select c.title from courses c where c.id = (${p}->>'courseId')::uuid))
                          else ${p} end)`) as unknown as Fragment
}

/** Rows of `source` (user_id, params, action_path, event_id) → notifications → channel outboxes → streams. */
async function write(tx: TxSql, source: Fragment, via: Via, userIds: string[] | null): Promise<number> {
  const channelParts = via.channels.reduce<Fragment>(
    (acc, c, i) => tx`${acc}, ${tx.unsafe(`channel_${i}`)} as (${c.fanOut(tx, wants(tx, c.name))})`,
    tx``,
  )
  const counts = await tx<{ type: string; n: number }[]>`
    with written as (
      insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at, event_id, params)
      select gen_uuid_v7(), s.user_id, s.params->>'kind', '', '', s.action_path, ${via.now}, s.event_id, s.params
        from (${source}) s
      on conflict (event_id) do nothing
      returning id, user_id, notification_type, delivered_at
    )${channelParts}
    select notification_type as type, count(*)::int as n from written group by notification_type`
  let total = 0
  for (const c of counts) {
    countNotifications(c.type, c.n)
    total += c.n
  }
  if (total > 0) await announceAt(tx, via.now, userIds)
  return total
}
