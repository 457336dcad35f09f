import type { Sql, TxSql } from '../../db/connect.ts'

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

export async function updateExperiment(
  sql: Sql,
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
