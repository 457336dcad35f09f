import type { Rubric, RubricChoice } from '../rubrics/rules.ts'
import type { Sql, TxSql } from '../../db/connect.ts'
import { studentCountOf } from '../../db/student-count.ts'
import type { RowWindow } from '../../http/pagination.ts'
import { roster } from '../courses/queries.ts'

export interface StudentTotalsRow {
  user_id: string
  username: string
  display_name: string
  submission_count: number
  graded_count: number
  average_score: string | null
  /** Task id → score of the newest submission, for the graded ones (sql/029). */
  task_scores: Record<string, number>
  /** Task id → when the newest submission was handed in (epoch ms), graded or not (sql/041). */
  task_submitted: Record<string, number>
  /** Students of the whole (unpaged) list. */
  total: number
}

/**
 * Per student of the course: the newest submission per learning task and per experiment,
 * counted, graded-counted and averaged, and the scores of the graded newest task submissions.
 * They are kept per (course, student) by triggers (sql/007, sql/029), so this reads one row
 * per student, in name order (the roster).
 */
export async function studentTotals(sql: TxSql, courseId: string, window: RowWindow = null) {
  return studentTotalsQuery(sql, courseId, window)
}

/** The statement itself, not awaited. */
export function studentTotalsQuery(sql: TxSql, courseId: string, window: RowWindow = null) {
  return sql<StudentTotalsRow[]>`
    select m.user_id, m.username, m.display_name,
           coalesce(g.task_count + g.lab_count, 0) as submission_count,
           coalesce(g.task_graded + g.lab_graded, 0) as graded_count,
           case when g.task_graded + g.lab_graded > 0
                then round((g.task_score_sum + g.lab_score_sum) / (g.task_graded + g.lab_graded), 2) end as average_score,
           coalesce(g.task_scores, '{}') as task_scores,
           coalesce(g.task_submitted, '{}') as task_submitted,
           ${studentCountOf(sql, courseId)} as total
      from ${roster(sql, courseId, null, window)} m
      left join grade_totals g on g.course_id = ${courseId} and g.student_id = m.user_id
     order by m.sort_name, m.sort_username, m.user_id`
}

/** Where a chunk of the roster order ends: the next chunk starts after it. */
export type RosterKey = { sort_name: string; sort_username: string; user_id: string }

/**
 * Up to `limit` students of the course after `after` in the roster order (the first ones when
 * null), with the same totals as `studentTotals`: one chunk of a streamed overview or CSV,
 * read by keyset on course_members_roster_idx (sql/028), so every chunk costs the same however
 * far into the course it is.
 */
export async function studentTotalsAfter(sql: TxSql, courseId: string, after: RosterKey | null, limit: number) {
  const from = after
    ? sql`and (lower(m.display_name), lower(m.username), m.user_id) > (${after.sort_name}::text, ${after.sort_username}::text, ${after.user_id}::uuid)`
    : sql``
  return sql<(Omit<StudentTotalsRow, 'total'> & RosterKey)[]>`
    select m.user_id, m.username, m.display_name, lower(m.display_name) as sort_name, lower(m.username) as sort_username,
           coalesce(g.task_count + g.lab_count, 0) as submission_count,
           coalesce(g.task_graded + g.lab_graded, 0) as graded_count,
           case when g.task_graded + g.lab_graded > 0
                then round((g.task_score_sum + g.lab_score_sum) / (g.task_graded + g.lab_graded), 2) end as average_score,
           coalesce(g.task_scores, '{}') as task_scores,
           coalesce(g.task_submitted, '{}') as task_submitted
      from course_members m
      left join grade_totals g on g.course_id = ${courseId} and g.student_id = m.user_id
     where m.course_id = ${courseId} ${from}
     order by lower(m.display_name), lower(m.username), m.user_id
     limit ${limit}`
}

export interface ExperimentGradeRow {
  student_id: string
  experiment_id: string
  submission_id: string
  submitted_at: Date
  score: string | null
  feedback: string | null
  graded_at: Date | null
}

/**
 * Every student's newest submission per experiment of the course, by student then experiment
 * id (read in that order from an index, sql/029); `studentIds` narrows to those students (a
 * page of the overview).
 */
export async function newestExperimentSubmissions(sql: TxSql, courseId: string, studentIds: string[] | null = null) {
  const only = studentIds ? sql`and s.student_id = any(${studentIds}::uuid[])` : sql``
  return sql<ExperimentGradeRow[]>`
    select distinct on (s.student_id, s.experiment_id)
           s.student_id, s.experiment_id, s.id as submission_id, s.submitted_at, s.score, s.feedback, s.graded_at
      from experiment_submissions s
     where s.course_id = ${courseId} ${only}
     order by s.student_id, s.experiment_id, s.submitted_at desc, s.id desc`
}

export async function courseExperiments(sql: TxSql, courseId: string) {
  return sql<{ id: string; title: string; due_at: Date }[]>`
    select id, title, due_at from experiments where course_id = ${courseId} order by due_at, id`
}

/** The gradebook's task columns: homework and quizzes (what students hand in), in course order. */
export async function gradedTasks(sql: TxSql, courseId: string) {
  return sql<{ id: string; title: string; due_at: Date | null; task_kind: 'LEARNING' | 'HOMEWORK'; task_type: 'MEDIA' | 'QUIZ' | 'LTI' }[]>`
    select t.id, t.title, t.due_at, t.task_kind, t.task_type
      from learning_tasks t
      join knowledge_points p on p.id = t.point_id
      join learning_units lu on lu.id = p.unit_id
     where t.course_id = ${courseId} and (t.task_kind = 'HOMEWORK' or t.task_type in ('QUIZ', 'LTI'))
       and (t.publish_state in ('PUBLISHED', 'UNPUBLISHED') or t.published_at is not null) -- never-published drafts are no column (issue 29.9)
     order by lu.sort_order, lu.id, p.sort_order, p.id, t.sort_order, t.id`
}

/**
 * The course's gradebook version (sql/030): changes with every write the overview could show;
 * and its number of students (its counter rows, sql/046), which decides whether the whole-course
 * overview is built in memory or streamed.
 */
export async function gradebookVersion(sql: TxSql, courseId: string) {
  const [row] = await sql<{ version: string; students: number }[]>`
    select coalesce(sum(version), 0)::text as version,
           ${studentCountOf(sql, courseId)} as students
      from gradebook_versions where course_id = ${courseId}`
  return row!
}

/** The rubrics of the course's graded tasks and experiments (issue 54): the CSV's rubric columns. */
export async function courseRubrics(sql: TxSql, courseId: string) {
  return sql<{ id: string; lab: boolean; rubric: Rubric }[]>`
    select id, false as lab, rubric from learning_tasks where course_id = ${courseId} and rubric is not null
    union all
    select id, true, rubric from experiments where course_id = ${courseId} and rubric is not null`
}

/**
 * The rubric levels of the newest sheet of each of `studentIds` for each of `taskIds` and
 * `experimentIds` (released levels only: a held grade's are in held_rubric): one probe of the
 * newest-submission indexes per (item, student).
 */
export async function newestRubricChoices(sql: Sql | TxSql, taskIds: string[], experimentIds: string[], studentIds: string[]) {
  return sql<{ item_id: string; student_id: string; rubric_choices: RubricChoice[] | null }[]>`
    select t.id as item_id, st.id as student_id, (
             select s.rubric_choices from learning_submissions s
              where s.task_id = t.id and s.student_id = st.id
              order by s.submitted_at desc, s.id desc limit 1) as rubric_choices
      from unnest(${taskIds}::uuid[]) as t (id) cross join unnest(${studentIds}::uuid[]) as st (id)
    union all
    select e.id, st.id, (
             select s.rubric_choices from experiment_submissions s
              where s.experiment_id = e.id and s.student_id = st.id
              order by s.submitted_at desc, s.id desc limit 1)
      from unnest(${experimentIds}::uuid[]) as e (id) cross join unnest(${studentIds}::uuid[]) as st (id)`
}
