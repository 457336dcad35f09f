import type { Sql, TxSql } from '../../db/connect.ts'
import { lateSql } from '../../db/due-sql.ts'
import { studentCountOf } from '../../db/student-count.ts'
import { myCourses } from '../courses/queries.ts'
import type { Rubric, RubricChoice } from '../rubrics/rules.ts'

export interface ExperimentRow {
  id: string
  course_id: string
  title: string
  description: string
  due_at: Date
  created_at: Date
  updated_at: Date | null
  grade_release: 'AUTOMATIC' | 'MANUAL'
  rubric: Rubric | null
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
  /** A grade waiting for the teacher's release (sql/058): never shown to the student. */
  held_score: string | null
  held_feedback: string | null
  held_rubric: RubricChoice[] | null
  held_at: Date | null
  rubric_choices: RubricChoice[] | null
}

/** The columns of a submission row `s` joined with its student `u`. */
const submissionColumns = (sql: Sql | TxSql) => sql`
  s.id, s.experiment_id, s.course_id, s.student_id, u.username as student_username, u.display_name as student_display_name,
  s.file_name, s.file_size, s.content_type, s.note, s.late, s.submitted_at, s.score, s.feedback, s.graded_at,
  s.held_score, s.held_feedback, s.held_rubric, s.held_at, s.rubric_choices`

export async function insertExperiment(
  sql: Sql,
  e: { id: string; courseId: string; title: string; description: string; dueAt: Date; now: Date; gradeRelease: ExperimentRow['grade_release'] },
) {
  const [row] = await sql<ExperimentRow[]>`
    insert into experiments (id, course_id, title, description, due_at, created_at, grade_release)
    values (${e.id}, ${e.courseId}, ${e.title}, ${e.description}, ${e.dueAt}, ${e.now}, ${e.gradeRelease})
    returning id, course_id, title, description, due_at, created_at, updated_at, grade_release, rubric`
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
  patch: { title?: string; description?: string; due_at?: Date; grade_release?: ExperimentRow['grade_release'] },
  now: Date,
) {
  const changes = { ...patch, updated_at: now }
  const [row] = await sql<ExperimentRow[]>`
    update experiments set ${sql(changes, ...(Object.keys(changes) as (keyof typeof changes)[]))}
     where id = ${experimentId} and course_id = ${courseId}
    returning id, course_id, title, description, due_at, created_at, updated_at, grade_release, rubric`
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
    select id, course_id, title, description, due_at, created_at, updated_at, grade_release, rubric
      from experiments
     where course_id = ${courseId}
     order by due_at, id`
}

/** The experiment and, in the same query, the newest submission of `userId` (columns null when none). */
export async function findExperimentWithLatest(sql: Sql, courseId: string, experimentId: string, userId: string) {
  const [row] = await sql<(ExperimentRow & { latest: SubmissionRow | null })[]>`
    select e.id, e.course_id, e.title, e.description, e.due_at, e.created_at, e.updated_at, e.grade_release, e.rubric,
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
                score, feedback, graded_at, held_score, held_feedback, held_rubric, held_at, rubric_choices)
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
  grade_release: 'AUTOMATIC' | 'MANUAL'
  rubric: Rubric | null
}

export async function findSubmissionContext(sql: Sql, submissionId: string) {
  const [row] = await sql<SubmissionContext[]>`
    select s.id, s.course_id, s.student_id, s.experiment_id, e.title as experiment_title,
           s.storage_key, s.file_name, s.file_size, s.content_type, e.grade_release, e.rubric
      from experiment_submissions s join experiments e on e.id = s.experiment_id
     where s.id = ${submissionId}`
  return row ?? null
}

/**
 * Omitting `feedback` (or `rubric`) keeps the current one. With `hold` (a MANUAL experiment)
 * the grade goes to the held_* columns until the release (as learning/submission-queries.ts).
 */
export async function gradeSubmission(
  tx: TxSql,
  g: { id: string; score: number; feedback: string | null | undefined; rubric: RubricChoice[] | undefined; graderId: string; now: Date },
  hold = false,
) {
  const keep = g.feedback === undefined
  const keepRubric = g.rubric === undefined
  const rubric = g.rubric ? tx.json(g.rubric as any) : null
  const set = hold
    ? tx`held_score = ${g.score},
         held_feedback = case when ${keep} then (case when held_at is null then feedback else held_feedback end) else ${g.feedback ?? null} end,
         held_rubric = case when ${keepRubric} then coalesce(held_rubric, rubric_choices) else ${rubric}::jsonb end,
         held_at = ${g.now}, graded_by = ${g.graderId}`
    : tx`score = ${g.score},
         feedback = case when ${keep} then feedback else ${g.feedback ?? null} end,
         rubric_choices = case when ${keepRubric} then rubric_choices else ${rubric}::jsonb end,
         graded_at = ${g.now}, graded_by = ${g.graderId}`
  const [row] = await tx<SubmissionRow[]>`
    with s as (
      update experiment_submissions set ${set}
       where id = ${g.id}
      returning id, experiment_id, course_id, student_id, file_name, file_size, content_type, note, late, submitted_at,
                score, feedback, graded_at, held_score, held_feedback, held_rubric, held_at, rubric_choices)
    select ${submissionColumns(tx)} from s join users u on u.id = s.student_id`
  return row ?? null
}

/** The release of an experiment's held grades, as a CTE (see learning/release.ts). */
export const releaseHeld = (sql: Sql | TxSql, experimentId: string) => sql`
  update experiment_submissions s
     set score = s.held_score, feedback = s.held_feedback, rubric_choices = coalesce(s.held_rubric, s.rubric_choices),
         graded_at = s.held_at, held_score = null, held_feedback = null, held_rubric = null, held_at = null
   where s.experiment_id = ${experimentId} and s.held_at is not null
  returning s.student_id, s.score, s.submitted_at, s.id, s.file_name`

export async function hasHeld(sql: Sql | TxSql, experimentId: string) {
  const [row] = await sql<{ held: boolean }[]>`
    select exists (select 1 from experiment_submissions where experiment_id = ${experimentId} and held_at is not null) as held`
  return row!.held
}

export async function setRubric(tx: TxSql, experimentId: string, rubric: Rubric | null, now: Date) {
  const [row] = await tx<ExperimentRow[]>`
    update experiments set rubric = ${rubric ? tx.json(rubric as any) : null}::jsonb, updated_at = ${now}
     where id = ${experimentId}
    returning id, course_id, title, description, due_at, created_at, updated_at, grade_release, rubric`
  return row!
}

export async function lockExperiment(tx: TxSql, courseId: string, experimentId: string) {
  const [row] = await tx<ExperimentRow[]>`
    select id, course_id, title, description, due_at, created_at, updated_at, grade_release, rubric
      from experiments where id = ${experimentId} and course_id = ${courseId} for update`
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
