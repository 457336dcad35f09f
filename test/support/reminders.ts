import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { homeworkScheduleChanged, studentJoined } from '../../src/modules/reminders/hooks.ts'
import { addStudent, insertHomework } from './fixtures.ts'
import { uniq } from './harness.ts'

export const HOUR = 3_600_000
export const DAY = 24 * HOUR
export const plus = (d: Date, ms: number) => new Date(d.getTime() + ms)

type HomeworkInput = Parameters<typeof insertHomework>[3]

/** Creates a homework row and generates its events, as the learning feature does in its transaction. */
export async function createHomework(sql: Sql, courseId: string, pointId: string, h: HomeworkInput, now: Date) {
  const hw = await insertHomework(sql, courseId, pointId, h)
  await sql.begin((tx) => homeworkScheduleChanged(tx, hw.id, now, { published: true }))
  return hw
}

/** Changes a homework's times or switches and reschedules, as the learning feature's PATCH does. */
export async function rescheduleHomework(
  sql: Sql,
  taskId: string,
  h: { startAt?: Date; dueAt?: Date; notifyOnStart?: boolean; notifyBeforeDue24h?: boolean; notifyOnDue?: boolean },
  now: Date,
) {
  await sql.begin(async (tx) => {
    await tx`
      update learning_tasks
         set start_at = coalesce(${h.startAt ?? null}::timestamptz, start_at),
             due_at = coalesce(${h.dueAt ?? null}::timestamptz, due_at),
             notify_on_start = coalesce(${h.notifyOnStart ?? null}::boolean, notify_on_start),
             notify_before_due_24h = coalesce(${h.notifyBeforeDue24h ?? null}::boolean, notify_before_due_24h),
             notify_on_due = coalesce(${h.notifyOnDue ?? null}::boolean, notify_on_due),
             updated_at = ${now}
       where id = ${taskId}`
    await homeworkScheduleChanged(tx, taskId, now)
  })
}

/** A student joins later, as the courses feature does in its join transaction. */
export async function joinLate(sql: Sql, courseId: string, userId: string, now: Date) {
  await addStudent(sql, courseId, userId, now)
  await sql.begin((tx) => studentJoined(tx, courseId, userId, now))
}

/** Many students at once, straight into the table (no password hashing): for volume tests. */
export async function bulkStudents(sql: Sql, n: number) {
  const rows = Array.from({ length: n }, () => {
    const username = uniq('bs')
    return { id: newId(), username, email: `${username}@example.test`, password_hash: 'x', display_name: username, role: 'STUDENT' }
  })
  await sql`insert into users ${sql(rows, 'id', 'username', 'email', 'password_hash', 'display_name', 'role')}`
  return rows.map((r) => r.id)
}

export async function bulkJoin(sql: Sql, courseId: string, userIds: string[]) {
  const rows = userIds.map((user_id) => ({ course_id: courseId, user_id }))
  await sql`insert into course_members ${sql(rows, 'course_id', 'user_id')}`
}

export interface EventRecord {
  id: string
  target_user_id: string
  trigger_type: 'START' | 'BEFORE_DUE_24H' | 'DUE'
  scheduled_at: Date
  sent_at: Date | null
  canceled: boolean
}

export async function eventsOf(sql: Sql, taskIds: string | string[]) {
  const ids = Array.isArray(taskIds) ? taskIds : [taskIds]
  return sql<EventRecord[]>`
    select id, target_user_id, trigger_type, scheduled_at, sent_at, canceled
      from homework_reminder_events
     where task_id = any(${ids}::uuid[])
     order by scheduled_at, trigger_type, target_user_id, created_at`
}

export const live = (events: EventRecord[]) => events.filter((e) => !e.canceled)
export const pending = (events: EventRecord[]) => events.filter((e) => !e.canceled && !e.sent_at)

/** Notifications delivering these tasks' events, with how many per event. */
export async function deliveriesOf(sql: Sql, taskIds: string[]) {
  return sql<{ event_id: string; user_id: string; n: number }[]>`
    select n.event_id, n.user_id, count(*)::int as n
      from notifications n
      join homework_reminder_events e on e.id = n.event_id
     where e.task_id = any(${taskIds}::uuid[])
     group by n.event_id, n.user_id`
}
