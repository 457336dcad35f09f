import type { Sql } from '../db/connect.ts'
import type { Locale } from '../i18n/locale.ts'
import { conflict, forbidden, notFound } from './errors.ts'

export type Role = 'STUDENT' | 'TEACHER'

export interface CurrentUser {
  id: string
  username: string
  email: string
  displayName: string
  role: Role
  createdAt: Date
  /** The language the user chose (`en`, `zh-CN`); null: the browser's Accept-Language decides. */
  locale?: Locale | null
  /** Whether the user proved they receive mail at `email` (notification mails go only to verified addresses). */
  emailVerified?: boolean
}

export interface CourseAccess {
  id: string
  title: string
  teacherId: string
  /** The caller's role in this course: its owner and its co-teachers are TEACHER. */
  as: 'TEACHER' | 'STUDENT'
  /** The caller owns the course (courses.teacher_id); false for co-teachers and students. */
  owner: boolean
}

/** Whether the caller means to change something in the course: an archived course refuses it. */
export interface CourseIntent {
  write?: boolean
}

export const courseArchived = () =>
  conflict('COURSE_ARCHIVED', 'This course is archived and read-only. Its teacher can unarchive it to make changes.')

/**
 * member: a teacher or a student of it; teacher: its owner or a co-teacher (every teacher
 * right); owner: its owner only (managing co-teachers); student: a student of it.
 */
export type CourseLevel = 'member' | 'teacher' | 'owner' | 'student'

/**
 * The one course guard: 404 for an unknown course, 403 for a non-member (or a non-teacher
 * when `level` is 'teacher'), 409 (40908) for a write (`intent.write`) in an archived course. Routes use it through the `course` macro; services that reach
 * a course through another id (an experiment, a resource) call it directly.
 */
export async function courseAccess(
  sql: Sql,
  courseId: string,
  user: CurrentUser,
  level: CourseLevel,
  intent: CourseIntent = {},
): Promise<CourseAccess> {
  // Co-teachers (sql/034) are teachers here, so every route guarded by `course: 'teacher'`
  // (and every service that calls this) gives them the owner's rights.
  const [row] = await sql<{ id: string; title: string; teacher_id: string; archived: boolean; is_member: boolean; is_co_teacher: boolean }[]>`
    select c.id, c.title, c.teacher_id, c.archived,
           exists (select 1 from course_members m where m.course_id = c.id and m.user_id = ${user.id}) as is_member,
           exists (select 1 from course_teachers t where t.course_id = c.id and t.user_id = ${user.id}) as is_co_teacher
      from courses c
     where c.id = ${courseId}`
  if (!row) throw notFound('COURSE_NOT_FOUND', 'This course does not exist.')
  const owner = row.teacher_id === user.id
  const isTeacher = owner || row.is_co_teacher
  if (!isTeacher && !row.is_member) throw forbidden('You are not a member of this course.')
  if (level === 'teacher' && !isTeacher) throw forbidden("Only this course's teacher can do this.")
  if (level === 'owner' && !owner) throw forbidden("Only the course's owner can do this.")
  if (level === 'student' && isTeacher) throw forbidden('Only students of this course can do this.')
  // After the role checks: who may not use the course learns nothing about its state.
  if (intent.write && row.archived) throw courseArchived()
  return { id: row.id, title: row.title, teacherId: row.teacher_id, as: isTeacher ? 'TEACHER' : 'STUDENT', owner }
}

/** A comment (sql/055) the caller may see, with their access to its course. */
export interface CommentAccess {
  id: string
  authorId: string
  /** Set: a comment of this student's private thread. */
  studentId: string | null
  hidden: boolean
  createdAt: Date
  course: CourseAccess
}

const commentNotFound = () => notFound('COMMENT_NOT_FOUND', 'This comment does not exist.')

/**
 * The comment guard (`comment` macro, PATCH/DELETE /comments/{id}): whoever may not see the
 * comment — not in its course (any more), another student's private thread, someone else's
 * comment a teacher hid — gets 404 as for an unknown id; a change by someone other than its
 * author (or a teacher, for a class comment) → 403; a write in an archived course → 409 (40908),
 * after that.
 */
export async function commentAccess(sql: Sql, commentId: string, user: CurrentUser, intent: CourseIntent = {}): Promise<CommentAccess> {
  const [row] = await sql<{ course_id: string; author_id: string; student_id: string | null; hidden: boolean; created_at: Date }[]>`
    select course_id, author_id, student_id, hidden, created_at from comments where id = ${commentId}`
  if (!row) throw commentNotFound()
  let course: CourseAccess
  try {
    course = await courseAccess(sql, row.course_id, user, 'member')
  } catch (e) {
    throw e instanceof Error && 'status' in e && e.status === 403 ? commentNotFound() : e
  }
  const student = course.as === 'STUDENT'
  if (student && row.student_id && row.student_id !== user.id) throw commentNotFound()
  if (student && row.hidden && row.author_id !== user.id) throw commentNotFound()
  // A change is its author's, or a teacher's for a class comment (moderation), whatever the body.
  if (intent.write && row.author_id !== user.id && (student || row.student_id)) throw forbidden('You can change only your own comments.')
  if (intent.write) await courseAccess(sql, row.course_id, user, 'member', intent)
  return { id: commentId, authorId: row.author_id, studentId: row.student_id, hidden: row.hidden, createdAt: row.created_at, course }
}

/**
 * A student of the course may address only their own private thread (`studentId`): another
 * student's → 403; an id that names no student of the course → 404, as it would for a teacher.
 */
export async function ownThreadOnly(sql: Sql, course: CourseAccess, user: CurrentUser, studentId: string) {
  if (course.as !== 'STUDENT' || studentId === user.id) return
  const [row] = await sql`select 1 from course_members where course_id = ${course.id} and user_id = ${studentId}`
  if (!row) throw notFound('NOT_FOUND', 'This account is not a student of this course.')
  throw forbidden('This private thread belongs to another student.')
}
