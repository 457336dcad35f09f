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
export async function generateForTask(tx: TxSql, taskId: string, now: Date, published = false, fresh = false) {
  // `fresh`: the task was inserted by this transaction, so no event of it exists and no other
  // transaction can write one (it cannot see the task): a plain insert, without the per-row
  // arbitration of ON CONFLICT against both unique indexes.
  return generateForMembers(tx, tx`t.id = ${taskId}`, now, published, !fresh)
}

/** The homework chosen by `which` × the course's students × switched-on triggers still ahead. */
async function generateForMembers(tx: TxSql, which: ReturnType<TxSql>, now: Date, published: boolean, arbitrate: boolean) {
  const res = await tx`
    insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
    select gen_uuid_v7(), t.id, m.user_id, tr.trigger_type, tr.scheduled_at, ${now}
      from learning_tasks t
      join course_members m on m.course_id = t.course_id
      ${triggersOf(tx, now, published)}
     where ${which}
       and t.task_kind = 'HOMEWORK'
       and tr.enabled
       and ${isAhead(tx, now)}
    ${arbitrate ? tx`on conflict do nothing` : tx``}`
  return res.count
}

/**
 * A late joiner's events: every homework of the course whose trigger time is still ahead, and
 * START at `now` for a homework that is open now (unless they already had START).
 */
export async function generateForStudent(tx: TxSql, courseId: string, userId: string, now: Date) {
  return generateForStudents(tx, [courseId], [userId], now)
}

/**
 * Late joiners in bulk (a roster import, invited addresses enrolled at registration): the
 * events `generateForStudent` gives one student, for every (course, student) pair in one
 * INSERT … SELECT.
 */
export async function generateForStudents(tx: TxSql, courseIds: string[], userIds: string[], now: Date) {
  if (courseIds.length === 0) return 0
  const res = await tx`
    insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
    select gen_uuid_v7(), t.id, j.user_id, tr.trigger_type, tr.scheduled_at, ${now}
      from unnest(${courseIds}::uuid[], ${userIds}::uuid[]) as j (course_id, user_id)
      join learning_tasks t on t.course_id = j.course_id
      ${triggersOf(tx, now, true)}
     where t.task_kind = 'HOMEWORK'
       and tr.enabled
       and ${isAhead(tx, now)}
     order by j.user_id, t.id
    on conflict do nothing`
  return res.count
}

/**
 * A student left or was removed: their pending events of the course's tasks are canceled (sent
 * ones stay as history). Found through the student's events (target index), each task by key.
 */
export async function cancelPendingForStudent(tx: TxSql, courseId: string, userId: string) {
  const res = await tx`
    update homework_reminder_events e
       set canceled = true
      from learning_tasks t
     where e.target_user_id = ${userId}
       and e.sent_at is null and not e.canceled
       and t.id = e.task_id and t.course_id = ${courseId}`
  return res.count
}

/** Cancels every pending event of the course's homework (the course was archived). */
export async function cancelPendingOfCourse(tx: TxSql, courseId: string) {
  const res = await tx`
    update homework_reminder_events e
       set canceled = true
      from learning_tasks t
     where t.course_id = ${courseId} and e.task_id = t.id
       and e.sent_at is null and not e.canceled`
  return res.count
}

/**
 * Every homework of the course × every student × switched-on trigger still ahead, in one
 * INSERT … SELECT (a course unarchived, or its homework just copied in: `published` as for a
 * new homework). Events already live for the same time win, as in generateForTask.
 */
export async function generateForCourse(tx: TxSql, courseId: string, now: Date, published = false) {
  return generateForMembers(tx, tx`t.course_id = ${courseId}`, now, published, true)
}

export interface DeliveredBatch {
  /** Events claimed (locked) by this batch: sent + canceled. */
  claimed: number
  canceled: number
  /** The notifications written, one per sent event. */
  written: { id: string; user_id: string }[]
}

/**
 * One dispatch batch as ONE statement: claims up to `limit` due pending events (FOR UPDATE
 * SKIP LOCKED: rows another dispatcher holds are skipped, not waited for; a row another
 * dispatcher sent between our snapshot and our lock is re-checked under READ COMMITTED and
 * dropped), judges each, marks it sent or canceled and writes the notification of every sent
 * one. An event is canceled instead of sent when its course is archived, its task is no longer homework, its student
 * is no longer in the course, or (BEFORE_DUE_24H, DUE) the student has already submitted.
 *
 * One statement instead of claim / cancel / insert / mark: each claimed row is read once and
 * updated once, and the task, course, membership and submission are looked up once per event
 * (membership and submission by key; the old left join of course_members probed the course's
 * members by course alone, 137 rows per event on the campus set).
 * `event_id` is unique: an event that somehow already has its notification is not delivered
 * again. Rows come back as the written notifications (id, user_id) plus one summary row
 * (id null) with the claimed and canceled counts, so an empty batch still answers.
 */
export async function deliverDue(tx: TxSql, now: Date, limit: number): Promise<DeliveredBatch> {
  // title/content: the English text with no clock time (rows are rendered for their reader from
  // params when read, see notifications/texts.ts).
  const rows = await tx<{ id: string | null; user_id: string | null; claimed: number; canceled: number }[]>`
    with claimed as (
      select id, task_id, target_user_id, trigger_type
        from homework_reminder_events
       where scheduled_at <= ${now} and sent_at is null and not canceled
       order by scheduled_at, id
       limit ${limit}
         for update skip locked
    ), tasks as (
      -- Each task of the batch once (a batch spans a few): what its notifications share. LIMIT 1
      -- keeps the lookup keyed (as a plain join the planner hashed all 20,400 tasks).
      select t.id, t.course_id, t.task_kind, t.title, t.archived,
             '"' || t.title || '" in ' || t.course_title as quoted,
             '/courses/' || t.course_id || '?taskId=' || t.id as action_path,
             jsonb_build_object(
               'kind', 'HOMEWORK_REMINDER',
               'courseId', t.course_id, 'courseTitle', t.course_title, 'taskId', t.id, 'taskTitle', t.title,
               'startAt', to_char(t.start_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'dueAt', to_char(t.due_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as params
        from (select distinct task_id from claimed) d
        cross join lateral (select t.id, t.course_id, t.title, t.start_at, t.due_at, t.task_kind, co.title as course_title, co.archived
                              from learning_tasks t join courses co on co.id = t.course_id
                             where t.id = d.task_id limit 1) t
    ), judged as (
      select c.id, c.target_user_id, c.trigger_type, t.id as task_id, t.title, t.quoted, t.action_path, t.params,
             t.task_kind = 'HOMEWORK' and not t.archived and m.member is not null
               and not (c.trigger_type in ('BEFORE_DUE_24H', 'DUE') and s.submitted is not null) as deliver
        from claimed c
        join tasks t on t.id = c.task_id
        -- Keyed probes, as above (as EXISTS the planner hashed all 81,800 memberships).
        left join lateral (select true as member from course_members m
                            where m.course_id = t.course_id and m.user_id = c.target_user_id limit 1) m on true
        left join lateral (select true as submitted from learning_submissions s
                            where s.task_id = c.task_id and s.student_id = c.target_user_id limit 1) s on true
    ), marked as (
      update homework_reminder_events e
         set sent_at = case when j.deliver then ${now}::timestamptz end,
             canceled = not j.deliver
        from judged j
       where e.id = j.id
      returning e.id
    ), written as (
      insert into notifications (id, user_id, notification_type, title, content, action_path, delivered_at, event_id, params)
      select gen_uuid_v7(), j.target_user_id, 'HOMEWORK_REMINDER',
             case j.trigger_type
               when 'START' then 'New homework: ' || j.title
               when 'BEFORE_DUE_24H' then 'Homework due in 24 hours: ' || j.title
               else 'Homework due now: ' || j.title
             end,
             case j.trigger_type
               when 'START' then j.quoted || ' is open.'
               when 'BEFORE_DUE_24H' then j.quoted || ' is due in 24 hours. Remember to submit it in time.'
               else j.quoted || ' is due now. Submissions after the due time are marked late.'
             end,
             j.action_path, ${now}, j.id, j.params || jsonb_build_object('trigger', j.trigger_type)
        from judged j
       where j.deliver
      on conflict (event_id) do nothing
      returning id, user_id
    )
    select null::uuid as id, null::uuid as user_id,
           (select count(*) from marked)::int as claimed,
           (select count(*) from judged where not deliver)::int as canceled
    union all
    select id, user_id, 0, 0 from written`
  const summary = rows.find((r) => r.id === null)!
  const written = rows.filter((r): r is typeof r & { id: string; user_id: string } => r.id !== null)
  countNotifications('HOMEWORK_REMINDER', written.length)
  return { claimed: summary.claimed, canceled: summary.canceled, written: written.map((r) => ({ id: r.id, user_id: r.user_id })) }
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
      -- Live and canceled events each by their own index (sql/027).
      left join lateral (
        select l.id, l.target_user_id, l.trigger_type, l.scheduled_at, l.sent_at, l.canceled, l.created_at
          from homework_reminder_events l where l.task_id = t.id and not l.canceled
        union all
        select c.id, c.target_user_id, c.trigger_type, c.scheduled_at, c.sent_at, c.canceled, c.created_at
          from homework_reminder_events c where c.task_id = t.id and c.canceled
      ) e on true
     where t.id = ${taskId} and t.course_id = ${courseId} and t.task_kind = 'HOMEWORK'
     order by e.scheduled_at, e.created_at, e.id`
}

/**
 * Cancels every pending event of one task (it was unpublished: students no longer see it); sent
 * ones stay as history. Live and canceled events have their own indexes (sql/027): this reads
 * the live ones of the task only.
 */
export async function cancelPendingOfTask(tx: TxSql, taskId: string) {
  const res = await tx`
    update homework_reminder_events
       set canceled = true
     where task_id = ${taskId} and sent_at is null and not canceled`
  return res.count
}
