import type { Sql, TxSql } from '../../db/connect.ts'
import { countNotifications } from '../../metrics.ts'

export type TriggerType = 'START' | 'BEFORE_DUE_24H' | 'DUE'
export const TRIGGER_TYPES: readonly TriggerType[] = ['START', 'BEFORE_DUE_24H', 'DUE']

/*
 * The trigger points of a homework task `t`, as rows (trigger_type, scheduled_at, enabled).
 * Written once here and spliced into the generating statements, so the three times are
 * defined in one place: START = start_at, BEFORE_DUE_24H = due_at - 24h, DUE = due_at.
 *
 * `startNow`: the homework is being published (created as or turned into HOMEWORK) or a student
 * is joining. If it is already open (start_at <= now < due_at), START is scheduled at `now`
 * ("new homework", sent by the next scan) instead of at its passed start_at.
 */
const triggersOf = (sql: Sql | TxSql, now: Date, startNow: boolean) => sql`
  cross join lateral (values
    ('START',
     case when ${startNow} and t.start_at <= ${now} and ${now} < t.due_at then ${now}::timestamptz else t.start_at end,
     t.notify_on_start),
    ('BEFORE_DUE_24H', t.due_at - interval '24 hours', t.notify_before_due_24h),
    ('DUE', t.due_at, t.notify_on_due)
  ) as tr (trigger_type, scheduled_at, enabled)`

/*
 * A trigger keeps its place when the event was generated for it: the time is in the future or
 * it is a START scheduled at publish time (`now`) for an open homework. Only events still ahead
 * (or the START of "now") are generated; a passed trigger gets nothing.
 */
const isAhead = (sql: Sql | TxSql, now: Date) => sql`(tr.scheduled_at > ${now} or (tr.trigger_type = 'START' and tr.scheduled_at = ${now}))`

export async function lockTask(tx: TxSql, taskId: string) {
  await tx`select id from learning_tasks where id = ${taskId} for update`
}

/**
 * Cancels the task's pending events that no longer match its schedule: the task is no longer
 * homework, the trigger was switched off, or its time moved. A pending START scheduled at
 * publish time stays while the homework is still open at that time. Unchanged times keep their
 * events (a student who extends nothing gets nothing new); sent ones stay as history.
 */
export async function cancelStaleForTask(tx: TxSql, taskId: string, now: Date) {
  const res = await tx`
    update homework_reminder_events e
       set canceled = true
      from learning_tasks t
     where e.task_id = ${taskId} and t.id = e.task_id
       and e.sent_at is null and not e.canceled
       and not (
         t.task_kind = 'HOMEWORK'
         and case e.trigger_type
               when 'START' then t.notify_on_start
                 and (e.scheduled_at = t.start_at
                      or (e.scheduled_at <= ${now} and t.start_at <= e.scheduled_at and e.scheduled_at < t.due_at))
               when 'BEFORE_DUE_24H' then t.notify_before_due_24h and e.scheduled_at = t.due_at - interval '24 hours'
               else t.notify_on_due and e.scheduled_at = t.due_at
             end
       )`
  return res.count
}

/**
 * One event per (current student × switched-on trigger whose time is still ahead), in one
 * INSERT … SELECT. A live event for the same (task, student, trigger, time) — pending or sent —
 * wins over a new one (each reminder reaches a student once per deadline), and so does any live
 * START (START at most once per homework and student): both are unique indexes (sql/010), and
 * ON CONFLICT without a target skips a row that violates either.
 */
export async function generateForTask(tx: TxSql, taskId: string, now: Date, published = false) {
  const res = await tx`
    insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
    select gen_uuid_v7(), t.id, m.user_id, tr.trigger_type, tr.scheduled_at, ${now}
      from learning_tasks t
      join course_members m on m.course_id = t.course_id
      ${triggersOf(tx, now, published)}
     where t.id = ${taskId}
       and t.task_kind = 'HOMEWORK'
       and tr.enabled
       and ${isAhead(tx, now)}
    on conflict do nothing`
  return res.count
}

/**
 * A late joiner's events: every homework of the course whose trigger time is still ahead, and
 * START at `now` for a homework that is open now (unless they already had START).
 */
export async function generateForStudent(tx: TxSql, courseId: string, userId: string, now: Date) {
  const res = await tx`
    insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
    select gen_uuid_v7(), t.id, ${userId}::uuid, tr.trigger_type, tr.scheduled_at, ${now}
      from learning_tasks t
      ${triggersOf(tx, now, true)}
     where t.course_id = ${courseId}
       and t.task_kind = 'HOMEWORK'
       and tr.enabled
       and ${isAhead(tx, now)}
    on conflict do nothing`
  return res.count
}

/**
 * Claims up to `limit` due pending events for this transaction. Rows another dispatcher has
 * locked are skipped, not waited for; a row that another dispatcher sent between our snapshot
 * and our lock is re-checked by PostgreSQL and dropped (READ COMMITTED re-evaluates the WHERE).
 */
export async function claimDue(tx: TxSql, now: Date, limit: number) {
  const rows = await tx<{ id: string }[]>`
    select id
      from homework_reminder_events
     where scheduled_at <= ${now} and sent_at is null and not canceled
     order by scheduled_at, id
     limit ${limit}
       for update skip locked`
  return rows.map((r) => r.id)
}

/**
 * Cancels claimed events that must not be sent: BEFORE_DUE_24H and DUE for a student who has
 * already submitted, and any event whose task is no longer homework or whose student is no
 * longer in the course.
 */
export async function cancelObsolete(tx: TxSql, ids: string[]) {
  const res = await tx`
    update homework_reminder_events e
       set canceled = true
      from (
        -- Membership as a keyed left join: NOT EXISTS under the OR below made the planner
        -- scan every membership on each batch (see bench/RESULTS.md).
        select c.id, t.task_kind, m.user_id as member_id
          from homework_reminder_events c
          join learning_tasks t on t.id = c.task_id
          left join course_members m on m.course_id = t.course_id and m.user_id = c.target_user_id
         where c.id = any(${ids}::uuid[])
      ) x
     where e.id = x.id
       and (
         (e.trigger_type in ('BEFORE_DUE_24H', 'DUE')
           and exists (select 1 from learning_submissions s where s.task_id = e.task_id and s.student_id = e.target_user_id))
         or x.task_kind <> 'HOMEWORK'
         or x.member_id is null
       )`
  return res.count
}

/**
 * Writes one HOMEWORK_REMINDER notification per claimed, not-canceled event. `event_id` is
 * unique: an event that somehow already has its notification is not delivered again.
 */
export async function insertReminderNotifications(tx: TxSql, ids: string[], now: Date) {
  // title/content: the English text with no clock time (rows are rendered for their reader from
  // params when read, see notifications/texts.ts).
  const inserted = await tx<{ id: string; user_id: string }[]>`
    insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at, event_id, params)
    select gen_uuid_v7(), e.target_user_id, 'HOMEWORK_REMINDER',
           case e.trigger_type
             when 'START' then 'New homework: ' || t.title
             when 'BEFORE_DUE_24H' then 'Homework due in 24 hours: ' || t.title
             else 'Homework due now: ' || t.title
           end,
           case e.trigger_type
             when 'START' then '"' || t.title || '" in ' || c.title || ' is open.'
             when 'BEFORE_DUE_24H' then '"' || t.title || '" in ' || c.title || ' is due in 24 hours. Remember to submit it in time.'
             else '"' || t.title || '" in ' || c.title || ' is due now. Submissions after the due time are marked late.'
           end,
           '/courses/' || t.course_id || '?taskId=' || t.id,
           ${now}, e.id,
           jsonb_build_object(
             'kind', 'HOMEWORK_REMINDER', 'trigger', e.trigger_type,
             'courseId', t.course_id, 'courseTitle', c.title, 'taskId', t.id, 'taskTitle', t.title,
             'startAt', to_char(t.start_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'dueAt', to_char(t.due_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
      from homework_reminder_events e
      join learning_tasks t on t.id = e.task_id
      join courses c on c.id = t.course_id
     where e.id = any(${ids}::uuid[]) and not e.canceled
    on conflict (event_id) do nothing
    returning id, user_id`
  countNotifications('HOMEWORK_REMINDER', inserted.length)
  return inserted
}

export async function markSent(tx: TxSql, ids: string[], now: Date) {
  const res = await tx`
    update homework_reminder_events
       set sent_at = ${now}
     where id = any(${ids}::uuid[]) and not canceled and sent_at is null`
  return res.count
}

export interface EventRow {
  task_id: string
  id: string | null
  target_user_id: string | null
  trigger_type: TriggerType | null
  scheduled_at: Date | null
  sent_at: Date | null
  canceled: boolean | null
}

/**
 * A homework's events for its teacher. The task is left-joined so that one query tells
 * "no such homework in this course" (no row) from "no events" (one row with a null event).
 */
export async function eventsOfHomework(sql: Sql, courseId: string, taskId: string) {
  return sql<EventRow[]>`
    select t.id as task_id, e.id, e.target_user_id, e.trigger_type, e.scheduled_at, e.sent_at, e.canceled
      from learning_tasks t
      left join homework_reminder_events e on e.task_id = t.id
     where t.id = ${taskId} and t.course_id = ${courseId} and t.task_kind = 'HOMEWORK'
     order by e.scheduled_at, e.created_at, e.id`
}
