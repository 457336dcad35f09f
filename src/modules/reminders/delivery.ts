import type { TxSql } from '../../db/connect.ts'
import { plainFirst, type OnConflict } from '../../db/plain-first.ts'
import type { Channel } from '../notifications/channel.ts'
import { notifyEventsWith } from '../notifications/notify.ts'
import { onSchedule } from './queries.ts'

export interface DeliveredBatch {
  /** Events claimed (locked) by this batch: sent + canceled. */
  claimed: number
  canceled: number
}

/**
 * One dispatch batch as ONE statement: claims up to `limit` due pending events (FOR UPDATE SKIP
 * LOCKED: rows another dispatcher holds are skipped, not waited for; a row another dispatcher
 * sent between our snapshot and our lock is re-checked under READ COMMITTED and dropped), judges
 * each, marks it sent or canceled, and writes the notifications of the sent ones with the
 * `channels`' outbox rows (notifications/notify.ts `notifyEventsWith`; the stream announcement
 * follows in the same transaction). An event is canceled instead of sent when its course is
 * archived, its task is no longer homework, its student is no longer in the course,
 * (BEFORE_DUE_24H, DUE) the student has already submitted, or its time is no longer the task's
 * for that trigger (or the trigger was switched off): a reschedule not yet through. The
 * notification's params are built once per task of the batch (no wording: texts are rendered for their reader from params,
 * notifications/texts.ts).
 *
 * The events stay in the database: before, the claim returned every sent event's id and
 * student to this process and notify sent them back (4,000 uuids each way per batch of 2,000,
 * and the params parsed per row).
 *
 * The task, course, membership and submission are looked up once per event (membership and
 * submission by key; the old left join of course_members probed the course's members by course
 * alone, 137 rows per event on the campus set).
 */
export async function deliverDue(tx: TxSql, now: Date, limit: number, channels: readonly Channel[]): Promise<DeliveredBatch> {
  // A claimed event has no notification yet unless something reset its sent_at: the batch
  // inserts plainly, and is repeated skipping such an event only if it meets one.
  return plainFirst(tx, (q, onConflict) => deliverBatch(q, now, limit, channels, onConflict))
}

async function deliverBatch(tx: TxSql, now: Date, limit: number, channels: readonly Channel[], arbitrate: OnConflict): Promise<DeliveredBatch> {
  const ctes = tx`
    claimed as (
      select id, task_id, target_user_id, trigger_type, scheduled_at
        from homework_reminder_events
       where scheduled_at <= ${now} and sent_at is null and not canceled
       order by scheduled_at, id
       limit ${limit}
         for update skip locked
    ), tasks as (
      -- Each task of the batch once (a batch spans a few): what its notifications share. LIMIT 1
      -- keeps the lookup keyed (as a plain join the planner hashed all 20,400 tasks).
      select t.id, t.course_id, t.task_kind, t.archived, t.start_at, t.due_at, t.notify_on_start, t.notify_before_due_24h, t.notify_on_due,
             '/courses/' || t.course_id || '?taskId=' || t.id as action_path,
             jsonb_build_object(
               'kind', 'HOMEWORK_REMINDER',
               'courseId', t.course_id, 'courseTitle', t.course_title, 'taskId', t.id, 'taskTitle', t.title,
               'startAt', to_char(t.start_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'dueAt', to_char(t.due_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as params
        from (select distinct task_id from claimed) d
        cross join lateral (select t.id, t.course_id, t.title, t.start_at, t.due_at, t.task_kind, t.notify_on_start, t.notify_before_due_24h,
                                   t.notify_on_due, co.title as course_title, co.archived
                              from learning_tasks t join courses co on co.id = t.course_id
                             where t.id = d.task_id limit 1) t
    ), judged as (
      select c.id, c.target_user_id, c.trigger_type, t.id as task_id,
             t.task_kind = 'HOMEWORK' and not t.archived and m.member is not null
               -- A due reminder (BEFORE_DUE_24H, DUE) of a student who submitted is not sent (the probe below).
               and s.submitted is null
               -- Still the task's time for this trigger (the reschedule's rule): a stale event whose
               -- reschedule the background fan-out (src/fanout.ts) is still writing is canceled, not sent.
               and ${onSchedule(tx, 'c', 't', now)} as deliver
        from claimed c
        join tasks t on t.id = c.task_id
        -- Keyed probes, as above (as EXISTS the planner hashed all 81,800 memberships).
        left join lateral (select true as member from course_members m
                            where m.course_id = t.course_id and m.user_id = c.target_user_id limit 1) m on true
        -- Only the due reminders ask whether the student has submitted (START is not a nag, and
        -- skips the probe).
        left join lateral (select true as submitted from learning_submissions s
                            where c.trigger_type in ('BEFORE_DUE_24H', 'DUE')
                              and s.task_id = c.task_id and s.student_id = c.target_user_id limit 1) s on true
    ), marked as (
      update homework_reminder_events e
         set sent_at = case when j.deliver then ${now}::timestamptz end,
             canceled = not j.deliver
        from judged j
       where e.id = j.id
         -- Keyed whatever the sizes: the array's length is unknown when planning, so the planner
         -- probes the primary key for it instead of hashing the whole events table (which it
         -- chose for batches of 5,000, or of 2,000 in a table of 100,000 events).
         and e.id = any(array(select id from judged))
      returning e.id
    )`
  const { extra } = await notifyEventsWith<DeliveredBatch>(
    tx,
    {
      ctes,
      // The params once per (task, trigger) of the batch, not per event (OFFSET 0: computed in
      // the subquery, then joined, instead of per joined row).
      source: tx`select j.target_user_id as user_id, k.params, k.action_path, j.id as event_id
                   from judged j
                   join (select t.id, tr.trigger_type, t.action_path, t.params || jsonb_build_object('trigger', tr.trigger_type) as params
                           from tasks t cross join unnest(array['START', 'BEFORE_DUE_24H', 'DUE']) as tr (trigger_type)
                         offset 0) k
                     on k.id = j.task_id and k.trigger_type = j.trigger_type
                  where j.deliver`,
      summary: tx`jsonb_build_object('claimed', (select count(*) from marked), 'canceled', (select count(*) from judged where not deliver))`,
      arbitrate,
    },
    { now, channels },
  )
  return extra
}
