import { describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { addStudent, insertCourse, insertHomework, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { signUp, testApp } from '../support/harness.ts'

/**
 * learning_sheet_counts (sql/029) counts answer sheets per (task, student) on write; it is the
 * `total` of a task's submission list. Whatever happens to the sheets, it must equal counting
 * them, and the list must report it.
 */
const fromScratch = (sql: Sql) => sql<{ task_id: string; student_id: string; sheets: number }[]>`
  select task_id, student_id, count(*)::int as sheets from learning_submissions
   group by task_id, student_id order by task_id, student_id`
const counted = (sql: Sql) => sql<{ task_id: string; student_id: string; sheets: number }[]>`
  select task_id, student_id, sheets from learning_sheet_counts order by task_id, student_id`

describe('answer sheets counted per task and student', async () => {
  const { api, deps } = await testApp()
  const { sql } = deps
  const teacher = await signUp(api, 'TEACHER')
  const students = await Promise.all([1, 2, 3].map(() => signUp(api, 'STUDENT')))
  const course = await insertCourse(sql, teacher.id)
  for (const s of students) await addStudent(sql, course.id, s.id)
  const { pointId } = await insertPoint(sql, course.id)
  const window = { startAt: new Date('2026-11-20T00:00:00Z'), dueAt: new Date('2026-12-20T00:00:00Z') }
  const tasks = [] as string[]
  for (let i = 0; i < 3; i++) tasks.push((await insertHomework(sql, course.id, pointId, window)).id)

  test('equal to counting through single and bulk inserts, deletes and cascades', async () => {
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const ids: string[] = []
    for (let step = 0; step < 60; step++) {
      const student = students[rand(students.length)]!
      const task = tasks[rand(tasks.length)]!
      switch (rand(4)) {
        case 0:
        case 1:
          ids.push((await insertSubmission(sql, task, course.id, student.id, new Date(Date.UTC(2026, 10, 21, 0, step)))).id)
          break
        case 2: {
          // One statement, several sheets of several pairs.
          const rows = await sql<{ id: string }[]>`
            insert into learning_submissions (id, task_id, course_id, student_id, content, status, submitted_at)
            select gen_random_uuid(), t, ${course.id}, ${student.id}, 'bulk', 'SUBMITTED', now()
              from unnest(${tasks}::uuid[]) t, generate_series(1, 2)
            returning id`
          ids.push(...rows.map((r) => r.id))
          break
        }
        case 3:
          if (ids.length) await sql`delete from learning_submissions where id = ${ids.splice(rand(ids.length), 1)[0]!}`
          break
      }
      expect(await counted(sql)).toEqual(await fromScratch(sql))
    }
    // Many pairs in one delete, then the cascades of a deleted task and a deleted account.
    await sql`delete from learning_submissions where content = 'bulk' and student_id = ${students[0]!.id}`
    expect(await counted(sql)).toEqual(await fromScratch(sql))
    await sql`delete from learning_tasks where id = ${tasks[0]!}`
    await sql`delete from users where id = ${students[2]!.id}`
    const after = await counted(sql)
    expect(after).toEqual(await fromScratch(sql))
    expect(after.some((r) => r.task_id === tasks[0] || r.student_id === students[2]!.id)).toBe(false)
    expect(after.length).toBeGreaterThan(0)
  })

  test('GET …/submissions reports the counted total, for a student and for the teacher', async () => {
    const task = (await insertHomework(sql, course.id, pointId, window)).id
    const [alice, bob] = students as [(typeof students)[0], (typeof students)[0]]
    for (let i = 0; i < 5; i++) await insertSubmission(sql, task, course.id, alice.id, new Date(Date.UTC(2026, 10, 21, 1, i)))
    await insertSubmission(sql, task, course.id, bob.id, new Date(Date.UTC(2026, 10, 21, 2)))
    const path = `/courses/${course.id}/learning/tasks/${task}/submissions`

    const own = await api.get(`${path}?page=2&pageSize=2`, { token: alice.token })
    expect(own.status).toBe(200)
    expect(own.code).toBe(0)
    expect(own.data).toMatchObject({ total: 5, page: 2, pageSize: 2 })
    // Newest first: the 3rd and 2nd of Alice's five.
    expect(own.data.items.map((s: any) => s.submittedAt)).toEqual(['2026-11-21T01:02:00.000Z', '2026-11-21T01:01:00.000Z'])

    const hers = await api.get(`${path}?studentId=${alice.id}&pageSize=1`, { token: teacher.token })
    expect(hers.data).toMatchObject({ total: 5, page: 1, pageSize: 1 })
    expect(hers.data.items.map((s: any) => s.submittedAt)).toEqual(['2026-11-21T01:04:00.000Z'])
    const all = await api.get(`${path}?pageSize=1`, { token: teacher.token })
    expect(all.data).toMatchObject({ total: 6, page: 1, pageSize: 1 })
    expect(all.data.items[0].student.id).toBe(bob.id)

    const none = await api.get(`/courses/${course.id}/learning/tasks/${(await insertHomework(sql, course.id, pointId, window)).id}/submissions`, {
      token: alice.token,
    })
    expect(none.data).toEqual({ items: [], total: 0, page: 1, pageSize: 50 })
  })
})

