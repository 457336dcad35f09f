import type { Sql } from '../../src/db/connect.ts'
import type { CurrentUser } from '../../src/http/guards.ts'
import { signUp, type Account, type Client } from '../support/harness.ts'

export interface CourseRef {
  id: string
  inviteCode: string
}

/** Creates a course over HTTP as `teacher`. */
export async function createCourse(api: Client, teacher: Account, title = 'Linear Algebra', description = 'Vectors and matrices.') {
  const res = await api.post('/courses', { json: { title, description }, token: teacher.token })
  if (res.status !== 201) throw new Error(`create course failed: ${res.status} ${JSON.stringify(res.body)}`)
  return { id: res.data.id as string, inviteCode: res.data.inviteCode as string }
}

export async function join(api: Client, student: Account, inviteCode: string) {
  const res = await api.post('/courses/join', { json: { inviteCode }, token: student.token })
  if (res.status !== 200) throw new Error(`join failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res
}

/**
 * The cast of every permission test: a course with its teacher and a joined student, a second
 * teacher with their own course, and a student who is in no course.
 */
export interface World {
  teacher: Account
  student: Account
  otherTeacher: Account
  outsider: Account
  course: CourseRef
  otherCourse: CourseRef
}

export async function makeWorld(api: Client): Promise<World> {
  const [teacher, student, otherTeacher, outsider] = [
    await signUp(api, 'TEACHER', 'Prof. Ada'),
    await signUp(api, 'STUDENT', 'Sam Student'),
    await signUp(api, 'TEACHER'),
    await signUp(api, 'STUDENT'),
  ]
  const course = await createCourse(api, teacher)
  const otherCourse = await createCourse(api, otherTeacher, 'Other course')
  await join(api, student, course.inviteCode)
  return { teacher, student, otherTeacher, outsider, course, otherCourse }
}

/** The CurrentUser a service function expects, for service-level tests. */
export async function currentUser(sql: Sql, account: Account): Promise<CurrentUser> {
  const [u] = await sql<{ display_name: string; created_at: Date }[]>`select display_name, created_at from users where id = ${account.id}`
  return {
    id: account.id,
    username: account.username,
    email: account.email,
    displayName: u!.display_name,
    role: account.role,
    createdAt: u!.created_at,
  }
}

/** A valid UUID that names nothing. */
export const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000'
export const BIG = 'x'.repeat(200 * 1024)
