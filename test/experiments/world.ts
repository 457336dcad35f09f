import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, type Account, type TestContext } from '../support/harness.ts'

export interface World {
  teacher: Account
  students: Account[]
  /** A student who is in no course of this world. */
  outsider: Account
  /** A teacher of another course. */
  otherTeacher: Account
  course: { id: string; title: string }
  otherCourse: { id: string; title: string }
}

/** A course with a teacher and students, plus people who must not get in. */
export async function world(ctx: TestContext, opts: { students?: number; courseTitle?: string; names?: string[] } = {}): Promise<World> {
  const teacher = await signUp(ctx.api, 'TEACHER')
  const otherTeacher = await signUp(ctx.api, 'TEACHER')
  const outsider = await signUp(ctx.api, 'STUDENT')
  const students: Account[] = []
  for (let i = 0; i < (opts.students ?? 2); i++) students.push(await signUp(ctx.api, 'STUDENT', opts.names?.[i]))
  const course = await insertCourse(ctx.deps.sql, teacher.id, opts.courseTitle ?? 'Physics lab')
  const otherCourse = await insertCourse(ctx.deps.sql, otherTeacher.id, 'Other course')
  for (const s of students) await addStudent(ctx.deps.sql, course.id, s.id)
  await addStudent(ctx.deps.sql, otherCourse.id, outsider.id)
  return { teacher, students, outsider, otherTeacher, course, otherCourse }
}

export const NOT_A_UUID = 'not-a-uuid'
export const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000'
