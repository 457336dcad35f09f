import type { Sql } from '../../db/connect.ts'
import { iso, num } from '../../http/envelope.ts'
import type { HomeworkItem } from './model.ts'
import * as q from './queries.ts'
import { homeworkStatus, remainingSeconds, type HomeworkStatus } from './status.ts'

/** The one row → API mapping of the homework centre. */
export function toItem(r: q.HomeworkRow, now: Date): HomeworkItem {
  const item: HomeworkItem = {
    taskId: r.task_id,
    courseId: r.course_id,
    courseTitle: r.course_title,
    title: r.title,
    startAt: iso(r.start_at)!,
    dueAt: iso(r.due_at)!,
    status: homeworkStatus(now, r.start_at, r.due_at, r.is_teacher ? null : r.submitted_at),
    submittedAt: iso(r.submitted_at),
    score: num(r.score),
    remainingSeconds: remainingSeconds(now, r.due_at),
  }
  if (r.is_teacher) {
    item.submittedCount = r.submitted_count ?? 0
    item.studentCount = r.student_count ?? 0
  }
  return item
}

/**
 * The homework centre for one user: all their courses (`courseId` null) or one course, with
 * status computed at `now` (so the filter is applied here, on the computed status).
 */
export async function homeworkCentre(sql: Sql, userId: string, now: Date, f: { courseId: string | null; status?: HomeworkStatus }) {
  const [rows, unread] = await Promise.all([q.listHomework(sql, userId, f.courseId), q.unreadReminderCount(sql, userId)])
  const items = rows.map((r) => toItem(r, now)).filter((i) => !f.status || i.status === f.status)
  return { items, unreadReminderCount: unread }
}
