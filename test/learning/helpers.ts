import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { countingSql as countingStatements } from '../support/counting-sql.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, testApp, type Account, type Client } from '../support/harness.ts'

export const BIG = 'x'.repeat(200 * 1024)
export const HOSTILE = '<p onclick="steal()">Hi <script>alert(1)</script><a href="javascript:alert(2)">x</a><img src=x onerror=alert(3)><iframe src="https://evil.test"></iframe></p>'
export const NOT_A_UUID = 'not-a-uuid'

export const choice = (type: 'SINGLE_CHOICE' | 'MULTIPLE_CHOICE', correctOptions: number[], points?: number, options = ['A', 'B', 'C', 'D']) => ({
  type,
  stem: `${type} question`,
  options,
  correctOptions,
  ...(points === undefined ? {} : { points }),
})
export const shortAnswer = (points?: number) => ({ type: 'SHORT_ANSWER' as const, stem: 'Explain', ...(points === undefined ? {} : { points }) })

/**
 * A course with its teacher and a student, plus outsiders: a student of no course and the
 * teacher of another course. Everything through HTTP except courses/memberships (fixtures).
 */
export async function world(opts: Parameters<typeof testApp>[0] = {}) {
  const ctx = await testApp(opts)
  const { api, deps } = ctx
  const [teacher, student, student2, outsider, otherTeacher] = await Promise.all([
    signUp(api, 'TEACHER', 'Teacher T'),
    signUp(api, 'STUDENT', 'Alice'),
    signUp(api, 'STUDENT', 'Bob'),
    signUp(api, 'STUDENT', 'Outsider'),
    signUp(api, 'TEACHER', 'Other Teacher'),
  ])
  const course = await insertCourse(deps.sql, teacher.id)
  const otherCourse = await insertCourse(deps.sql, otherTeacher.id)
  await addStudent(deps.sql, course.id, student.id)
  await addStudent(deps.sql, course.id, student2.id)
  await addStudent(deps.sql, otherCourse.id, outsider.id)
  const base = `/courses/${course.id}/learning`
  const otherBase = `/courses/${otherCourse.id}/learning`
  return { ...ctx, teacher, student, student2, outsider, otherTeacher, course, otherCourse, base, otherBase }
}
export type World = Awaited<ReturnType<typeof world>>

export async function createUnit(api: Client, base: string, t: Account, title = 'Unit') {
  const r = await api.post(`${base}/units`, { token: t.token, json: { title } })
  if (r.status !== 201) throw new Error(`unit: ${r.status} ${JSON.stringify(r.body)}`)
  return r.data as { id: string; sortOrder: number }
}

export async function createPoint(api: Client, base: string, t: Account, unitId: string, title = 'Point') {
  const r = await api.post(`${base}/units/${unitId}/points`, { token: t.token, json: { title } })
  if (r.status !== 201) throw new Error(`point: ${r.status} ${JSON.stringify(r.body)}`)
  return r.data as { id: string; sortOrder: number }
}

export async function createTask(api: Client, base: string, t: Account, pointId: string, body: Record<string, unknown>) {
  const r = await api.post(`${base}/points/${pointId}/tasks`, { token: t.token, json: { title: 'Task', ...body } })
  if (r.status !== 201) throw new Error(`task: ${r.status} ${JSON.stringify(r.body)}`)
  return r.data as any
}

export const textTask = { taskType: 'MEDIA', materialType: 'TEXT', content: '<p>Read this</p>' }
/** A written hand-in: homework with text instructions (material to read takes no answers, issue 56.6). */
export const essayTask = { ...textTask, taskKind: 'HOMEWORK', dueAt: '2099-12-31T00:00:00.000Z' }

/** A world (`world(opts)`) with a unit and one point ready for tasks. */
export async function worldWithPoint(opts: Parameters<typeof world>[0] = {}) {
  const w = await world(opts)
  return { w, pointId: (await pointIn(w)).point.id }
}

/** A unit with one point, ready for tasks. */
export async function pointIn(w: Pick<World, 'api' | 'base' | 'teacher'>) {
  const unit = await createUnit(w.api, w.base, w.teacher)
  const point = await createPoint(w.api, w.base, w.teacher, unit.id)
  return { unit, point }
}

export async function insertResource(sql: Sql, courseId: string, createdBy: string, type: 'FILE' | 'LINK' = 'FILE') {
  const id = newId()
  if (type === 'FILE') {
    await sql`
      insert into course_resources (id, course_id, name, resource_type, storage_key, file_name, file_size, content_type, created_by)
      values (${id}, ${courseId}, 'Slides', 'FILE', ${'k/' + id}, 'slides.pdf', 1234, 'application/pdf', ${createdBy})`
  } else {
    await sql`
      insert into course_resources (id, course_id, name, resource_type, external_url, created_by)
      values (${id}, ${courseId}, 'Site', 'LINK', 'https://example.test', ${createdBy})`
  }
  return id
}

/** Wraps the `sql` handle to count the statements it runs (support/counting-sql.ts), so tests can assert "a fixed number of queries". */
export function countingSql(sql: Sql) {
  const counter = { n: 0 }
  return { sql: countingStatements(sql, () => counter.n++), counter }
}

/**
 * A course of `teacher` with `students` enrolled and one open homework essay (started an hour
 * ago, due in a day) in a unit's point: what the browser grading tests start from.
 */
export async function courseWithEssay(
  server: { api: Client; deps: { sql: Parameters<typeof insertCourse>[0] } },
  teacher: Account,
  students: Account[],
  names: { course: string; unit: string; point: string; essay: string },
  extra: Record<string, unknown> = {},
) {
  const { api, deps } = server
  const courseId = (await insertCourse(deps.sql, teacher.id, names.course)).id
  for (const s of students) await addStudent(deps.sql, courseId, s.id)
  const base = `/courses/${courseId}/learning`
  const unit = await createUnit(api, base, teacher, names.unit)
  const point = await createPoint(api, base, teacher, unit.id, names.point)
  const now = Date.now()
  const essay = await createTask(api, base, teacher, point.id, {
    title: names.essay,
    ...textTask,
    taskKind: 'HOMEWORK',
    startAt: new Date(now - 3600_000).toISOString(),
    dueAt: new Date(now + 86400_000).toISOString(),
    ...extra,
  })
  return { courseId, base, point, essay, now }
}

/** Each of `students` hands in a written answer to the essay (201, code 0); their sheet ids by student id. */
export async function handInEssays(api: Client, base: string, essayId: string, students: Account[]) {
  const sheets: Record<string, string> = {}
  for (const s of students) {
    const r = await api.post(`${base}/tasks/${essayId}/submissions`, { token: s.token, json: { content: `<p>${s.username} argues</p>` } })
    if (r.status !== 201 || r.code !== 0) throw new Error(`hand-in: ${r.status} ${JSON.stringify(r.body)}`)
    sheets[s.id] = r.data.id
  }
  return sheets
}
