import type { Fragment, TxSql } from '../../db/connect.ts'
import type { OnConflict } from '../../db/plain-first.ts'
import { uuidV7Rows } from '../../db/uuid-v7.ts'
import { countNotifications } from '../../metrics.ts'
import { announceAt } from './bus.ts'
import type { Channel } from './channel.ts'
import { inRange, type StudentRange } from '../../db/student-range.ts'
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
export type Recipients =
  | readonly string[]
  /** `range`: only the students of one chunk of a background fan-out (src/fanout.ts). */
  | { courseStudents: string; range?: StudentRange }
  | { courseTeachers: string }

export interface NewNotification {
  params: NotificationParams
  /** Where the web app opens it, e.g. /courses/{courseId}?taskId={taskId}. */
  actionPath: string | null
}

export interface Via {
  now: Date
  /** The channels this process delivers on (`Deps.channels`). */
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
            where m.course_id = ${recipients.courseStudents}
                  ${recipients.range ? inRange(tx, tx`m.user_id`, recipients.range) : tx``}`
      : tx`select r.user_id, p.params, ${n.actionPath}::text as action_path, null::uuid as event_id
             from unnest(${recipients as string[]}::uuid[]) as r (user_id) cross join (${one}) p`
  if (!('courseStudents' in recipients) && recipients.length === 0) return 0
  return write(tx, source, via, 'courseStudents' in recipients ? null : (recipients as string[]))
}

/**
 * The notifications of reminder events chosen earlier in the same statement (dispatch claims,
 * judges and marks them in CTEs, reminders/delivery.ts), so the events never travel to this
 * process and back: `ctes` are the caller's WITH entries (data-modifying ones allowed), `source`
 * a query over them giving (user_id, params, action_path, event_id) with the params complete
 * (no course title to fill in), `summary` a jsonb expression over them returned as `extra`
 * (e.g. how many events were claimed). An event that somehow already has its notification is
 * not delivered again (event_id is unique): with `arbitrate` 'conflict' it is skipped (ON CONFLICT
 * DO NOTHING); with 'none' the statement fails with 23505, for a caller that inserts plainly
 * first and repeats with 'conflict' only then (ON CONFLICT costs a speculative insertion per row).
 */
export async function notifyEventsWith<T>(
  tx: TxSql,
  q: { ctes: Fragment; source: Fragment; summary: Fragment; arbitrate: OnConflict },
  via: Via,
): Promise<{ written: number; extra: T }> {
  const rows = await tx<{ type: string | null; n: number; users: string | null; extra: T | null }[]>`
    with ${q.ctes}, ${writing(tx, q.source, via, q.arbitrate)}
    select null::text as type, 0 as n, null::text as users, (${q.summary})::jsonb as extra
    union all
    select notification_type, count(*)::int, string_agg(user_id::text, ','), null::jsonb from written group by notification_type`
  const counts = rows.filter((r) => r.type !== null) as { type: string; n: number; users: string }[]
  const written = await finish(tx, via, counts, counts.flatMap((c) => c.users.split(',')))
  return { written, extra: rows.find((r) => r.type === null)!.extra as T }
}

/** The params in `column` with the course's current title filled in when they name a course without one. */
function filled(tx: TxSql, column: 'x.raw' | 'x.params'): Fragment {
  const p = column
  return tx.unsafe(`(case when ${p} ? 'courseId' and coalesce(${p}->>'courseTitle', '') = ''
                          then ${p} || jsonb_build_object('courseTitle', (select c.title from courses c where c.id = (${p}->>'courseId')::uuid))
                          else ${p} end)`) as unknown as Fragment
}

/**
 * The CTEs `written` (the notifications of `source`'s rows: user_id, params, action_path,
 * event_id) and each channel's outbox rows, for the WITH of a statement. `arbitrate`: whether a
 * row whose event already has its notification is skipped ('conflict') or fails the statement.
 */
function writing(tx: TxSql, source: Fragment, via: Via, arbitrate: OnConflict): Fragment {
  const channelParts = via.channels.reduce<Fragment>(
    (acc, c, i) => tx`${acc}, ${tx.unsafe(`channel_${i}`)} as (${c.fanOut(tx, wants(tx, c.name))})`,
    tx``,
  )
  // References checked per statement by triggers, not foreign keys (src/db/dropped-foreign-keys.ts).
  return tx`written as (
      insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at, event_id, params)
      select ${uuidV7Rows(tx)}, s.user_id, s.params->>'kind', '', '', s.action_path, ${via.now}, s.event_id, s.params
        from (${source}) s
      ${arbitrate === 'conflict' ? tx`on conflict (event_id) where event_id is not null do nothing` : tx``}
      returning id, user_id, notification_type, delivered_at
    )${channelParts}`
}

/** After the writing statement: the metrics and the stream announcement (on commit). */
async function finish(tx: TxSql, via: Via, counts: readonly { type: string; n: number }[], userIds: string[] | null): Promise<number> {
  let total = 0
  for (const c of counts) {
    countNotifications(c.type, c.n)
    total += c.n
  }
  if (total > 0) await announceAt(tx, via.now, userIds)
  return total
}

/**
 * Rows of `source` (user_id, params, action_path, no event) → notifications → channel outboxes →
 * streams. Plain inserts: without an event_id a row cannot meet another on event_id's unique key.
 */
async function write(tx: TxSql, source: Fragment, via: Via, userIds: string[] | null): Promise<number> {
  const counts = await tx<{ type: string; n: number }[]>`
    with ${writing(tx, source, via, 'none')}
    select notification_type as type, count(*)::int as n from written group by notification_type`
  return finish(tx, via, counts, userIds)
}
