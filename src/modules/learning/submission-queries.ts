import type { Sql, TxSql } from '../../db/connect.ts'
import { studentCountOf } from '../../db/student-count.ts'
import { studentCount } from '../../db/student-range.ts'
import type { RowWindow } from '../../http/pagination.ts'
import { roster } from '../courses/queries.ts'
import type { OverviewRow, QuestionScore, StoredAnswer, StoredQuestion, SubmissionRow } from './rows.ts'

type Db = Sql | TxSql

export interface NewSubmission {
  id: string
  taskId: string
  courseId: string
  studentId: string
  content: string | null
  answers: StoredAnswer[] | null
  autoScore: number | null
  /** Set when the sheet is graded at once (a quiz of choice questions only). */
  score: number | null
  late: boolean
  /** One per hand-in attempt; a second insert with the same key inserts nothing. */
  idempotencyKey: string | null
  now: Date
}

/**
 * Inserts the sheet; with an idempotency key already used by this student for this task,
 * inserts nothing and returns nothing (a concurrent insert with the key waits for the first).
 */
export async function insertSubmission(sql: Db, s: NewSubmission) {
  const graded = s.score !== null
  const [row] = await sql<SubmissionRow[]>`
    with ins as (
      insert into learning_submissions (id, task_id, course_id, student_id, content, answers, auto_score, score,
                                        status, late, submitted_at, graded_at, idempotency_key)
      values (${s.id}, ${s.taskId}, ${s.courseId}, ${s.studentId}, ${s.content},
              ${s.answers === null ? null : sql.json(s.answers as any)}, ${s.autoScore}, ${s.score},
              ${graded ? 'GRADED' : 'SUBMITTED'}, ${s.late}, ${s.now}, ${graded ? s.now : null}, ${s.idempotencyKey})
      on conflict (task_id, student_id, idempotency_key) where idempotency_key is not null do nothing
      returning id, task_id, course_id, student_id, content, answers, auto_score, score, question_scores, feedback,
                status, late, submitted_at, graded_at
    )
    select ins.id, ins.task_id, ins.course_id, ins.student_id, u.username, u.display_name, ins.content, ins.answers,
           ins.auto_score, ins.score, ins.question_scores, ins.feedback, ins.status, ins.late, ins.submitted_at, ins.graded_at
      from ins join users u on u.id = ins.student_id`
  return row!
}

/** The sheet a student handed in under an idempotency key, or nothing. */
export async function submissionByKey(sql: Db, taskId: string, studentId: string, key: string) {
  const [row] = await sql<SubmissionRow[]>`
    select s.id, s.task_id, s.course_id, s.student_id, u.username, u.display_name, s.content, s.answers,
           s.auto_score, s.score, s.question_scores, s.feedback, s.status, s.late, s.submitted_at, s.graded_at
      from learning_submissions s join users u on u.id = s.student_id
     where s.task_id = ${taskId} and s.student_id = ${studentId} and s.idempotency_key = ${key}`
  return row ?? null
}

/**
 * One page of a task's submissions, newest first (read in that order from an index, no sort);
 * `studentId` narrows to one student.
 */
export async function listSubmissions(sql: Db, taskId: string, studentId: string | null, limit: number, offset: number) {
  const onlyStudent = studentId ? sql`and s.student_id = ${studentId}` : sql``
  const [items, [count]] = await Promise.all([
    sql<SubmissionRow[]>`
      select s.id, s.task_id, s.course_id, s.student_id, u.username, u.display_name, s.content, s.answers,
             s.auto_score, s.score, s.question_scores, s.feedback, s.status, s.late, s.submitted_at, s.graded_at
        from learning_submissions s join users u on u.id = s.student_id
       where s.task_id = ${taskId} ${onlyStudent}
       order by s.submitted_at desc, s.id desc
       limit ${limit} offset ${offset}`,
    // Counted on write (sql/029): the cost of a page does not grow with the history.
    studentId
      ? sql<{ total: number }[]>`
          select coalesce((select sheets from learning_sheet_counts where task_id = ${taskId} and student_id = ${studentId}), 0) as total`
      : sql<{ total: number }[]>`
          select coalesce(sum(sheets), 0)::int as total from learning_sheet_counts where task_id = ${taskId}`,
  ])
  return { items, total: count?.total ?? 0 }
}

/** The sheet to grade, locked, with its task's questions; nothing when not a submission of the course. */
export async function submissionForGrading(sql: Db, courseId: string, submissionId: string) {
  const [row] = await sql<
    { answers: StoredAnswer[] | null; question_scores: QuestionScore[] | null; questions: StoredQuestion[]; task_type: string; task_kind: string; submitted_at: Date }[]
  >`
    select s.answers, s.question_scores, t.questions, t.task_type, t.task_kind, s.submitted_at
      from learning_submissions s join learning_tasks t on t.id = s.task_id
     where s.id = ${submissionId} and s.course_id = ${courseId}
       for update of s`
  return row ?? null
}

/**
 * Grades (or regrades) a submission of the course; returns it with the task title, or nothing.
 * `feedback` undefined keeps the current feedback, null clears it.
 */
export async function gradeSubmission(
  sql: Db,
  g: {
    courseId: string
    submissionId: string
    score: number
    /** Undefined keeps the stored per-question scores. */
    questionScores: QuestionScore[] | undefined
    feedback: string | null | undefined
    graderId: string
    now: Date
  },
) {
  const keep = g.feedback === undefined
  const keepScores = g.questionScores === undefined
  const [row] = await sql<(SubmissionRow & { task_title: string })[]>`
    update learning_submissions s
       set score = ${g.score},
           question_scores = case when ${keepScores} then s.question_scores else ${g.questionScores ? sql.json(g.questionScores as any) : null}::jsonb end,
           feedback = case when ${keep} then s.feedback else ${g.feedback ?? null} end, status = 'GRADED', graded_at = ${g.now}, graded_by = ${g.graderId}
      from users u, learning_tasks t
     where s.id = ${g.submissionId} and s.course_id = ${g.courseId} and u.id = s.student_id and t.id = s.task_id
    returning s.id, s.task_id, s.course_id, s.student_id, u.username, u.display_name, s.content, s.answers,
              s.auto_score, s.score, s.question_scores, s.feedback, s.status, s.late, s.submitted_at, s.graded_at, t.title as task_title`
  return row ?? null
}

/**
 * Per-student summary in one statement, the same total as the gradebook (issue 29.5): what a
 * student hands in — homework, quizzes and experiments — with each one's newest submission;
 * `averageScore` is over the graded ones (null when none). Reading/video material is no task.
 * `studentId` narrows to one student (a student sees only their own row).
 */
export async function learningOverview(sql: Db, courseId: string, studentId: string | null, window: RowWindow = null) {
  // Per-student totals are kept by triggers (sql/007_grade_totals.sql): one row per student.
  return sql<OverviewRow[]>`
    select m.user_id, m.username, m.display_name,
           ((select count(*)::int from learning_tasks where course_id = ${courseId} and (task_kind = 'HOMEWORK' or task_type in ('QUIZ', 'LTI'))
                and publish_state = 'PUBLISHED')
             + (select count(*)::int from experiments where course_id = ${courseId})) as total_tasks,
           coalesce(g.task_count + g.lab_count, 0) as submitted_tasks,
           coalesce(g.task_graded + g.lab_graded, 0) as graded_tasks,
           case when g.task_graded + g.lab_graded > 0
                then round((g.task_score_sum + g.lab_score_sum) / (g.task_graded + g.lab_graded), 2) end as average_score,
           ${studentId ? sql`(select count(*)::int from course_members c where c.course_id = ${courseId} and c.user_id = ${studentId})` : studentCountOf(sql, courseId)} as total
      from ${roster(sql, courseId, studentId, window)} m
      left join grade_totals g on g.course_id = ${courseId} and g.student_id = m.user_id
     order by m.sort_name, m.sort_username, m.user_id`
}

/** Students of the course (or just `studentId`, when a member): the total of a page past the end. */
export async function countStudents(sql: Db, courseId: string, studentId: string | null = null) {
  // The whole course: its counter rows (sql/046); one student: a keyed probe.
  if (!studentId) return studentCount(sql, courseId)
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from course_members where course_id = ${courseId} and user_id = ${studentId}`
  return row!.n
}

/** Who handed in a submission of the course (downloads of its files), or nothing. */
export async function submissionOwner(sql: Db, courseId: string, submissionId: string) {
  const [row] = await sql<{ student_id: string }[]>`
    select student_id from learning_submissions where id = ${submissionId} and course_id = ${courseId}`
  return row ?? null
}
