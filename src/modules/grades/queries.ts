import type { TxSql } from '../../db/connect.ts'

export interface StudentTotalsRow {
  user_id: string
  username: string
  display_name: string
  submission_count: number
  graded_count: number
  average_score: string | null
}

/**
 * Per student of the course: the newest submission per learning task and per experiment,
 * counted, graded-counted and averaged, for the whole course in one statement.
 */
export async function studentTotals(sql: TxSql, courseId: string) {
  // Aggregate per student first, then join the (few hundred) students: grouping the joined
  // rows by their text columns sorted every submission of the course (see bench/RESULTS.md).
  return sql<StudentTotalsRow[]>`
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
    ), totals as (
      select n.student_id,
             count(*)::int as submission_count,
             count(*) filter (where n.graded)::int as graded_count,
             round(avg(n.score) filter (where n.graded), 2) as average_score
        from newest n
       group by n.student_id
    )
    select m.user_id, u.username, u.display_name,
           coalesce(t.submission_count, 0) as submission_count,
           coalesce(t.graded_count, 0) as graded_count,
           t.average_score
      from course_members m
      join users u on u.id = m.user_id
      left join totals t on t.student_id = m.user_id
     where m.course_id = ${courseId}
     order by u.display_name, u.username, m.user_id`
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

/** Every student's newest submission per experiment of the course, by student then experiment due date. */
export async function newestExperimentSubmissions(sql: TxSql, courseId: string) {
  return sql<ExperimentGradeRow[]>`
    select x.student_id, x.experiment_id, x.title, x.submission_id, x.submitted_at, x.score, x.feedback, x.graded_at
      from (select distinct on (s.experiment_id, s.student_id)
                   s.student_id, s.experiment_id, e.title, e.due_at, s.id as submission_id, s.submitted_at,
                   s.score, s.feedback, s.graded_at
              from experiment_submissions s join experiments e on e.id = s.experiment_id
             where s.course_id = ${courseId}
             order by s.experiment_id, s.student_id, s.submitted_at desc, s.id desc) x
     order by x.student_id, x.due_at, x.experiment_id`
}

export async function courseExperiments(sql: TxSql, courseId: string) {
  return sql<{ id: string; title: string }[]>`
    select id, title from experiments where course_id = ${courseId} order by due_at, id`
}
