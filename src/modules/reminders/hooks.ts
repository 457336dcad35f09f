import type { TxSql } from '../../db/connect.ts'
import type { FanoutPolicy } from '../../lib/fanout.ts'
import { studentCount } from '../../db/student-range.ts'
import { dropQueuedReminders, largeCourseOfTask, queueReminders, queueRemindersOfCourse } from './fanout.ts'
import { type TriggerType, cancelPendingForStudent, cancelPendingOfCourse, cancelPendingOfTask, cancelStaleForTask, generateForCourse, generateForStudent, generateForStudents, generateForTask, lockTask } from './queries.ts'

/**
 * Seams between the learning/courses features and homework reminders, called inside the
 * caller's transaction so events change together with the task or the membership.
 *
 * The learning feature calls `homeworkCreated` after inserting a HOMEWORK task, and
 * `homeworkScheduleChanged` after editing a HOMEWORK task (times or notify switches) and after
 * turning a task into or out of homework, with `published: true` when the task became homework
 * by this write (changed to HOMEWORK). Publishing an already open homework (created as or
 * changed to HOMEWORK) gives each student START at `now`. The courses feature calls
 * `studentJoined` after inserting the membership.
 *
 * With `fanout` (the app's background fan-out, src/fanout.ts), a homework of a course with
 * more than FANOUT_INLINE_STUDENTS students is queued instead of written here: the hook returns
 * true and the caller kicks the runner after its commit. Without it everything is inline.
 */
export async function homeworkScheduleChanged(
  tx: TxSql,
  taskId: string,
  now: Date,
  opts: { published?: boolean; triggers?: readonly TriggerType[] } = {},
  fanout?: FanoutPolicy,
): Promise<boolean> {
  // Serialises concurrent edits of one task (a no-op when the caller already updated the row),
  // so the second edit's cancel sees the first edit's events.
  await lockTask(tx, taskId)
  const large = fanout ? await largeCourseOfTask(tx, taskId, fanout.inlineStudents) : null
  if (large) {
    await queueReminders(tx, taskId, large, now, opts.published ?? false, fanout!.parts, opts.triggers)
    return true
  }
  await cancelStaleForTask(tx, taskId, now)
  // A task that is no longer homework gets nothing: the insert filters on task_kind. Only the
  // triggers whose time or switch changed can have new events (`triggers`, default all).
  await generateForTask(tx, taskId, now, opts.published ?? false, false, opts.triggers)
  return false
}

/**
 * A HOMEWORK task was just inserted in this transaction: its events, with START at `now` when it
 * is already open. Nothing to lock or cancel (no one else can see the task yet).
 */
export async function homeworkCreated(tx: TxSql, taskId: string, now: Date, fanout?: FanoutPolicy): Promise<boolean> {
  const large = fanout ? await largeCourseOfTask(tx, taskId, fanout.inlineStudents) : null
  if (large) {
    await queueReminders(tx, taskId, large, now, true, fanout!.parts)
    return true
  }
  await generateForTask(tx, taskId, now, true, true)
  return false
}

export async function studentJoined(tx: TxSql, courseId: string, userId: string, now: Date): Promise<void> {
  await generateForStudent(tx, courseId, userId, now)
}

/** Many memberships inserted at once (pairs by position): each student's events, as `studentJoined`. */
export async function studentsJoined(tx: TxSql, courseIds: string[], userIds: string[], now: Date): Promise<void> {
  await generateForStudents(tx, courseIds, userIds, now)
}

/** The membership was deleted in this transaction: the student's pending reminders of the course go. */
export async function studentLeft(tx: TxSql, courseId: string, userId: string): Promise<void> {
  await cancelPendingForStudent(tx, courseId, userId)
}

/** The course was archived in this transaction: nothing more is sent from it. */
export async function courseArchived(tx: TxSql, courseId: string): Promise<void> {
  await dropQueuedReminders(tx, { courseId })
  await cancelPendingOfCourse(tx, courseId)
}

/** The course is active again: the events whose times are still ahead, as for a rescheduled homework. */
export async function courseUnarchived(tx: TxSql, courseId: string, now: Date, fanout?: FanoutPolicy): Promise<boolean> {
  const students = fanout ? await studentCount(tx, courseId) : 0
  if (fanout && students > fanout.inlineStudents) {
    await queueRemindersOfCourse(tx, { courseId, students }, now, fanout.parts)
    return true
  }
  await generateForCourse(tx, courseId, now)
  return false
}

/** Homework was copied into the course in this transaction: events as a normal creation gives. */
export async function homeworkCopied(tx: TxSql, courseId: string, now: Date): Promise<void> {
  await generateForCourse(tx, courseId, now, true)
}

/**
 * A homework was unpublished in this transaction (students no longer see it): its pending
 * reminders are canceled; sent ones stay as history. The caller holds the task's row lock, and
 * every generator in queries.ts writes events of PUBLISHED tasks only.
 */
export async function homeworkUnpublished(tx: TxSql, taskId: string): Promise<void> {
  await dropQueuedReminders(tx, { taskId })
  await cancelPendingOfTask(tx, taskId)
}
