import type { Sql, TxSql } from '../../db/connect.ts'
import { studentCountOf } from '../../db/student-count.ts'
import { chunkEnd } from '../../db/student-range.ts'
import { cancelStaleForTask, generateForTask, TRIGGER_TYPES, type TriggerType } from './queries.ts'

/*
 * Reminder events of a homework in a large course, written by the background fan-out
 * (src/fanout.ts) in chunks of students instead of in the teacher's request.
 * A queued row (sql/045 reminder_fanout) stands for "bring this homework's events in line with
 * its current times": each chunk does for its students what homeworkScheduleChanged does for
 * all (cancel the stale pending events, generate the given triggers), in its own transaction
 * with the cursor, so a chunk is done exactly once and a crash resumes after the last one.
 */

/** Whether the homework's course has more students than are written inline. */
export async function isLargeCourseOfTask(tx: TxSql, taskId: string, inlineStudents: number): Promise<boolean> {
  const [row] = await tx<{ large: boolean }[]>`
    select ${studentCountOf(tx, tx`t.course_id`)} > ${inlineStudents} as large
      from learning_tasks t
     where t.id = ${taskId}`
  return row?.large ?? false
}

/**
 * Queues the homework's events. A row still queued for it (an earlier edit not yet through)
 * absorbs this one and starts over from the first student: the triggers of both, `published`
 * if either was, this request's `now`. The caller holds the task's row lock.
 */
export async function queueReminders(tx: TxSql, taskId: string, now: Date, published: boolean, triggers: readonly TriggerType[] = TRIGGER_TYPES) {
  await queue(tx, tx`t.id = ${taskId}`, now, published, triggers)
}

/** Every published homework of the course, queued as for a reschedule (the course was unarchived). */
export async function queueRemindersOfCourse(tx: TxSql, courseId: string, now: Date) {
  await queue(tx, tx`t.course_id = ${courseId} and t.task_kind = 'HOMEWORK' and t.publish_state = 'PUBLISHED'`, now, false, TRIGGER_TYPES)
}

async function queue(tx: TxSql, which: ReturnType<TxSql>, now: Date, published: boolean, triggers: readonly TriggerType[]) {
  await tx`
    insert into reminder_fanout (task_id, course_id, requested_at, published, triggers, queued_at)
    select t.id, t.course_id, ${now}, ${published}, ${triggers as TriggerType[]}::text[], now()
      from learning_tasks t where ${which}
     order by t.id
    on conflict (task_id) do update
       set requested_at = excluded.requested_at,
           published = reminder_fanout.published or excluded.published,
           triggers = array(select distinct x from unnest(reminder_fanout.triggers || excluded.triggers) as x order by x),
           after_user = null`
}

/** The homework no longer gets events (unpublished), or none of the course's (archived). */
export async function dropQueuedReminders(tx: TxSql, which: { taskId: string } | { courseId: string }) {
  if ('taskId' in which) await tx`delete from reminder_fanout where task_id = ${which.taskId}`
  else await tx`delete from reminder_fanout where course_id = ${which.courseId}`
}

/**
 * One chunk of the oldest queued homework that nobody else is working on: neither its queue row
 * (another runner) nor the task (an edit, which will queue again) is locked. False when there
 * is nothing to do.
 */
export async function reminderChunk(sql: Sql, size: number): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [job] = await tx<{ task_id: string; course_id: string; requested_at: Date; published: boolean; triggers: TriggerType[]; after_user: string | null }[]>`
      select j.task_id, j.course_id, j.requested_at, j.published, j.triggers, j.after_user
        from reminder_fanout j join learning_tasks t on t.id = j.task_id
       order by j.queued_at, j.task_id
       limit 1
         for update of j skip locked
         for key share of t skip locked`
    if (!job) return false
    const range = { after: job.after_user, upTo: await chunkEnd(tx, job.course_id, job.after_user, size) }
    await cancelStaleForTask(tx, job.task_id, job.requested_at, range)
    await generateForTask(tx, job.task_id, job.requested_at, job.published, false, job.triggers, range, 'optimistic')
    if (range.upTo === null) await tx`delete from reminder_fanout where task_id = ${job.task_id}`
    else await tx`update reminder_fanout set after_user = ${range.upTo} where task_id = ${job.task_id}`
    return true
  })
}
