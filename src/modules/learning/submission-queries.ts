import type { Sql, TxSql } from '../../db/connect.ts'
import { studentCountOf } from '../../db/student-count.ts'
import { studentCount } from '../../db/student-range.ts'
import type { RowWindow } from '../../http/pagination.ts'
import { roster } from '../courses/queries.ts'
import type { OverviewRow, QuestionScore, GradeRelease, Rubric, RubricChoice, StoredAnswer, StoredQuestion, SubmissionRow } from './rows.ts'

type Db = Sql | TxSql

/**
 * The columns of a sheet row `alias` joined with its student `u` (SubmissionRow), held grade
 * included: what a student may see of it is decided in rows.ts.
 */
const sheetColumns = (sql: Db, alias: 's' | 'ins') =>
  sql.unsafe(
    ['id', 'task_id', 'course_id', 'student_id'].map((c) => `${alias}.${c}`).join(', ') +
      ', u.username, u.display_name, ' +
      ['content', 'answers', 'auto_score', 'score', 'question_scores', 'feedback', 'status', 'late', 'submitted_at', 'graded_at',
        'held_score', 'held_question_scores', 'held_feedback', 'held_rubric', 'held_at', 'rubric_choices']
        .map((c) => `${alias}.${c}`)
        .join(', '),
  )

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
  /** The task's grades wait for the teacher's release: a score given at once is held. */
  held: boolean
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
  const graded = s.score !== null && !s.held
  const held = s.score !== null && s.held
  const [row] = await sql<SubmissionRow[]>`
    with ins as (
      insert into learning_submissions (id, task_id, course_id, student_id, content, answers, auto_score, score,
                                        status, late, submitted_at, graded_at, idempotency_key, held_score, held_at)
      values (${s.id}, ${s.taskId}, ${s.courseId}, ${s.studentId}, ${s.content},
              ${s.answers === null ? null : sql.json(s.answers as any)}, ${s.autoScore}, ${graded ? s.score : null},
              ${graded ? 'GRADED' : 'SUBMITTED'}, ${s.late}, ${s.now}, ${graded ? s.now : null}, ${s.idempotencyKey},
              ${held ? s.score : null}, ${held ? s.now : null})
      on conflict (task_id, student_id, idempotency_key) where idempotency_key is not null do nothing
      returning id, task_id, course_id, student_id, content, answers, auto_score, score, question_scores, feedback,
                status, late, submitted_at, graded_at, held_score, held_question_scores, held_feedback, held_rubric,
                held_at, rubric_choices
    )
    select ${sheetColumns(sql, 'ins')}
      from ins join users u on u.id = ins.student_id`
  return row!
}

/** The sheet a student handed in under an idempotency key, or nothing. */
export async function submissionByKey(sql: Db, taskId: string, studentId: string, key: string) {
  const [row] = await sql<SubmissionRow[]>`
    select ${sheetColumns(sql, 's')}
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
      select ${sheetColumns(sql, 's')}
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
    {
      answers: StoredAnswer[] | null
      question_scores: QuestionScore[] | null
      held_question_scores: QuestionScore[] | null
      held_at: Date | null
      questions: StoredQuestion[]
      task_type: string
      task_kind: string
      submitted_at: Date
      grade_release: GradeRelease
      rubric: Rubric | null
    }[]
  >`
    select s.answers, s.question_scores, s.held_question_scores, s.held_at, t.questions, t.task_type, t.task_kind, s.submitted_at,
           t.grade_release, t.rubric
      from learning_submissions s join learning_tasks t on t.id = s.task_id
     where s.id = ${submissionId} and s.course_id = ${courseId}
       for update of s`
  return row ?? null
}

export interface Grading {
  courseId: string
  submissionId: string
  score: number
  /** Undefined keeps the stored per-question scores. */
  questionScores: QuestionScore[] | undefined
  feedback: string | null | undefined
  /** The rubric levels chosen (grading by rubric); undefined keeps the stored ones. */
  rubric: RubricChoice[] | undefined
  graderId: string
  now: Date
}

/**
 * Grades (or regrades) a submission of the course; returns it with the task title, or nothing.
 * `feedback` undefined keeps the current feedback, null clears it. With `hold` (a MANUAL task)
 * the grade goes to the held_* columns and the sheet's own score, feedback and status stay
 * what the student sees until the release; what is kept then starts from the held grade, if
 * any, else from the released one.
 */
export async function gradeSubmission(sql: Db, g: Grading, hold = false) {
  const keep = g.feedback === undefined
  const keepScores = g.questionScores === undefined
  const keepRubric = g.rubric === undefined
  const scores = g.questionScores ? sql.json(g.questionScores as any) : null
  const rubric = g.rubric ? sql.json(g.rubric as any) : null
  const set = hold
    ? sql`held_score = ${g.score},
          held_question_scores = case when ${keepScores} then coalesce(s.held_question_scores, s.question_scores) else ${scores}::jsonb end,
          held_feedback = case when ${keep} then (case when s.held_at is null then s.feedback else s.held_feedback end) else ${g.feedback ?? null} end,
          held_rubric = case when ${keepRubric} then coalesce(s.held_rubric, s.rubric_choices) else ${rubric}::jsonb end,
          held_at = ${g.now}, graded_by = ${g.graderId}`
    : sql`score = ${g.score},
          question_scores = case when ${keepScores} then s.question_scores else ${scores}::jsonb end,
          feedback = case when ${keep} then s.feedback else ${g.feedback ?? null} end,
          rubric_choices = case when ${keepRubric} then s.rubric_choices else ${rubric}::jsonb end,
          status = 'GRADED', graded_at = ${g.now}, graded_by = ${g.graderId}`
  const [row] = await sql<(SubmissionRow & { task_title: string })[]>`
    update learning_submissions s
       set ${set}
      from users u, learning_tasks t
     where s.id = ${g.submissionId} and s.course_id = ${g.courseId} and u.id = s.student_id and t.id = s.task_id
    returning ${sheetColumns(sql, 's')}, t.title as task_title`
  return row ?? null
}

/**
 * The release of a task's held grades, as the CTE of a notifying statement: every held sheet
 * takes its held grade (one statement, the partial index of sql/058), returning
 * (student_id, score, submitted_at) per sheet released.
 */
export const releaseHeld = (sql: Db, courseId: string, taskId: string) => sql`
  update learning_submissions s
     set score = s.held_score, question_scores = coalesce(s.held_question_scores, s.question_scores),
         feedback = s.held_feedback, rubric_choices = coalesce(s.held_rubric, s.rubric_choices),
         status = 'GRADED', graded_at = s.held_at,
         held_score = null, held_question_scores = null, held_feedback = null, held_rubric = null, held_at = null
   where s.task_id = ${taskId} and s.course_id = ${courseId} and s.held_at is not null
  returning s.student_id, s.score, s.submitted_at, s.id`

/** Whether a task has grades waiting for release. */
export async function hasHeld(sql: Db, taskId: string) {
  const [row] = await sql<{ held: boolean }[]>`select exists (select 1 from learning_submissions where task_id = ${taskId} and held_at is not null) as held`
  return row!.held
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
