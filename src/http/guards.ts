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
