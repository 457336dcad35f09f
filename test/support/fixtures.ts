import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { uniq } from './harness.ts'

/**
 * SQL-level fixtures for tests that need rows owned by another feature's routes.
 * Prefer the HTTP API where the route exists; these keep features testable on their own.
 */
export async function insertCourse(sql: Sql, teacherId: string, title = 'Fixture course') {
  const id = newId()
  const inviteCode = uniq('C').toUpperCase().slice(0, 16)
  await sql`insert into courses (id, teacher_id, title, description, invite_code) values (${id}, ${teacherId}, ${title}, 'fixture', ${inviteCode})`
  return { id, inviteCode, title }
}

export async function addStudent(sql: Sql, courseId: string, userId: string, joinedAt = new Date()) {
  await sql`insert into course_members (course_id, user_id, joined_at) values (${courseId}, ${userId}, ${joinedAt}) on conflict do nothing`
}

export async function insertPoint(sql: Sql, courseId: string) {
  const unitId = newId()
  const pointId = newId()
  await sql`insert into learning_units (id, course_id, title, sort_order) values (${unitId}, ${courseId}, 'Unit', 1)`
  await sql`insert into knowledge_points (id, unit_id, course_id, title, sort_order) values (${pointId}, ${unitId}, ${courseId}, 'Point', 1)`
  return { unitId, pointId }
}

export async function insertHomework(
  sql: Sql,
  courseId: string,
  pointId: string,
  h: { title?: string; startAt: Date; dueAt: Date; notifyOnStart?: boolean; notifyBeforeDue24h?: boolean; notifyOnDue?: boolean },
) {
  const id = newId()
  await sql`
    insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, content,
                                start_at, due_at, notify_on_start, notify_before_due_24h, notify_on_due, sort_order)
    values (${id}, ${pointId}, ${courseId}, ${h.title ?? 'Homework'}, 'HOMEWORK', 'MEDIA', 'TEXT', '<p>Do it</p>',
            ${h.startAt}, ${h.dueAt}, ${h.notifyOnStart ?? true}, ${h.notifyBeforeDue24h ?? true}, ${h.notifyOnDue ?? true},
            (select coalesce(max(sort_order), 0) + 1 from learning_tasks where point_id = ${pointId}))`
  return { id }
}

export async function insertSubmission(sql: Sql, taskId: string, courseId: string, studentId: string, submittedAt: Date) {
  const id = newId()
  await sql`
    insert into learning_submissions (id, task_id, course_id, student_id, content, status, submitted_at)
    values (${id}, ${taskId}, ${courseId}, ${studentId}, '<p>answer</p>', 'SUBMITTED', ${submittedAt})`
  return { id }
}
