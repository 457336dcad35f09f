import type { Sql, TxSql } from '../../db/connect.ts'
import { studentCountOf } from '../../db/student-count.ts'
import { nextChunk, partRows, partsOf, type CourseSize } from '../../db/student-range.ts'
import { cancelStaleForTask, generateForTask, TRIGGER_TYPES, type TriggerType } from './queries.ts'

/*
 * Reminder events of a homework in a large course, written by the background fan-out
 * (src/fanout.ts) in chunks of students instead of in the teacher's request.
 * A queued row (sql/045 reminder_fanout) stands for "bring this homework's events in line with
 * its current times": each chunk does for its students what homeworkScheduleChanged does for
 * all (cancel the stale pending events, generate the given triggers), in its own transaction
 * with the cursor, so a chunk is done exactly once and a crash resumes after the last one.
 */

/** The homework's course and its students when they are more than are written inline, else null. */
export async function largeCourseOfTask(tx: TxSql, taskId: string, inlineStudents: number): Promise<CourseSize | null> {
  const [row] = await tx<{ course_id: string; students: number }[]>`
    select t.course_id, ${studentCountOf(tx, tx`t.course_id`)} as students
      from learning_tasks t
     where t.id = ${taskId}`
  return row && row.students > inlineStudents ? { courseId: row.course_id, students: row.students } : null
}

/**
 * Queues the homework's events, in `parts` ranges of the course's students (sql/050) that runners
 * write at once. Parts still queued for it (an earlier edit not yet through) absorb this one, and
 * every part starts over from its first student: the triggers of both, `published` if either
 * was, this request's `now`. The caller holds the task's row lock.
 */
export async function queueReminders(tx: TxSql, taskId: string, course: CourseSize, now: Date, published: boolean, parts: number, triggers: readonly TriggerType[] = TRIGGER_TYPES) {
  await queue(tx, tx`t.id = ${taskId}`, course, now, published, parts, triggers)
}

/** Every published homework of the course, queued as for a reschedule (the course was unarchived). */
export async function queueRemindersOfCourse(tx: TxSql, course: CourseSize, now: Date, parts: number) {
  await queue(tx, tx`t.course_id = ${course.courseId} and t.task_kind = 'HOMEWORK' and t.publish_state = 'PUBLISHED'`, course, now, false, parts, TRIGGER_TYPES)
}

/*
 * One row per (task, part). What a task's queued parts carry is merged across all of them: each
 * new part covers students that any old part may not have reached, and the new part bounds need
 * not be the old ones (the course's students changed meanwhile). Parts beyond the new count (a
 * smaller FANOUT_WORKERS) go.
 */
async function queue(tx: TxSql, which: ReturnType<TxSql>, course: CourseSize, now: Date, published: boolean, parts: number, triggers: readonly TriggerType[]) {
  const ranges = await partsOf(tx, course, parts)
  await tx`
    insert into reminder_fanout as f (task_id, course_id, part, after_user, up_to_user, requested_at, published, triggers, queued_at)
    select t.id, t.course_id, p.part - 1, p.after_user, p.up_to_user, ${now},
           ${published} or coalesce((select bool_or(o.published) from reminder_fanout o where o.task_id = t.id), false),
           array(select distinct x
                   from (select unnest(${triggers as TriggerType[]}::text[]) union all
                         select unnest(o.triggers) from reminder_fanout o where o.task_id = t.id) as u (x)
                  order by x),
           now()
      from learning_tasks t
     cross join ${partRows(tx, ranges)}
     where ${which}
     order by t.id, p.part
    on conflict (task_id, part) do update
       set requested_at = excluded.requested_at,
           published = excluded.published,
           triggers = excluded.triggers,
           after_user = excluded.after_user,
           up_to_user = excluded.up_to_user`
  await tx`delete from reminder_fanout f using learning_tasks t where f.task_id = t.id and ${which} and f.part >= ${ranges.length}`
}

/** The homework no longer gets events (unpublished), or none of the course's (archived). */
export async function dropQueuedReminders(tx: TxSql, which: { taskId: string } | { courseId: string }) {
  if ('taskId' in which) await tx`delete from reminder_fanout where task_id = ${which.taskId}`
  else await tx`delete from reminder_fanout where course_id = ${which.courseId}`
}

/**
 * One chunk of the oldest queued homework part that nobody else is working on: neither its queue
 * row (another runner) nor the task (an edit, which will queue again) is locked. Runners take
 * different parts of one homework at once (the task is only key-share locked). False when there is
 * nothing to do.
 */
export async function reminderChunk(sql: Sql, size: number): Promise<boolean> {
  return sql.begin(async (tx) => {
    const [job] = await tx<{ task_id: string; part: number; course_id: string; requested_at: Date; published: boolean; triggers: TriggerType[]; after_user: string | null; up_to_user: string | null }[]>`
      select j.task_id, j.part, j.course_id, j.requested_at, j.published, j.triggers, j.after_user, j.up_to_user
        from reminder_fanout j join learning_tasks t on t.id = j.task_id
       order by j.queued_at, j.task_id, j.part
       limit 1
         for update of j skip locked
         for key share of t skip locked`
    if (!job) return false
    const chunk = await nextChunk(tx, job.course_id, job.after_user, job.up_to_user, size)
    const range = { after: job.after_user, upTo: chunk.upTo }
    await cancelStaleForTask(tx, job.task_id, job.requested_at, range)
    await generateForTask(tx, job.task_id, job.requested_at, job.published, false, job.triggers, range, 'optimistic')
    if (chunk.last) await tx`delete from reminder_fanout where task_id = ${job.task_id} and part = ${job.part}`
    else await tx`update reminder_fanout set after_user = ${chunk.upTo} where task_id = ${job.task_id} and part = ${job.part}`
    return true
  })
}
