import type { Sql, TxSql } from '../../db/connect.ts'
import { lateSql } from '../../db/due-sql.ts'
import { studentCountOf } from '../../db/student-count.ts'
import { myCourses } from '../courses/queries.ts'

export interface ExperimentRow {
  id: string
  course_id: string
  title: string
  description: string
  due_at: Date
  created_at: Date
  updated_at: Date | null
}

export interface SubmissionRow {
  id: string
  experiment_id: string
  course_id: string
  student_id: string
  student_username: string
  student_display_name: string
  file_name: string
  file_size: string
  content_type: string
  note: string | null
  late: boolean
  submitted_at: Date
  score: string | null
  feedback: string | null
  graded_at: Date | null
}

/** The columns of a submission row `s` joined with its student `u`. */
const submissionColumns = (sql: Sql | TxSql) => sql`
  s.id, s.experiment_id, s.course_id, s.student_id, u.username as student_username, u.display_name as student_display_name,
  s.file_name, s.file_size, s.content_type, s.note, s.late, s.submitted_at, s.score, s.feedback, s.graded_at`

export async function insertExperiment(
  sql: Sql,
  e: { id: string; courseId: string; title: string; description: string; dueAt: Date; now: Date },
) {
  const [row] = await sql<ExperimentRow[]>`
    insert into experiments (id, course_id, title, description, due_at, created_at)
    values (${e.id}, ${e.courseId}, ${e.title}, ${e.description}, ${e.dueAt}, ${e.now})
    returning id, course_id, title, description, due_at, created_at, updated_at`
  return row!
}

/** The deadline moved: each submission's `late` follows the new due time (as learning/structure-queries `relabelLate`). */
export async function relabelLate(tx: TxSql, experimentId: string, dueAt: Date) {
  const res = await tx`
    update experiment_submissions
       set late = ${lateSql(tx, tx`submitted_at`, tx`${dueAt}::timestamptz`)}
     where experiment_id = ${experimentId} and late <> ${lateSql(tx, tx`submitted_at`, tx`${dueAt}::timestamptz`)}`
  return res.count
}

export async function updateExperiment(
  sql: Sql | TxSql,
  courseId: string,
  experimentId: string,
  patch: { title?: string; description?: string; due_at?: Date },
  now: Date,
) {
  const changes = { ...patch, updated_at: now }
  const [row] = await sql<ExperimentRow[]>`
    update experiments set ${sql(changes, ...(Object.keys(changes) as (keyof typeof changes)[]))}
     where id = ${experimentId} and course_id = ${courseId}
    returning id, course_id, title, description, due_at, created_at, updated_at`
  return row ?? null
}

/**
 * Locks the experiment row for the rest of the transaction, so the "has submissions" check
 * that follows (a new statement, a new snapshot) sees every submission: one being inserted
 * holds a key-share lock on the experiment (its foreign key), so the lock waits for it to
 * commit; one that comes later waits for the delete and then fails on its foreign key.
 * Null: no such experiment in the course.
 */
export async function lockExperimentForDelete(tx: TxSql, courseId: string, experimentId: string) {
  const [row] = await tx<{ id: string }[]>`
    select id from experiments where id = ${experimentId} and course_id = ${courseId} for update`
  if (!row) return null
  const [state] = await tx<{ has_submissions: boolean }[]>`
    select exists (select 1 from experiment_submissions where experiment_id = ${experimentId}) as has_submissions`
  return state!
}

export async function deleteExperiment(tx: TxSql, courseId: string, experimentId: string) {
  const res = await tx`delete from experiments where id = ${experimentId} and course_id = ${courseId}`
  return res.count > 0
}

export async function listExperiments(sql: Sql, courseId: string) {
  return sql<ExperimentRow[]>`
    select id, course_id, title, description, due_at, created_at, updated_at
      from experiments
     where course_id = ${courseId}
     order by due_at, id`
}

/** The experiment and, in the same query, the newest submission of `userId` (columns null when none). */
export async function findExperimentWithLatest(sql: Sql, courseId: string, experimentId: string, userId: string) {
  const [row] = await sql<(ExperimentRow & { latest: SubmissionRow | null })[]>`
    select e.id, e.course_id, e.title, e.description, e.due_at, e.created_at, e.updated_at,
           (select to_jsonb(x) from (
              select ${submissionColumns(sql)}
                from experiment_submissions s join users u on u.id = s.student_id
               where s.experiment_id = e.id and s.student_id = ${userId}
               order by s.submitted_at desc, s.id desc
               limit 1) x) as latest
      from experiments e
     where e.id = ${experimentId} and e.course_id = ${courseId}`
  return row ?? null
}

export async function findExperiment(sql: Sql, experimentId: string) {
  const [row] = await sql<Pick<ExperimentRow, 'id' | 'course_id' | 'title' | 'due_at'>[]>`
    select id, course_id, title, due_at from experiments where id = ${experimentId}`
  return row ?? null
}

export async function insertSubmission(
  sql: Sql,
  s: {
    id: string
    experimentId: string
    courseId: string
    studentId: string
    storageKey: string
    fileName: string
    fileSize: number
    contentType: string
    note: string | null
    late: boolean
    now: Date
  },
) {
  const [row] = await sql<SubmissionRow[]>`
    with s as (
      insert into experiment_submissions
        (id, experiment_id, course_id, student_id, storage_key, file_name, file_size, content_type, note, late, submitted_at)
      values (${s.id}, ${s.experimentId}, ${s.courseId}, ${s.studentId}, ${s.storageKey}, ${s.fileName}, ${s.fileSize},
              ${s.contentType}, ${s.note}, ${s.late}, ${s.now})
      returning id, experiment_id, course_id, student_id, file_name, file_size, content_type, note, late, submitted_at,
                score, feedback, graded_at)
    select ${submissionColumns(sql)} from s join users u on u.id = s.student_id`
  return row!
}

/** Newest first; `studentId` null lists every student's submissions. */
export async function listSubmissions(sql: Sql, experimentId: string, studentId: string | null, limit: number, offset: number) {
  return sql<SubmissionRow[]>`
    select ${submissionColumns(sql)}
      from experiment_submissions s join users u on u.id = s.student_id
     where s.experiment_id = ${experimentId}
       and (${studentId}::uuid is null or s.student_id = ${studentId})
     order by s.submitted_at desc, s.id desc
     limit ${limit} offset ${offset}`
}

export async function countSubmissions(sql: Sql, experimentId: string, studentId: string | null) {
  const [row] = await sql<{ total: number }[]>`
    select count(*)::int as total
      from experiment_submissions
     where experiment_id = ${experimentId}
       and (${studentId}::uuid is null or student_id = ${studentId})`
  return row!.total
}

export async function latestSubmission(sql: Sql, experimentId: string, studentId: string) {
  const [row] = await sql<SubmissionRow[]>`
    select ${submissionColumns(sql)}
      from experiment_submissions s join users u on u.id = s.student_id
     where s.experiment_id = ${experimentId} and s.student_id = ${studentId}
     order by s.submitted_at desc, s.id desc
     limit 1`
  return row ?? null
}

export interface SubmissionContext {
  id: string
  course_id: string
  student_id: string
  experiment_id: string
  experiment_title: string
  storage_key: string
  file_name: string
  file_size: string
  content_type: string
}

export async function findSubmissionContext(sql: Sql, submissionId: string) {
  const [row] = await sql<SubmissionContext[]>`
    select s.id, s.course_id, s.student_id, s.experiment_id, e.title as experiment_title,
           s.storage_key, s.file_name, s.file_size, s.content_type
      from experiment_submissions s join experiments e on e.id = s.experiment_id
     where s.id = ${submissionId}`
  return row ?? null
}

/** Omitting `feedback` keeps the current feedback. */
export async function gradeSubmission(
  tx: TxSql,
  g: { id: string; score: number; feedback: string | null | undefined; graderId: string; now: Date },
) {
  const keep = g.feedback === undefined
  const [row] = await tx<SubmissionRow[]>`
    with s as (
      update experiment_submissions
         set score = ${g.score},
             feedback = case when ${keep} then feedback else ${g.feedback ?? null} end,
             graded_at = ${g.now},
             graded_by = ${g.graderId}
       where id = ${g.id}
      returning id, experiment_id, course_id, student_id, file_name, file_size, content_type, note, late, submitted_at,
                score, feedback, graded_at)
    select ${submissionColumns(tx)} from s join users u on u.id = s.student_id`
  return row ?? null
}

export interface MyExperimentRow {
  id: string
  course_id: string
  course_title: string
  title: string
  due_at: Date
  is_teacher: boolean
  submitted_at: Date | null
  late: boolean | null
  score: string | null
  submitted_count: number | null
  student_count: number | null
}

/**
 * The experiments of every course the user teaches or has joined (or of one of them), in one
 * query: a student's newest submission and a teacher's counts come from lateral subqueries
 * gated on the caller's role in each course (as in the homework centre).
 */
export async function listMyExperiments(sql: Sql, userId: string, courseId: string | null) {
  return sql<MyExperimentRow[]>`
    with my_courses as (${myCourses(sql, userId)})
    select e.id, e.course_id, mc.title as course_title, e.title, e.due_at, mc.is_teacher,
           mine.submitted_at, mine.late, mine.score::text as score,
           counts.submitted_count, counts.student_count
      from my_courses mc
      join experiments e on e.course_id = mc.id
      left join lateral (
        select s.submitted_at, s.late, s.score
          from experiment_submissions s
         where not mc.is_teacher and s.experiment_id = e.id and s.student_id = ${userId}
         order by s.submitted_at desc, s.id desc
         limit 1
      ) mine on true
      left join lateral (
        select (select count(distinct s.student_id)::int
                  from experiment_submissions s
                  join course_members m on m.course_id = e.course_id and m.user_id = s.student_id
                 where mc.is_teacher and s.experiment_id = e.id) as submitted_count,
               case when mc.is_teacher then ${studentCountOf(sql, sql`e.course_id`)} end as student_count
         where mc.is_teacher
      ) counts on true
     -- Across courses, archived ones are left out (read-only, nothing to hand in: issue 56.3);
     -- one course asked for by id is listed whatever its state (its members still read it).
     where (${courseId}::uuid is null and not mc.archived) or mc.id = ${courseId}::uuid
     order by e.due_at, e.id`
}
