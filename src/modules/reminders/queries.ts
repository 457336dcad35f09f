import { plainFirst, type OnConflict } from '../../db/plain-first.ts'
import type { Sql, TxSql } from '../../db/connect.ts'
import { uuidV7Rows } from '../../db/uuid-v7.ts'
import { inRange, type StudentRange } from '../../db/student-range.ts'
import { openSql } from '../../db/due-sql.ts'

export type TriggerType = 'START' | 'BEFORE_DUE_24H' | 'DUE'
export const TRIGGER_TYPES: readonly TriggerType[] = ['START', 'BEFORE_DUE_24H', 'DUE']

/*
 * The trigger points of a homework task `t`, as rows (trigger_type, scheduled_at, enabled).
 * Written once here and spliced into the generating statements, so the three times are
 * defined in one place: START = start_at, BEFORE_DUE_24H = due_at - 24h, DUE = due_at.
 *
 * `startNow`: the homework is being published (created as or turned into HOMEWORK) or a student
 * is joining. If it is already open (start_at <= now <= due_at, the rule of src/lib/due.ts: at
 * exactly due_at work is still on time), START is scheduled at `now` ("new homework", sent by the
 * next scan) instead of at its passed start_at.
 */
const triggersOf = (sql: Sql | TxSql, now: Date, startNow: boolean) => sql`
  cross join lateral (values
    ('START',
     case when ${startNow} and ${openSql(sql, sql`${now}::timestamptz`, sql`t.start_at`, sql`t.due_at`)} then ${now}::timestamptz else t.start_at end,
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
 * Whether event `e` still has its task `t`'s time for its trigger, with the trigger switched on:
 * START at start_at, or a publish-time START (scheduled at or before `now`, while the homework
 * was open); BEFORE_DUE_24H at due_at - 24h; DUE at due_at. The one rule for "stale": a
 * reschedule cancels the pending events that fail it, and the dispatch cancels instead of
 * sending a due one that fails it (its reschedule still being written by the background fan-out).
 * `e` and `t` are the aliases (any relations with these columns).
 */
export const onSchedule = (sql: Sql | TxSql, e: string, t: string, now: Date) => sql`
  case ${sql(e)}.trigger_type
    when 'START' then ${sql(t)}.notify_on_start
      and (${sql(e)}.scheduled_at = ${sql(t)}.start_at
           or (${sql(e)}.scheduled_at <= ${now} and ${openSql(sql, sql`${sql(e)}.scheduled_at`, sql`${sql(t)}.start_at`, sql`${sql(t)}.due_at`)}))
    when 'BEFORE_DUE_24H' then ${sql(t)}.notify_before_due_24h and ${sql(e)}.scheduled_at = ${sql(t)}.due_at - interval '24 hours'
    else ${sql(t)}.notify_on_due and ${sql(e)}.scheduled_at = ${sql(t)}.due_at
  end`

/**
 * Cancels the task's pending events that no longer match its schedule: the task is no longer
 * homework, the trigger was switched off, or its time moved. A pending START scheduled at
 * publish time stays while the homework is still open at that time. Unchanged times keep their
 * events (a student who extends nothing gets nothing new); sent ones stay as history.
 */
export async function cancelStaleForTask(tx: TxSql, taskId: string, now: Date, range?: StudentRange) {
  const res = await tx`
    update homework_reminder_events e
       set canceled = true
      from learning_tasks t
     where e.task_id = ${taskId} and t.id = e.task_id
       and e.sent_at is null and not e.canceled
       ${range ? inRange(tx, tx`e.target_user_id`, range) : tx``}
       and not (t.task_kind = 'HOMEWORK' and ${onSchedule(tx, 'e', 't', now)})`
  return res.count
}

/**
 * One event per (current student × switched-on trigger whose time is still ahead), in one
 * INSERT … SELECT. A live event for the same (task, student, trigger, time) — pending or sent —
 * wins over a new one (each reminder reaches a student once per deadline), and so does any live
 * START (START at most once per homework and student): both are unique indexes (sql/010), and
 * ON CONFLICT without a target skips a row that violates either.
 */
export async function generateForTask(
  tx: TxSql,
  taskId: string,
  now: Date,
  published = false,
  fresh = false,
  only: readonly TriggerType[] = TRIGGER_TYPES,
  range?: StudentRange,
  arbitrate: Arbitration = fresh ? 'none' : 'optimistic',
) {
  // `fresh`: the task was inserted by this transaction, so no event of it exists and no other
  // transaction can write one (it cannot see the task): a plain insert, without the per-row
  // arbitration of ON CONFLICT against the unique index.
  // `only`: the triggers whose time or switch changed; the others keep their events, so their
  // candidates (one per student) are not even looked at (a moved deadline in a 100,000-student
  // course skipped 100,000 START probes).
  if (only.length === 0) return 0
  return generateForMembers(tx, () => tx`t.id = ${taskId}`, now, published, arbitrate, only, range)
}

/*
 * Only a task students can see (PUBLISHED) gets events; the generating statements filter on it.
 * The filter reads the statement's snapshot, so the homework is locked first: FOR KEY SHARE
 * waits for an edit that holds the task (every edit, an unpublish too, locks it FOR UPDATE:
 * learning/structure-queries `findTaskForUpdate`) and then the insert's new snapshot sees the committed state; an unpublish
 * that comes later waits for this transaction and cancels what it wrote.
 */
async function lockVisibleTasks(tx: TxSql, which: ReturnType<TxSql>) {
  await tx`select 1 from learning_tasks t where ${which} and t.task_kind = 'HOMEWORK' for key share of t`
}

/**
 * How a generating insert treats a live event that already holds a row's place in the unique
 * key (sql/040): 'none' — none can exist (a task inserted by this transaction); 'conflict' —
 * ON CONFLICT DO NOTHING; 'optimistic' — plainly, and as 'conflict' only if it meets one
 * (db/plain-first.ts). A NOT EXISTS probe per row instead costs ~+10 %; the background
 * fan-out's chunks rarely meet a live event (a student who joined meanwhile, an unchanged START).
 */
type Arbitration = OnConflict | 'optimistic'

/**
 * The homework chosen by `which` × the course's students × switched-on triggers still ahead.
 * Rows go in trigger by trigger (task, time, student): the events one dispatch moment sends (a
 * homework's START, its 24-hour reminder, its DUE) then lie on their own heap pages, in the
 * order the dispatch claims them (scheduled_at, id), instead of one in three on every page of
 * the homework's events; marking 100,001 START events sent touches a third of the pages and
 * writes 13 % less WAL per event (bench/RESULTS-mooc.md, 27 Nov; the CPU saved, ~6 %, is within
 * the box's noise). Writing them costs no more (each trigger's entries of the unique index go in
 * in key order, pass by pass).
 */
async function generateForMembers(
  tx: TxSql,
  which: () => ReturnType<TxSql>,
  now: Date,
  published: boolean,
  arbitrate: Arbitration,
  only: readonly TriggerType[] = TRIGGER_TYPES,
  range?: StudentRange,
): Promise<number> {
  await lockVisibleTasks(tx, which())
  if (arbitrate === 'optimistic') return plainFirst(tx, (q, onConflict) => insertForMembers(q, which, now, published, onConflict, only, range))
  return insertForMembers(tx, which, now, published, arbitrate, only, range)
}

async function insertForMembers(
  tx: TxSql,
  which: () => ReturnType<TxSql>,
  now: Date,
  published: boolean,
  arbitrate: OnConflict,
  only: readonly TriggerType[],
  range: StudentRange | undefined,
): Promise<number> {
  const order = tx`t.id, tr.scheduled_at, tr.trigger_type, m.user_id`
  // References checked per statement by triggers, not foreign keys (src/db/dropped-foreign-keys.ts).
  const res = await tx`
    insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
    select ${uuidV7Rows(tx, order)}, t.id, m.user_id, tr.trigger_type, tr.scheduled_at, ${now}
      from learning_tasks t
      join course_members m on m.course_id = t.course_id
      ${triggersOf(tx, now, published)}
     where ${which()}
       and t.task_kind = 'HOMEWORK'
       and t.publish_state = 'PUBLISHED'
       and tr.enabled
       and ${isAhead(tx, now)}
       ${only.length === TRIGGER_TYPES.length ? tx`` : tx`and tr.trigger_type = any(${only as TriggerType[]}::text[])`}
       ${range ? inRange(tx, tx`m.user_id`, range) : tx``}
     order by ${order}
    ${arbitrate === 'conflict' ? tx`on conflict do nothing` : tx``}`
  return res.count
}

/**
 * A late joiner's events: every homework of the course whose trigger time is still ahead, and
 * START at `now` for a homework that is open now (unless they already had START). The course and
 * student are scalar parameters here, not the arrays of `generateForStudents`: with arrays of
 * unknown length PostgreSQL kept re-planning both statements at every join (custom plans,
 * ~0.24 ms of a join's ~1.5 ms of database CPU); with scalars it keeps one generic plan.
 */
export async function generateForStudent(tx: TxSql, courseId: string, userId: string, now: Date) {
  return generateForPairs(tx, tx`t.course_id = ${courseId}::uuid`, tx`(select ${courseId}::uuid, ${userId}::uuid)`, now)
}

/**
 * Late joiners in bulk (a roster import, invited addresses enrolled at registration): the
 * events `generateForStudent` gives one student, for every (course, student) pair in one
 * INSERT … SELECT.
 */
export async function generateForStudents(tx: TxSql, courseIds: string[], userIds: string[], now: Date) {
  if (courseIds.length === 0) return 0
  return generateForPairs(tx, tx`t.course_id = any(${[...new Set(courseIds)]}::uuid[])`, tx`unnest(${courseIds}::uuid[], ${userIds}::uuid[])`, now)
}

/** The (course, student) pairs of `pairs` (a relation of two uuid columns), the homework of `courses` locked first. */
async function generateForPairs(tx: TxSql, courses: ReturnType<TxSql>, pairs: ReturnType<TxSql>, now: Date) {
  await lockVisibleTasks(tx, courses)
  const order = tx`j.user_id, t.id`
  // References checked per statement by triggers, not foreign keys (src/db/dropped-foreign-keys.ts).
  const res = await tx`
    insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
    select ${uuidV7Rows(tx, order)}, t.id, j.user_id, tr.trigger_type, tr.scheduled_at, ${now}
      from ${pairs} as j (course_id, user_id)
      join learning_tasks t on t.course_id = j.course_id
      ${triggersOf(tx, now, true)}
     where t.task_kind = 'HOMEWORK'
       and t.publish_state = 'PUBLISHED'
       and tr.enabled
       and ${isAhead(tx, now)}
     order by ${order}
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
  return generateForMembers(tx, () => tx`t.course_id = ${courseId}`, now, published, 'conflict')
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
