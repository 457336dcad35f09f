import postgres from 'postgres'
import { z } from 'zod'
import type { Sql, TxSql } from '../../db/connect.ts'
import { AppError, conflict, forbidden, invalidField, notFound, type FieldError } from '../../http/errors.ts'
import type { CourseAccess, CurrentUser } from '../../http/guards.ts'
import { offsetOf, page, windowOf, type OptionalPageQuery } from '../../http/pagination.ts'
import { feedbackChange } from '../../lib/grading.ts'
import { newId } from '../../lib/ids.ts'
import { sanitizeRichText } from '../../lib/richtext.ts'
import type { Channel } from '../notifications/channel.ts'
import { notify } from '../notifications/notify.ts'
import { notifySubmissionReceived } from '../notifications/submitted.ts'
import type { StoredFileMeta } from '../../storage/download.ts'
import type { FileStorage } from '../../storage/storage.ts'
import { cleanUploads, fileAt, filesOf, insertFiles, sameFiles, storedMeta, type CleanFile, type FileRow } from '../../storage/submission-files.ts'
import { parseForm, withUpload, type FormFields } from '../../storage/upload.ts'
import { SubmitBody, SubmitForm, type AnswerInput, type LearningGradeBody, type SubmissionQuery } from './model.ts'
import { toOverviewRow, toSubmission, type QuestionScore, type StoredAnswer, type StoredQuestion, type SubmissionRow, type TaskRow } from './rows.ts'
import { staleScores } from './regrade.ts'
import { askedOn, autoScore, sheetScore } from './scoring.ts'
import { rubricQuestionScores, rubricScore } from '../rubrics/rules.ts'
import * as q from './submission-queries.ts'
import { findTask } from './structure-queries.ts'
import { invalid } from './task-input.ts'
import { isLate } from '../../lib/due.ts'
import { linkOf, type GradedParams } from '../notifications/types.ts'

const taskNotFound = () => notFound('TASK_NOT_FOUND', 'This learning task does not exist in this course.')

/**
 * Reading and viewing material (a LEARNING task of type MEDIA) is read or watched, not handed
 * in: no total counts it, so an answer or a grade would be kept and shown nowhere (issue 56.6).
 */
export const takesAnswers = (task: { task_kind: string; task_type: string }) => task.task_kind === 'HOMEWORK' || task.task_type === 'QUIZ' || task.task_type === 'LTI'
const takesNoAnswers = () =>
  conflict('TASK_TAKES_NO_ANSWERS', 'This task is material to read or watch: it takes no answers. Homework and quizzes take answers.')

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

type Sheet = Pick<q.NewSubmission, 'content' | 'answers' | 'autoScore' | 'score'>

/**
 * The checks a hand-in passes before its body is looked at (a multipart upload is read only
 * after them): a student of the course, a well-formed key, a published task that has opened.
 */
async function openTask(sql: Sql, course: CourseAccess, taskId: string, now: Date, idempotencyKey: string | null) {
  if (course.as !== 'STUDENT') throw forbidden('Only students of this course submit answer sheets.')
  if (idempotencyKey !== null && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw invalidField('Idempotency-Key', 'must be 1 to 255 visible ASCII characters (a new UUID per attempt)')
  }
  const task = await findTask(sql, course.id, taskId)
  // A draft, scheduled or unpublished task does not exist for students (issue 29.9).
  if (!task || task.publish_state !== 'PUBLISHED') throw taskNotFound()
  if (!takesAnswers(task)) throw takesNoAnswers()
  // An LTI task's work is done in the tool, which posts the score (docs/lti.md).
  if (task.task_type === 'LTI') throw new AppError('LTI_SCORED_BY_TOOL', 'This task is done in an external tool, which sends the score; nothing is handed in here.')
  if (task.start_at && now < task.start_at) {
    throw conflict('CONFLICT', `This homework opens at ${task.start_at.toISOString()}; submit after that.`)
  }
  return task
}

/**
 * The answer checked against the task: content for MEDIA tasks (optional when files come with
 * it), answers for QUIZ tasks (scored; a quiz of choice questions only is graded at once).
 */
function answerSheet(task: TaskRow, body: SubmitBody, withFiles: boolean): Sheet {
  if (task.task_type === 'MEDIA') {
    if (body.answers !== undefined) throw invalidField('answers', 'this task takes content (rich text), not answers')
    if (body.content === undefined) {
      if (withFiles) return { content: null, answers: null, autoScore: null, score: null }
      throw invalidField('content', 'is required')
    }
    const content = sanitizeRichText(body.content)
    if (!content && !withFiles) throw invalidField('content', 'is empty (once unsafe HTML is removed)')
    return { content: content || null, answers: null, autoScore: null, score: null }
  }
  if (body.content !== undefined) throw invalidField('content', 'this quiz takes answers, not content')
  if (body.answers === undefined) throw invalidField('answers', 'is required')
  const answers = quizAnswers(task, body.answers)
  const auto = autoScore(task.questions, answers)
  return { content: null, answers, autoScore: auto, score: task.questions.some((qu) => qu.type === 'SHORT_ANSWER') ? null : auto }
}

/**
 * Stores the sheet and its files (one transaction) or, when the Idempotency-Key was used before,
 * answers that attempt's sheet if this is the same attempt (same answer, same files), else 409.
 */
async function record(
  sql: Sql,
  task: TaskRow,
  course: CourseAccess,
  user: CurrentUser,
  sheet: Sheet,
  files: CleanFile[],
  now: Date,
  idempotencyKey: string | null,
  channels: readonly Channel[],
): Promise<{ submission: ReturnType<typeof toSubmission>; replayed: boolean }> {
  const id = newId()
  const manual = task.grade_release === 'MANUAL'
  const fields: q.NewSubmission = { id, taskId: task.id, courseId: course.id, studentId: user.id, ...sheet, held: manual, late: isLate(now, task.due_at), idempotencyKey, now }
  // A delete of the task that commits first makes the insert fail on its foreign key (the
  // delete locked the task row; see lockForDelete): the task is gone, nothing was accepted.
  // The sheet, its files and the notification to the course's teachers commit together (issue 29.10).
  const row = await sql
    .begin(async (tx) => {
      const inserted = await q.insertSubmission(tx, fields)
      if (inserted) {
        if (files.length) await insertFiles(tx, 'learning', id, files, 1)
        const submission = { id: inserted.id, studentId: user.id, studentName: inserted.display_name, late: inserted.late }
        await notifySubmissionReceived(tx, { course, subject: 'TASK', item: task, submission }, now, channels)
      }
      return inserted
    })
    .catch((e) => {
    throw e instanceof postgres.PostgresError && e.code === '23503' ? taskNotFound() : e
  })
  // The files just stored are the sheet's files: no query to read them back.
  if (row) return { submission: toSubmission(row, task.questions, files.map((f, i) => fileRow(id, i + 1, f)), 'STUDENT', manual), replayed: false }
  // The key was used before: that attempt's sheet is the answer, if this is the same attempt.
  const first = await q.submissionByKey(sql, task.id, user.id, idempotencyKey!)
  if (!first) throw taskNotFound()
  const firstFiles = (await filesOf(sql, 'learning', [first.id])).get(first.id) ?? []
  // Compared field by field: jsonb gives the stored answers back with their keys reordered.
  const same = (a: StoredAnswer[] | null) => JSON.stringify(a?.map((x) => [x.questionId, x.selectedOptions, x.text ?? null]) ?? null)
  if (JSON.stringify(first.content) !== JSON.stringify(sheet.content) || same(first.answers) !== same(sheet.answers) || !sameFiles(firstFiles, files)) {
    throw conflict('CONFLICT', 'This Idempotency-Key was already used for a different answer; send a new key for a new attempt.')
  }
  return { submission: toSubmission(first, task.questions, firstFiles, 'STUDENT', manual), replayed: true }
}

const fileRow = (submissionId: string, position: number, f: CleanFile): FileRow => ({
  submission_id: submissionId,
  position,
  storage_key: f.key,
  file_name: f.name,
  file_size: f.size,
  content_type: f.type,
})

/** Rows → API objects with their files: one query for the files of all of them. */
async function withFiles(sql: Sql | TxSql, rows: SubmissionRow[], questions: StoredQuestion[], viewer: 'TEACHER' | 'STUDENT' = 'TEACHER', manual = false) {
  const files = await filesOf(sql, 'learning', rows.map((r) => r.id))
  return rows.map((r) => toSubmission(r, questions, files.get(r.id), viewer, manual))
}

/**
 * A student's answer sheet (JSON). Every submission is kept (the newest counts); late ones are
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
  const task = await openTask(sql, course, taskId, now, idempotencyKey)
  return record(sql, task, course, user, answerSheet(task, body, false), [], now, idempotencyKey, channels)
}

/**
 * A hand-in with files (multipart/form-data, issue 29.7): the answer as in the JSON body
 * (`answers` as JSON text) and one to MAX_FILES `files`, streamed into the file storage through
 * the upload path experiments use. The body is read only after the checks of openTask; on any
 * refusal, and on a replayed Idempotency-Key, the files it stored are removed.
 */
export async function submitWithFiles(
  sql: Sql,
  storage: FileStorage,
  course: CourseAccess,
  user: CurrentUser,
  taskId: string,
  request: Request,
  opts: { now: Date; idempotencyKey: string | null; maxUploadBytes: number; channels: readonly Channel[] },
): Promise<{ submission: ReturnType<typeof toSubmission>; replayed: boolean }> {
  const task = await openTask(sql, course, taskId, opts.now, opts.idempotencyKey)
  const reading = { maxUploadBytes: opts.maxUploadBytes, storage, fileFields: ['files'], repeatable: ['files'] }
  return withUpload(request, reading, async (upload) => {
    const form = parseForm(SubmitForm, { ...upload.fields, files: upload.files.files } as unknown as FormFields)
    if (!form.files?.length) throw invalidField('files', 'at least one file is required (send JSON to hand in without files)')
    const files = cleanUploads(form.files, 'files', opts.maxUploadBytes)
    const sheet = answerSheet(task, { content: form.content, answers: form.answers === undefined ? undefined : answersOfForm(form.answers) }, true)
    const result = await record(sql, task, course, user, sheet, files, opts.now, opts.idempotencyKey, opts.channels)
    // The first attempt's files are the ones kept.
    if (result.replayed) await upload.discard()
    return result
  })
}

const FormAnswers = z.object({ answers: SubmitBody.shape.answers.unwrap() })

/** The `answers` field of a form: JSON text of the array the JSON body carries. */
function answersOfForm(text: string): AnswerInput[] {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw invalidField('answers', 'must be JSON: an array of { questionId, selectedOptions?, text? }')
  }
  return parseForm(FormAnswers, { answers: json } as unknown as FormFields).answers
}

/** The file at `position` of a learning submission: for the student who handed it in and the course's teacher only. */
export async function submissionFile(sql: Sql, course: CourseAccess, user: CurrentUser, submissionId: string, position: number): Promise<StoredFileMeta> {
  const owner = await q.submissionOwner(sql, course.id, submissionId)
  if (!owner) throw notFound('SUBMISSION_NOT_FOUND', 'This submission does not exist in this course.')
  if (owner.student_id !== user.id && course.as !== 'TEACHER') throw forbidden("Only the student who handed this in and the course's teacher can download its files.")
  const f = await fileAt(sql, 'learning', submissionId, position)
  if (!f) throw notFound('NOT_FOUND', 'This submission has no file at that position.')
  return storedMeta(f)
}

/** Idempotency-Key: visible ASCII, as in the IETF draft; a UUID per attempt is what the web app sends. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

/** The teacher sees every student's sheets (optionally one student's); a student only their own. */
export async function listSubmissions(sql: Sql, course: CourseAccess, user: CurrentUser, taskId: string, query: SubmissionQuery) {
  const task = await findTask(sql, course.id, taskId)
  if (!task || (course.as === 'STUDENT' && task.publish_state !== 'PUBLISHED')) throw taskNotFound()
  const studentId = course.as === 'STUDENT' ? user.id : (query.studentId ?? null)
  const { items, total } = await q.listSubmissions(sql, taskId, studentId, query.pageSize, offsetOf(query))
  return page(await withFiles(sql, items, task.questions, course.as, task.grade_release === 'MANUAL'), total, query)
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
  if (body.score === undefined && body.questionScores === undefined && body.rubric === undefined) {
    throw invalidField('score', 'is required (or give questionScores or rubric)')
  }
  return sql.begin(async (tx) => {
    const sheet = await q.submissionForGrading(tx, courseId, submissionId)
    if (!sheet) throw notFound('SUBMISSION_NOT_FOUND', 'This submission does not exist in this course.')
    // A sheet handed in to material before it refused answers stays, ungraded and uncounted.
    if (!takesAnswers(sheet)) throw takesNoAnswers()
    let questionScores: QuestionScore[] | undefined
    let score = body.score
    let given = body.questionScores
    if (body.rubric !== undefined) {
      if (!sheet.rubric) throw invalidField('rubric', 'this task has no rubric; give score (or questionScores)')
      if (sheet.task_type === 'QUIZ') {
        if (given !== undefined) throw invalidField('questionScores', 'give either rubric or questionScores')
        given = rubricQuestionScores(sheet.rubric, body.rubric)
      } else if (score === undefined) score = rubricScore(sheet.rubric, body.rubric)
      else rubricScore(sheet.rubric, body.rubric)
    }
    // A held grade is regraded from what it holds.
    const stored = (sheet.held_at ? sheet.held_question_scores : null) ?? sheet.question_scores ?? []
    if (given !== undefined) {
      if (sheet.task_type !== 'QUIZ') throw invalidField('questionScores', 'this task has no questions; give score only')
      questionScores = mergedQuestionScores(sheet.questions, stored, given)
    }
    if (sheet.task_type === 'QUIZ') refuseStaleScores(sheet.questions, questionScores ?? stored)
    if (questionScores !== undefined) {
      if (score === undefined) {
        score = sheetScore(askedOn(sheet.questions, sheet.submitted_at), sheet.answers ?? [], questionScores) ?? undefined
        if (score === undefined) throw invalidField('score', 'is required until every short-answer question has a score')
      }
    }
    const hold = sheet.grade_release === 'MANUAL'
    const row = await q.gradeSubmission(
      tx,
      { courseId, submissionId, score: score!, questionScores, feedback, rubric: body.rubric, graderId: grader.id, now },
      hold,
    )
    if (!row) throw notFound('SUBMISSION_NOT_FOUND', 'This submission does not exist in this course.')
    const graded = (await withFiles(tx, [row], sheet.questions))[0]!
    // A held grade tells nobody: the release does, once per student.
    if (!hold) {
      const params: GradedParams = { kind: 'SUBMISSION_GRADED', subject: 'TASK', courseId, courseTitle: null, title: row.task_title, score: Number(graded.score) }
      await notify(tx, [row.student_id], { actionPath: linkOf(params, { itemId: row.task_id }), params }, { now, channels })
    }
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
