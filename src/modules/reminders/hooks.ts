import type { TxSql } from '../../db/connect.ts'

/**
 * Seams between the learning/courses features and homework reminders. The learning feature
 * calls `homeworkScheduleChanged` inside the transaction that creates or edits a HOMEWORK task
 * (times or notify switches); the courses feature calls `studentJoined` inside the join.
 * The reminders feature implements them (cancel pending events, generate new ones set-based).
 */
export async function homeworkScheduleChanged(_tx: TxSql, _taskId: string, _now: Date): Promise<void> {
  // Implemented by the reminders feature (issue 5).
}

export async function studentJoined(_tx: TxSql, _courseId: string, _userId: string, _now: Date): Promise<void> {
  // Implemented by the reminders feature (issue 5).
}
