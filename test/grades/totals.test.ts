import { describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { addStudent, insertCourse, insertHomework, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { signUp, testApp, usingExternalDb } from '../support/harness.ts'

/**
 * grade_totals (sql/007_grade_totals.sql, task_scores from sql/029) is a cache kept by triggers. Whatever happens to the
 * submissions, it must equal the totals computed from scratch.
 */
type Totals = { student_id: string; submission_count: number; graded_count: number; average_score: string | null }

async function fromScratch(sql: Sql, courseId: string): Promise<Totals[]> {
  return sql<Totals[]>`
    with newest as (
      (select distinct on (ls.task_id, ls.student_id)
              ls.student_id, ls.score, (ls.status = 'GRADED' and ls.score is not null) as graded
         from learning_submissions ls
        where ls.course_id = ${courseId}
        order by ls.task_id, ls.student_id, ls.submitted_at desc, ls.id desc)
      union all
      (select distinct on (es.experiment_id, es.student_id)
              es.student_id, es.score, (es.score is not null) as graded
         from experiment_submissions es
        where es.course_id = ${courseId}
        order by es.experiment_id, es.student_id, es.submitted_at desc, es.id desc)
    )
    select student_id, count(*)::int as submission_count, count(*) filter (where graded)::int as graded_count,
           round(avg(score) filter (where graded), 2)::text as average_score
      from newest group by student_id order by student_id`
}

async function cached(sql: Sql, courseId: string): Promise<Totals[]> {
  return sql<Totals[]>`
    select student_id, task_count + lab_count as submission_count, task_graded + lab_graded as graded_count,
           (case when task_graded + lab_graded > 0
                 then round((task_score_sum + lab_score_sum) / (task_graded + lab_graded), 2) end)::text as average_score
      from grade_totals where course_id = ${courseId} order by student_id`
}

/** The learning part alone, as the teacher's learning overview reads it. */
async function learningFromScratch(sql: Sql, courseId: string) {
  return sql`
    select student_id, count(*)::int as n, count(*) filter (where status = 'GRADED')::int as graded,
           round(avg(score) filter (where status = 'GRADED'), 2)::text as average
      from (select distinct on (task_id, student_id) student_id, status, score from learning_submissions
             where course_id = ${courseId} order by task_id, student_id, submitted_at desc, id desc) n
     group by student_id order by student_id`
}
async function learningCached(sql: Sql, courseId: string) {
  return sql`
    select student_id, task_count as n, task_graded as graded,
           (case when task_graded > 0 then round(task_score_sum / task_graded, 2) end)::text as average
      from grade_totals where course_id = ${courseId} and task_count > 0 order by student_id`
}

/** The gradebook's task cells: (student, task, score) of every newest learning submission with a score. */
async function taskScoresFromScratch(sql: Sql, courseId: string) {
  const rows = await sql<{ student_id: string; task_id: string; score: string }[]>`
    select student_id, task_id, score
      from (select distinct on (task_id, student_id) student_id, task_id, score from learning_submissions
             where course_id = ${courseId} order by task_id, student_id, submitted_at desc, id desc) n
     where score is not null`
  return rows.map((r) => [r.student_id, r.task_id, Number(r.score)] as const).sort(byKey)
}
async function taskScoresCached(sql: Sql, courseId: string) {
  const rows = await sql<{ student_id: string; task_scores: Record<string, number> }[]>`
    select student_id, task_scores from grade_totals where course_id = ${courseId}`
  return rows.flatMap((r) => Object.entries(r.task_scores).map(([task, score]) => [r.student_id, task, score] as const)).sort(byKey)
}
/** The gradebook's hand-in times (sql/041): (student, task, epoch ms) of every newest homework/quiz submission. */
async function taskSubmittedFromScratch(sql: Sql, courseId: string) {
  const rows = await sql<{ student_id: string; task_id: string; submitted_at: Date }[]>`
    select n.student_id, n.task_id, n.submitted_at
      from (select distinct on (task_id, student_id) student_id, task_id, submitted_at from learning_submissions
             where course_id = ${courseId} order by task_id, student_id, submitted_at desc, id desc) n
      join learning_tasks t on t.id = n.task_id and (t.task_kind = 'HOMEWORK' or t.task_type = 'QUIZ')`
  return rows.map((r) => [r.student_id, r.task_id, r.submitted_at.getTime()] as const).sort(byKey)
}
async function taskSubmittedCached(sql: Sql, courseId: string) {
  const rows = await sql<{ student_id: string; task_submitted: Record<string, number> }[]>`
    select student_id, task_submitted from grade_totals where course_id = ${courseId}`
  return rows.flatMap((r) => Object.entries(r.task_submitted).map(([task, at]) => [r.student_id, task, at] as const)).sort(byKey)
}
const byKey = (a: readonly [string, string, number], b: readonly [string, string, number]) =>
  a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1

async function insertExperiment(sql: Sql, courseId: string) {
  const id = newId()
  await sql`insert into experiments (id, course_id, title, description, due_at)
            values (${id}, ${courseId}, 'Lab', '', '2026-12-01T00:00:00Z')`
  return id
}

async function insertExperimentSubmission(sql: Sql, experimentId: string, courseId: string, studentId: string, at: Date) {
  const id = newId()
  await sql`insert into experiment_submissions (id, experiment_id, course_id, student_id, file_name, file_size, content_type, storage_key, submitted_at)
            values (${id}, ${experimentId}, ${courseId}, ${studentId}, 'r.txt', 6, 'text/plain', ${'k/' + id}, ${at})`
  return id
}

describe('grade totals cache', async () => {
  const { api, deps } = await testApp()
  const { sql } = deps
  const teacher = await signUp(api, 'TEACHER')
  const students = await Promise.all([1, 2, 3, 4].map(() => signUp(api, 'STUDENT')))
  const course = await insertCourse(sql, teacher.id)
  for (const s of students) await addStudent(sql, course.id, s.id)
  const { pointId } = await insertPoint(sql, course.id)
  const window = { startAt: new Date('2026-11-20T00:00:00Z'), dueAt: new Date('2026-12-20T00:00:00Z') }
  const tasks = [] as string[]
  for (let i = 0; i < 4; i++) tasks.push((await insertHomework(sql, course.id, pointId, window)).id)
  const experiments = [await insertExperiment(sql, course.id), await insertExperiment(sql, course.id)]

  test('equals the from-scratch totals through a random history of submissions, gradings and deletions', async () => {
    // A fixed-seed generator: the same history on every run.
    let seed = 42
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const learning: string[] = []
    const lab: string[] = []
    const base = Date.parse('2026-11-21T00:00:00Z')
    for (let step = 0; step < 120; step++) {
      const student = students[rand(students.length)]!
      // Submission times are not monotonic: an older attempt arriving later is not the newest.
      const at = new Date(base + rand(10_000) * 60_000)
      switch (rand(7)) {
        case 0:
        case 1:
          learning.push((await insertSubmission(sql, tasks[rand(tasks.length)]!, course.id, student.id, at)).id)
          break
        case 2:
          lab.push(await insertExperimentSubmission(sql, experiments[rand(experiments.length)]!, course.id, student.id, at))
          break
        case 3:
          if (learning.length) {
            const id = learning[rand(learning.length)]!
            await sql`update learning_submissions set score = ${rand(10_001) / 100}, status = 'GRADED', graded_at = ${at} where id = ${id}`
          }
          break
        case 4:
          if (lab.length) await sql`update experiment_submissions set score = ${rand(101)}, graded_at = ${at} where id = ${lab[rand(lab.length)]!}`
          break
        case 5:
          if (learning.length) await sql`delete from learning_submissions where id = ${learning.splice(rand(learning.length), 1)[0]!}`
          break
        case 6:
          if (lab.length) await sql`update experiment_submissions set score = null, graded_at = null where id = ${lab[rand(lab.length)]!}`
          break
      }
      expect(await cached(sql, course.id)).toEqual(await fromScratch(sql, course.id))
      expect(await learningCached(sql, course.id)).toEqual(await learningFromScratch(sql, course.id))
      expect(await taskScoresCached(sql, course.id)).toEqual(await taskScoresFromScratch(sql, course.id))
      expect(await taskSubmittedCached(sql, course.id)).toEqual(await taskSubmittedFromScratch(sql, course.id))
    }
    expect(learning.length).toBeGreaterThan(10)

    // Cascades: deleting a task or an experiment removes its submissions and updates the totals.
    await sql`delete from learning_tasks where id = ${tasks[0]!}`
    await sql`delete from experiments where id = ${experiments[0]!}`
    expect(await cached(sql, course.id)).toEqual(await fromScratch(sql, course.id))
    expect(await taskScoresCached(sql, course.id)).toEqual(await taskScoresFromScratch(sql, course.id))
    expect(await taskSubmittedCached(sql, course.id)).toEqual(await taskSubmittedFromScratch(sql, course.id))
  }, 30_000) // a long fixed-seed history with four comparisons a step: margin for a loaded box

  test('bulk statements: one insert of many rows, one update of many rows', async () => {
    const at = new Date('2026-11-23T00:00:00Z')
    await sql`
      insert into learning_submissions (id, task_id, course_id, student_id, content, status, submitted_at)
      select gen_random_uuid(), t.id, ${course.id}, m.user_id, 'bulk', 'SUBMITTED', ${at}
        from learning_tasks t, course_members m
       where t.course_id = ${course.id} and m.course_id = ${course.id}`
    await sql`update learning_submissions set score = 70, status = 'GRADED', graded_at = ${at} where course_id = ${course.id} and content = 'bulk'`
    const totals = await cached(sql, course.id)
    expect(totals).toEqual(await fromScratch(sql, course.id))
    expect(totals.filter((t) => t.graded_count >= 3)).toHaveLength(students.length)
    const scores = await taskScoresCached(sql, course.id)
    expect(scores).toEqual(await taskScoresFromScratch(sql, course.id))
    expect(scores.filter((s) => s[2] === 70).length).toBeGreaterThanOrEqual(3 * students.length)
  })

  test('a deleted course takes its totals with it; a student with no submissions left has no row', async () => {
    const other = await insertCourse(sql, teacher.id)
    await addStudent(sql, other.id, students[0]!.id)
    const p = await insertPoint(sql, other.id)
    const t = await insertHomework(sql, other.id, p.pointId, window)
    const s = await insertSubmission(sql, t.id, other.id, students[0]!.id, new Date('2026-11-21T00:00:00Z'))
    expect(await cached(sql, other.id)).toHaveLength(1)
    await sql`delete from learning_submissions where id = ${s.id}`
    expect(await cached(sql, other.id)).toEqual([])
    await insertSubmission(sql, t.id, other.id, students[0]!.id, new Date('2026-11-21T00:00:00Z'))
    await sql`delete from courses where id = ${other.id}`
    expect(await cached(sql, other.id)).toEqual([])
  })

  test('concurrent submissions of one student to different tasks are all counted', async () => {
    const c = await insertCourse(sql, teacher.id)
    const student = students[1]!
    await addStudent(sql, c.id, student.id)
    const p = await insertPoint(sql, c.id)
    const many = [] as string[]
    for (let i = 0; i < 12; i++) many.push((await insertHomework(sql, c.id, p.pointId, window)).id)
    // Separate transactions at once (on PostgreSQL from separate pool connections).
    await Promise.all(
      many.map((taskId, i) =>
        sql.begin(async (tx) => {
          await tx`insert into learning_submissions (id, task_id, course_id, student_id, content, status, submitted_at)
                   values (${newId()}, ${taskId}, ${c.id}, ${student.id}, 'x', 'SUBMITTED', ${new Date(Date.UTC(2026, 10, 21, 0, i))})`
        }),
      ),
    )
    expect(await cached(sql, c.id)).toEqual([{ student_id: student.id, submission_count: 12, graded_count: 0, average_score: null }])
    if (usingExternalDb()) expect(await fromScratch(sql, c.id)).toEqual(await cached(sql, c.id))
  })
  test('a refresh costs the same for a student with thousands of earlier attempts as for one with a single attempt', async () => {
    // Issue 11 soak / issue 15: the totals used to be recomputed from every submission the
    // student ever made in the course (read and sorted on each new submission or grading).
    const c = await insertCourse(sql, teacher.id)
    const [fresh, veteran] = [students[2]!, students[3]!]
    for (const s of [fresh, veteran]) await addStudent(sql, c.id, s.id)
    const p = await insertPoint(sql, c.id)
    const t = await insertHomework(sql, c.id, p.pointId, window)
    const lab = await insertExperiment(sql, c.id)
    const base = Date.parse('2026-11-21T00:00:00Z')
    await sql`
      insert into learning_submissions (id, task_id, course_id, student_id, content, status, submitted_at)
      select gen_random_uuid(), ${t.id}, ${c.id}, ${veteran.id}, repeat('attempt ', 40), 'SUBMITTED', ${new Date(base)}::timestamptz + g * interval '1 minute'
        from generate_series(1, 2000) g`
    await sql`
      insert into experiment_submissions (id, experiment_id, course_id, student_id, file_name, file_size, content_type, storage_key, submitted_at)
      select gen_random_uuid(), ${lab}, ${c.id}, ${veteran.id}, 'r.txt', 6, 'text/plain', 'k/' || g, ${new Date(base)}::timestamptz + g * interval '1 minute'
        from generate_series(1, 2000) g`
    await insertSubmission(sql, t.id, c.id, fresh.id, new Date(base))
    await insertExperimentSubmission(sql, lab, c.id, fresh.id, new Date(base))
    expect(await cached(sql, c.id)).toEqual(await fromScratch(sql, c.id))

    const blocks = async (studentId: string) =>
      sql.begin(async (tx) => {
        const [row] = await tx.unsafe(`explain (analyze, buffers, format json) select refresh_grade_totals(array[$1]::uuid[], array[$2]::uuid[])`, [c.id, studentId])
        await tx`rollback and chain` // undo what EXPLAIN ANALYZE wrote
        const plan = (row as any)['QUERY PLAN'][0].Plan
        return plan['Shared Hit Blocks'] + plan['Shared Read Blocks']
      })
    await blocks(fresh.id) // the function's statements are planned (and the catalogue read) once
    const [one, many] = [await blocks(fresh.id), await blocks(veteran.id)]
    // The old statement read all 4,000 of the veteran's rows: hundreds of blocks.
    expect(many).toBeLessThan(one + 20)
  })
})
