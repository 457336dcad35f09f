import postgres from 'postgres'
import type { Sql } from '../../db/connect.ts'
import { conflict, forbidden, invalidField, notFound, type FieldError } from '../../http/errors.ts'
import type { CourseAccess, CurrentUser } from '../../http/guards.ts'
import { offsetOf, page } from '../../http/pagination.ts'
import { feedbackChange, type GradeBody } from '../../lib/grading.ts'
import { newId } from '../../lib/ids.ts'
import { sanitizeRichText } from '../../lib/richtext.ts'
import { insertNotifications } from '../notifications/queries.ts'
import type { AnswerInput, SubmissionQuery, SubmitBody } from './model.ts'
import { toOverviewRow, toSubmission, type StoredAnswer, type TaskRow } from './rows.ts'
import { autoScore } from './scoring.ts'
import * as q from './submission-queries.ts'
import { findTask } from './structure-queries.ts'
import { invalid } from './task-input.ts'

const taskNotFound = () => notFound('TASK_NOT_FOUND', 'This learning task does not exist in this course.')

/** Quiz answers checked against the task's questions; every problem is reported at once. */
function quizAnswers(task: TaskRow, answers: AnswerInput[]): StoredAnswer[] {
  const questions = new Map(task.questions.map((qu) => [qu.id, qu]))
  const seen = new Set<string>()
  const problems: FieldError[] = []
  const out: StoredAnswer[] = []
  answers.forEach((a, i) => {
    const at = (f: string, message: string) => problems.push({ field: `answers.${i}.${f}`, message })
    const question = questions.get(a.questionId)
    if (!question) return at('questionId', 'is not a question of this task')
    if (seen.has(a.questionId)) return at('questionId', 'answers the same question twice')
    seen.add(a.questionId)
    const selected = a.selectedOptions ?? []
    if (question.type === 'SHORT_ANSWER') {
      if (selected.length) return at('selectedOptions', 'a short-answer question takes text, not options')
      out.push({ questionId: a.questionId, selectedOptions: [], text: sanitizeRichText(a.text ?? '') })
      return
    }
    if (a.text !== undefined && a.text !== '') return at('text', 'a choice question takes selectedOptions, not text')
    if (selected.some((o) => o >= question.options.length)) return at('selectedOptions', 'each index must point at one of the options (0-based)')
    if (new Set(selected).size !== selected.length) return at('selectedOptions', 'must not repeat an option')
    if (question.type === 'SINGLE_CHOICE' && selected.length > 1) return at('selectedOptions', 'a single-choice question takes one option')
    out.push({ questionId: a.questionId, selectedOptions: [...selected].sort((x, y) => x - y), text: null })
  })
  if (problems.length) throw invalid(problems)
  return out
}

/**
 * A student's answer sheet. Every submission is kept (the newest counts); late ones are
 * accepted and flagged; a quiz of choice questions only is graded at once.
 */
export async function submit(sql: Sql, course: CourseAccess, user: CurrentUser, taskId: string, body: SubmitBody, now: Date) {
  if (course.as !== 'STUDENT') throw forbidden('Only students of this course submit answer sheets.')
  const task = await findTask(sql, course.id, taskId)
  if (!task) throw taskNotFound()
  if (task.start_at && now < task.start_at) {
    throw conflict('CONFLICT', `This homework opens at ${task.start_at.toISOString()}; submit after that.`)
  }

  let content: string | null = null
  let answers: StoredAnswer[] | null = null
  let auto: number | null = null
  let score: number | null = null
  if (task.task_type === 'MEDIA') {
    if (body.answers !== undefined) throw invalidField('answers', 'this task takes content (rich text), not answers')
    if (body.content === undefined) throw invalidField('content', 'is required')
    content = sanitizeRichText(body.content)
    if (!content) throw invalidField('content', 'is empty (once unsafe HTML is removed)')
  } else {
    if (body.content !== undefined) throw invalidField('content', 'this quiz takes answers, not content')
    if (body.answers === undefined) throw invalidField('answers', 'is required')
    answers = quizAnswers(task, body.answers)
    auto = autoScore(task.questions, answers)
    if (!task.questions.some((qu) => qu.type === 'SHORT_ANSWER')) score = auto
  }

  // A delete of the task that commits first makes the insert fail on its foreign key (the
  // delete locked the task row; see lockForDelete): the task is gone, nothing was accepted.
  const row = await q
    .insertSubmission(sql, {
      id: newId(),
      taskId: task.id,
      courseId: course.id,
      studentId: user.id,
      content,
      answers,
      autoScore: auto,
      score,
      late: task.due_at !== null && now > task.due_at,
      now,
    })
    .catch((e) => {
      throw e instanceof postgres.PostgresError && e.code === '23503' ? taskNotFound() : e
    })
  return toSubmission(row)
}

/** The teacher sees every student's sheets (optionally one student's); a student only their own. */
export async function listSubmissions(sql: Sql, course: CourseAccess, user: CurrentUser, taskId: string, query: SubmissionQuery) {
  if (!(await findTask(sql, course.id, taskId))) throw taskNotFound()
  const studentId = course.as === 'STUDENT' ? user.id : (query.studentId ?? null)
  const { items, total } = await q.listSubmissions(sql, taskId, studentId, query.pageSize, offsetOf(query))
  return page(items.map(toSubmission), total, query)
}

/**
 * Grades or regrades (score replaced, gradedAt set again) and tells the student. Feedback as
 * for experiments: omitted keeps the current one, null (or empty after sanitising) clears it.
 */
export async function grade(sql: Sql, courseId: string, grader: CurrentUser, submissionId: string, body: GradeBody, now: Date) {
  const feedback = feedbackChange(body.feedback)
  return sql.begin(async (tx) => {
    const row = await q.gradeSubmission(tx, { courseId, submissionId, score: body.score, feedback, graderId: grader.id, now })
    if (!row) throw notFound('SUBMISSION_NOT_FOUND', 'This submission does not exist in this course.')
    const graded = toSubmission(row)
    await insertNotifications(
      tx,
      [
        {
          userId: row.student_id,
          type: 'SUBMISSION_GRADED',
          title: `Graded: ${row.task_title}`.slice(0, 250),
          content: `Your answer sheet for "${row.task_title}" was graded: ${graded.score}/100.`,
          actionPath: `/courses/${courseId}?taskId=${row.task_id}`,
        },
      ],
      now,
    )
    return graded
  })
}

export async function overview(sql: Sql, course: CourseAccess, user: CurrentUser) {
  const rows = await q.learningOverview(sql, course.id, course.as === 'STUDENT' ? user.id : null)
  return { students: rows.map(toOverviewRow) }
}
