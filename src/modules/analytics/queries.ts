import type { Sql, TxSql } from '../../db/connect.ts'

type Db = Sql | TxSql

/*
 * The charts' statements (issue 54). Each reads one task's sheets through the newest-submission
 * index (learning_submissions_task_student_idx: task, student, submitted_at desc, id desc) in one
 * range scan, or the course's grade_totals rows (one per student, kept by triggers, sql/007):
 * bounded by the task's or the course's size, never a sort of the whole table, and aggregated
 * in the database so that 100,000 students send a dozen rows to the process
 * (bench/analytics.ts, the plans checked with EXPLAIN there).
 */

/** Per tenth of the score range (0: 0 to under 10 … 9: 90 to 100), the students whose newest sheet has that score; bucket null: handed in, no score (yet). */
export async function scoreBuckets(sql: Db, courseId: string, taskId: string) {
  return sql<{ bucket: number | null; n: number }[]>`
    select case when n.score is null then null else least(floor(n.score / 10), 9)::int end as bucket, count(*)::int as n
      from (select distinct on (s.student_id) s.student_id, s.score
              from learning_submissions s
             where s.task_id = ${taskId}
             order by s.student_id, s.submitted_at desc, s.id desc) n
     where exists (select 1 from course_members m where m.course_id = ${courseId} and m.user_id = n.student_id)
     group by 1`
}

/**
 * Per UTC day, the students who first handed the task in that day, on time (at or before the
 * due time, src/lib/due.ts) or late. The first sheet per student comes from the same index
 * read backwards.
 */
export async function handInDays(sql: Db, courseId: string, taskId: string, dueAt: Date | null) {
  return sql<{ day: string; on_time: number; late: number }[]>`
    select to_char(f.submitted_at at time zone 'UTC', 'YYYY-MM-DD') as day,
           count(*) filter (where ${dueAt}::timestamptz is null or f.submitted_at <= ${dueAt}::timestamptz)::int as on_time,
           count(*) filter (where f.submitted_at > ${dueAt}::timestamptz)::int as late
      from (select distinct on (s.student_id) s.student_id, s.submitted_at
              from learning_submissions s
             where s.task_id = ${taskId}
             order by s.student_id desc, s.submitted_at, s.id) f
     where exists (select 1 from course_members m where m.course_id = ${courseId} and m.user_id = f.student_id)
     group by 1
     order by 1`
}

/**
 * Per question of a quiz, over the newest sheets: how many answered it, how many got a choice
 * question exactly right, and for short answers the points awarded in all (of those scored).
 * `questions` is the task's: (id, type, correct options sorted as stored answers are, points).
 * Each sheet's answers and scores are expanded once and matched to the questions by a hash join
 * (a lateral search per question and sheet cost three times as much at 100,000 sheets).
 */
export async function questionTallies(sql: Db, courseId: string, taskId: string, questions: { id: string; type: string; correct: number[]; points: number }[]) {
  return sql<{ question_id: string; answered: number; correct: number; scored: number; awarded: string | null }[]>`
    with newest as (
      select distinct on (s.student_id) s.student_id, s.answers, s.question_scores
        from learning_submissions s
       where s.task_id = ${taskId}
       order by s.student_id, s.submitted_at desc, s.id desc
    ), members as materialized (
      select n.answers, n.question_scores from newest n
       where exists (select 1 from course_members m where m.course_id = ${courseId} and m.user_id = n.student_id)
    ), q as (
      select * from jsonb_to_recordset(${sql.json(questions as any)}::jsonb) as q (id text, type text, correct jsonb, points numeric)
    ), answered as (
      select q.id, count(*)::int as answered, count(*) filter (where q.type <> 'SHORT_ANSWER' and a -> 'selectedOptions' = q.correct)::int as correct
        from members n cross join jsonb_array_elements(coalesce(n.answers, '[]'::jsonb)) a
        join q on q.id = a ->> 'questionId'
       group by q.id
    ), scored as (
      select y ->> 'questionId' as id, count(*)::int as scored, sum((y ->> 'score')::numeric) as awarded
        from members n cross join jsonb_array_elements(coalesce(n.question_scores, '[]'::jsonb)) y
       group by 1
    )
    select q.id as question_id, coalesce(a.answered, 0) as answered, coalesce(a.correct, 0) as correct,
           coalesce(s.scored, 0) as scored, s.awarded
      from q left join answered a on a.id = q.id left join scored s on s.id = q.id`
}

/** Per tenth of the range, the students of the course whose average over their graded work falls there (grade_totals). */
export async function totalBuckets(sql: Db, courseId: string) {
  return sql<{ bucket: number; n: number }[]>`
    select least(floor((g.task_score_sum + g.lab_score_sum) / (g.task_graded + g.lab_graded) / 10), 9)::int as bucket, count(*)::int as n
      from grade_totals g
     where g.course_id = ${courseId} and g.task_graded + g.lab_graded > 0
       and exists (select 1 from course_members m where m.course_id = ${courseId} and m.user_id = g.student_id)
     group by 1`
}
