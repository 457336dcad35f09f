import type { TxSql } from '../../db/connect.ts'
import type { RowWindow } from '../../http/pagination.ts'

export interface StudentTotalsRow {
  user_id: string
  username: string
  display_name: string
  submission_count: number
  graded_count: number
  average_score: string | null
  /** Students of the whole (unpaged) list. */
  total: number
}

/**
 * Per student of the course: the newest submission per learning task and per experiment,
 * counted, graded-counted and averaged. The totals are kept per (course, student) by triggers
 * (sql/007_grade_totals.sql), so this reads one row per student.
 */
export async function studentTotals(sql: TxSql, courseId: string, window: RowWindow = null) {
  const slice = window ? sql`limit ${window.limit} offset ${window.offset}` : sql``
  return sql<StudentTotalsRow[]>`
    select m.user_id, u.username, u.display_name,
           coalesce(g.task_count + g.lab_count, 0) as submission_count,
           coalesce(g.task_graded + g.lab_graded, 0) as graded_count,
           case when g.task_graded + g.lab_graded > 0
                then round((g.task_score_sum + g.lab_score_sum) / (g.task_graded + g.lab_graded), 2) end as average_score,
           count(*) over ()::int as total
      from course_members m
      join users u on u.id = m.user_id
      left join grade_totals g on g.course_id = m.course_id and g.student_id = m.user_id
     where m.course_id = ${courseId}
     order by u.display_name, u.username, m.user_id
     ${slice}`
}

export interface ExperimentGradeRow {
  student_id: string
  experiment_id: string
  title: string
  submission_id: string
  submitted_at: Date
  score: string | null
  feedback: string | null
  graded_at: Date | null
}

/**
 * Every student's newest submission per experiment of the course, by student then experiment
 * due date; `studentIds` narrows to those students (a page of the overview).
 */
export async function newestExperimentSubmissions(sql: TxSql, courseId: string, studentIds: string[] | null = null) {
  const only = studentIds ? sql`and s.student_id = any(${studentIds}::uuid[])` : sql``
  return sql<ExperimentGradeRow[]>`
    select x.student_id, x.experiment_id, x.title, x.submission_id, x.submitted_at, x.score, x.feedback, x.graded_at
      from (select distinct on (s.experiment_id, s.student_id)
                   s.student_id, s.experiment_id, e.title, e.due_at, s.id as submission_id, s.submitted_at,
                   s.score, s.feedback, s.graded_at
              from experiment_submissions s join experiments e on e.id = s.experiment_id
             where s.course_id = ${courseId} ${only}
             order by s.experiment_id, s.student_id, s.submitted_at desc, s.id desc) x
     order by x.student_id, x.due_at, x.experiment_id`
}

export async function courseExperiments(sql: TxSql, courseId: string) {
  return sql<{ id: string; title: string; due_at: Date }[]>`
    select id, title, due_at from experiments where course_id = ${courseId} order by due_at, id`
}

/** The gradebook's task columns: homework and quizzes (what students hand in), in course order. */
export async function gradedTasks(sql: TxSql, courseId: string) {
  return sql<{ id: string; title: string; due_at: Date | null }[]>`
    select t.id, t.title, t.due_at
      from learning_tasks t
      join knowledge_points p on p.id = t.point_id
      join learning_units lu on lu.id = p.unit_id
     where t.course_id = ${courseId} and (t.task_kind = 'HOMEWORK' or t.task_type = 'QUIZ')
     order by lu.sort_order, lu.id, p.sort_order, p.id, t.sort_order, t.id`
}

/** Every student's newest learning submission per task of the course: its score (null while ungraded). */
/** The newest score per (task, student) of the course, or of the listed students only (one page). */
export async function newestTaskScores(sql: TxSql, courseId: string, studentIds: string[] | null = null) {
  return sql<{ student_id: string; task_id: string; score: string | null }[]>`
    select distinct on (s.task_id, s.student_id) s.student_id, s.task_id, s.score
      from learning_submissions s
     where s.course_id = ${courseId}
       ${studentIds ? sql`and s.student_id = any(${studentIds}::uuid[])` : sql``}
     order by s.task_id, s.student_id, s.submitted_at desc, s.id desc`
}
