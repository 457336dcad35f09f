import postgres from 'postgres'
import type { Sql, TxSql } from '../../db/connect.ts'
import { conflict, forbidden, invalidField, notFound, type FieldError } from '../../http/errors.ts'
import type { CourseAccess, CurrentUser } from '../../http/guards.ts'
import { offsetOf, page, windowOf, type OptionalPageQuery } from '../../http/pagination.ts'
import { feedbackChange } from '../../lib/grading.ts'
import { newId } from '../../lib/ids.ts'
import { sanitizeRichText } from '../../lib/richtext.ts'
import type { Channel } from '../notifications/channel.ts'
import { notify } from '../notifications/notify.ts'
import type { AnswerInput, LearningGradeBody, SubmissionQuery, SubmitBody } from './model.ts'
import { toOverviewRow, toSubmission, type QuestionScore, type StoredAnswer, type StoredQuestion, type TaskRow } from './rows.ts'
import { staleScores } from './regrade.ts'
import { autoScore, sheetScore } from './scoring.ts'
import * as q from './submission-queries.ts'
import { findTask } from './structure-queries.ts'
import { invalid } from './task-input.ts'
import { isLate } from '../../lib/due.ts'

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
export async function submit(
  sql: Sql,
  course: CourseAccess,
  user: CurrentUser,
  taskId: string,
  body: SubmitBody,
  now: Date,
  idempotencyKey: string | null,
  channels: readonly Channel[],
): Promise<{ submission: ReturnType<typeof toSubmission>; replayed: boolean }> {
  if (course.as !== 'STUDENT') throw forbidden('Only students of this course submit answer sheets.')
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw invalidField('Idempotency-Key', 'must be 1 to 255 visible ASCII characters (a new UUID per attempt)')
  }
  const task = await findTask(sql, course.id, taskId)
  // A draft, scheduled or unpublished task does not exist for students (issue 29.9).
  if (!task || task.publish_state !== 'PUBLISHED') throw taskNotFound()
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
  // The sheet and its notification to the course's teachers commit together (issue 29.10).
  const row = await sql
    .begin(async (tx) => {
      const row = await q.insertSubmission(tx, {
      id: newId(),
      taskId: task.id,
      courseId: course.id,
      studentId: user.id,
      content,
      answers,
      autoScore: auto,
      score,
      late: isLate(now, task.due_at),
      idempotencyKey,
      now,
    })
      if (row) await notifySubmitted(tx, course, task, row, now, channels)
      return row
    })
    .catch((e) => {
      throw e instanceof postgres.PostgresError && e.code === '23503' ? taskNotFound() : e
    })
  if (row) return { submission: toSubmission(row, task.questions), replayed: false }
  // The key was used before: that attempt's sheet is the answer, if this is the same attempt.
  const first = await q.submissionByKey(sql, task.id, user.id, idempotencyKey!)
  if (!first) throw taskNotFound()
  // Compared field by field: jsonb gives the stored answers back with their keys reordered.
  const same = (a: StoredAnswer[] | null) => JSON.stringify(a?.map((x) => [x.questionId, x.selectedOptions, x.text ?? null]) ?? null)
  if (JSON.stringify(first.content) !== JSON.stringify(content) || same(first.answers) !== same(answers)) {
    throw conflict('CONFLICT', 'This Idempotency-Key was already used for a different answer; send a new key for a new attempt.')
  }
  return { submission: toSubmission(first, task.questions), replayed: true }
}

/** Tells the course's teachers (owner and co-teachers) about a new sheet; a replay tells nobody. */
function notifySubmitted(tx: TxSql, course: CourseAccess, task: TaskRow, row: { id: string; display_name: string; late: boolean }, now: Date, channels: readonly Channel[]) {
  return notify(
    tx,
    { courseTeachers: course.id },
    {
      actionPath: `/courses/${course.id}?taskId=${task.id}`,
      params: { kind: 'SUBMISSION_RECEIVED', subject: 'TASK', courseId: course.id, courseTitle: course.title, taskId: task.id, title: task.title, submissionId: row.id, student: row.display_name, late: row.late },
    },
    { now, channels },
  )
}

/** Idempotency-Key: visible ASCII, as in the IETF draft; a UUID per attempt is what the web app sends. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

/** The teacher sees every student's sheets (optionally one student's); a student only their own. */
export async function listSubmissions(sql: Sql, course: CourseAccess, user: CurrentUser, taskId: string, query: SubmissionQuery) {
  const task = await findTask(sql, course.id, taskId)
  if (!task || (course.as === 'STUDENT' && task.publish_state !== 'PUBLISHED')) throw taskNotFound()
  const studentId = course.as === 'STUDENT' ? user.id : (query.studentId ?? null)
  const { items, total } = await q.listSubmissions(sql, taskId, studentId, query.pageSize, offsetOf(query))
  return page(
    items.map((row) => toSubmission(row, task.questions)),
    total,
    query,
  )
}

/**
 * Per-question scores checked against the task and merged into those already on the sheet:
 * only SHORT_ANSWER questions of this task, each 0..its points, each once; every problem at once.
 */
function mergedQuestionScores(questions: StoredQuestion[], stored: QuestionScore[], given: QuestionScore[]): QuestionScore[] {
  const byId = new Map(questions.map((qu) => [qu.id, qu]))
  const problems: FieldError[] = []
  const seen = new Set<string>()
  given.forEach((g, i) => {
    const at = (f: string, message: string) => problems.push({ field: `questionScores.${i}.${f}`, message })
    const question = byId.get(g.questionId)
    if (!question) return at('questionId', 'is not a question of this task')
    if (question.type !== 'SHORT_ANSWER') return at('questionId', 'is a choice question; those are scored automatically')
    if (seen.has(g.questionId)) return at('questionId', 'scores the same question twice')
    seen.add(g.questionId)
    if (g.score > question.points) at('score', `must be from 0 to ${question.points} (the question's points)`)
  })
  if (problems.length) throw invalid(problems)
  const merged = new Map(stored.filter((s) => byId.get(s.questionId)?.type === 'SHORT_ANSWER').map((s) => [s.questionId, s.score]))
  for (const g of given) merged.set(g.questionId, Math.round(g.score * 100) / 100)
  // In the task's question order, so the sheet reads like the quiz.
  return questions.filter((qu) => merged.has(qu.id)).map((qu) => ({ questionId: qu.id, score: merged.get(qu.id)! }))
}

/**
 * A per-question score stored before the question's points were lowered is above them now
 * (issue 27.6): every (re)grading of the sheet is refused, naming the question, until the
 * teacher scores it again (sending it in `questionScores` replaces it).
 */
function refuseStaleScores(questions: StoredQuestion[], scores: QuestionScore[]) {
  const stale = staleScores(questions, scores)
  if (stale.length) {
    throw invalid(
      stale.map((s) => ({
        field: `questionScores.${s.questionId}`,
        message: `the stored score ${s.score} is above this question's current ${s.points} point(s); score it again`,
      })),
    )
  }
}

/**
 * Grades or regrades (score replaced, gradedAt set again) and tells the student. Feedback as
 * for experiments: omitted keeps the current one, null (or empty after sanitising) clears it.
 * With `questionScores` the teacher scores short-answer questions; `score` may then be left
 * out once every short-answer question is scored (computed from points), or given to override.
 */
export async function grade(
  sql: Sql,
  courseId: string,
  grader: CurrentUser,
  submissionId: string,
  body: LearningGradeBody,
  now: Date,
  channels: readonly Channel[],
) {
  const feedback = feedbackChange(body.feedback)
  if (body.score === undefined && body.questionScores === undefined) throw invalidField('score', 'is required (or give questionScores)')
  return sql.begin(async (tx) => {
    const sheet = await q.submissionForGrading(tx, courseId, submissionId)
    if (!sheet) throw notFound('SUBMISSION_NOT_FOUND', 'This submission does not exist in this course.')
    let questionScores: QuestionScore[] | undefined
    let score = body.score
    if (body.questionScores !== undefined) {
      if (sheet.task_type !== 'QUIZ') throw invalidField('questionScores', 'this task has no questions; give score only')
      questionScores = mergedQuestionScores(sheet.questions, sheet.question_scores ?? [], body.questionScores)
    }
    if (sheet.task_type === 'QUIZ') refuseStaleScores(sheet.questions, questionScores ?? sheet.question_scores ?? [])
    if (questionScores !== undefined) {
      if (score === undefined) {
        score = sheetScore(sheet.questions, sheet.answers ?? [], questionScores) ?? undefined
        if (score === undefined) throw invalidField('score', 'is required until every short-answer question has a score')
      }
    }
    const row = await q.gradeSubmission(tx, { courseId, submissionId, score: score!, questionScores, feedback, graderId: grader.id, now })
    if (!row) throw notFound('SUBMISSION_NOT_FOUND', 'This submission does not exist in this course.')
    const graded = toSubmission(row, sheet.questions)
    await notify(
      tx,
      [row.student_id],
      {
        actionPath: `/courses/${courseId}?taskId=${row.task_id}`,
        params: { kind: 'SUBMISSION_GRADED', subject: 'TASK', courseId, courseTitle: null, title: row.task_title, score: Number(graded.score) },
      },
      { now, channels },
    )
    return graded
  })
}

export async function overview(sql: Sql, course: CourseAccess, user: CurrentUser, paging: OptionalPageQuery = {}) {
  const { window, page, pageSize } = windowOf(paging)
  const only = course.as === 'STUDENT' ? user.id : null
  const rows = await q.learningOverview(sql, course.id, only, window)
  // The total rides on every row; only a page past the end needs counting on its own.
  const total = rows[0]?.total ?? (window && window.offset > 0 ? await q.countStudents(sql, course.id, only) : 0)
  return { students: rows.map(toOverviewRow), total, page, pageSize }
}
