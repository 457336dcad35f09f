import postgres from 'postgres'
import type { Sql } from '../../db/connect.ts'
import { iso, num } from '../../http/envelope.ts'
import { conflict, forbidden, invalidField, notFound } from '../../http/errors.ts'
import { courseAccess, type CourseAccess, type CourseIntent, type CurrentUser } from '../../http/guards.ts'
import { feedbackChange } from '../../lib/grading.ts'
import { newId } from '../../lib/ids.ts'
import { sanitizeRichText } from '../../lib/richtext.ts'
import type { Channel } from '../notifications/channel.ts'
import { notify, notifyEventsWith } from '../notifications/notify.ts'
import { gradesHeld } from '../learning/release.ts'
import { rubricScore, rubricValues } from '../rubrics/rules.ts'
import type { RubricBody } from '../rubrics/model.ts'
import { notifySubmissionReceived } from '../notifications/submitted.ts'
import type { StoredFileMeta } from '../../storage/download.ts'
import type { FileStorage } from '../../storage/storage.ts'
import type { UploadedFile } from '../../storage/upload.ts'
import { cleanUploads, fileAt, filesOf, insertFiles, storedMeta, toFile, type FileRow } from '../../storage/submission-files.ts'
import type { ExperimentCreate, ExperimentGradeBody, ExperimentPatch } from './model.ts'
import { isLate, remainingSeconds } from '../../lib/due.ts'
import * as q from './queries.ts'
import { linkOf, type GradedParams } from '../notifications/types.ts'

// The one place rows become API objects.
export const toExperiment = (r: q.ExperimentRow) => ({
  id: r.id,
  courseId: r.course_id,
  title: r.title,
  description: r.description,
  dueAt: iso(r.due_at)!,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at),
  gradeRelease: r.grade_release,
  rubric: r.rubric,
})

export const submissionFileUrl = (id: string) => `/api/v1/submissions/${id}/file`

export const submissionFilesUrl = (id: string, position: number) => (position === 1 ? submissionFileUrl(id) : `/api/v1/submissions/${id}/file?position=${position}`)

/**
 * Row (+ its further files, when loaded) → API object; `files` lists the first file and the rest.
 * A held grade (MANUAL, before the release) is the teacher's only, shown with `released: false`;
 * the student sees the submission as it was before it (learning/rows.ts toSubmission).
 */
export const toSubmission = (r: q.SubmissionRow, more: FileRow[] = [], viewer: 'TEACHER' | 'STUDENT' = 'TEACHER') => {
  const held = viewer === 'TEACHER' && r.held_at !== null
  return {
    id: r.id,
    experimentId: r.experiment_id,
    student: { id: r.student_id, username: r.student_username, displayName: r.student_display_name },
    fileName: r.file_name,
    fileSize: Number(r.file_size),
    contentType: r.content_type,
    note: r.note,
    late: r.late,
    submittedAt: iso(r.submitted_at)!,
    score: num(held ? r.held_score : r.score),
    feedback: held ? r.held_feedback : r.feedback,
    gradedAt: iso(held ? r.held_at : r.graded_at),
    rubricChoices: (held ? (r.held_rubric ?? r.rubric_choices) : r.rubric_choices) ?? [],
    ...(viewer === 'TEACHER' ? { released: r.held_at === null } : {}),
    fileUrl: submissionFileUrl(r.id),
    files: [
      toFile({ position: 1, file_name: r.file_name, file_size: r.file_size, content_type: r.content_type }, submissionFilesUrl(r.id, 1)),
      ...more.map((f) => toFile(f, submissionFilesUrl(r.id, f.position))),
    ],
  }
}

/** Rows → API objects with every file: one query for the files of all of them. */
export async function withFiles(sql: Sql, rows: q.SubmissionRow[], viewer: 'TEACHER' | 'STUDENT' = 'TEACHER') {
  const more = await filesOf(sql, 'experiment', rows.map((r) => r.id))
  return rows.map((r) => toSubmission(r, more.get(r.id), viewer))
}

const experimentNotFound = () => notFound('EXPERIMENT_NOT_FOUND', 'This experiment does not exist in this course.')
const submissionNotFound = () => notFound('SUBMISSION_NOT_FOUND', 'This submission does not exist.')

export async function createExperiment(sql: Sql, courseId: string, body: ExperimentCreate, now: Date) {
  const row = await q.insertExperiment(sql, {
    id: newId(),
    courseId,
    title: body.title,
    description: sanitizeRichText(body.description),
    dueAt: body.dueAt,
    now,
    gradeRelease: body.gradeRelease ?? 'AUTOMATIC',
  })
  return toExperiment(row)
}

export async function updateExperiment(sql: Sql, courseId: string, experimentId: string, body: ExperimentPatch, now: Date) {
  const patch: { title?: string; description?: string; due_at?: Date; grade_release?: 'AUTOMATIC' | 'MANUAL' } = {}
  if (body.gradeRelease !== undefined) patch.grade_release = body.gradeRelease
  if (body.title !== undefined) patch.title = body.title
  if (body.description !== undefined) patch.description = sanitizeRichText(body.description)
  if (body.dueAt !== undefined) patch.due_at = body.dueAt
  const row = await sql.begin(async (tx) => {
    if (body.gradeRelease === 'AUTOMATIC') {
      const before = await q.lockExperiment(tx, courseId, experimentId)
      // Grades held for release stay held: switching to AUTOMATIC first needs the release (issue 54).
      if (before?.grade_release === 'MANUAL' && (await q.hasHeld(tx, experimentId))) throw gradesHeld()
    }
    const updated = await q.updateExperiment(tx, courseId, experimentId, patch, now)
    if (updated && patch.due_at) await q.relabelLate(tx, experimentId, updated.due_at)
    return updated
  })
  if (!row) throw experimentNotFound()
  return toExperiment(row)
}

/**
 * Deletes an experiment that has no submissions, in one transaction: the row is locked first
 * (see lockExperimentForDelete), so a concurrent submission either committed before the check
 * (409 here) or fails on its foreign key afterwards (404 there); never accepted, then lost.
 */
export async function deleteExperiment(sql: Sql, courseId: string, experimentId: string) {
  return sql.begin(async (tx) => {
    const state = await q.lockExperimentForDelete(tx, courseId, experimentId)
    if (!state) throw experimentNotFound()
    if (state.has_submissions) {
      throw conflict('HAS_SUBMISSIONS', 'Students have already submitted to this experiment, so it cannot be deleted. Edit it instead.')
    }
    if (!(await q.deleteExperiment(tx, courseId, experimentId))) throw experimentNotFound()
    return { id: experimentId }
  })
}

export async function listExperiments(sql: Sql, courseId: string) {
  return (await q.listExperiments(sql, courseId)).map(toExperiment)
}

/** Detail for a member; a student also gets their newest submission (same query). */
export async function getExperiment(sql: Sql, course: CourseAccess, experimentId: string, userId: string) {
  const row = await q.findExperimentWithLatest(sql, course.id, experimentId, userId)
  if (!row) throw experimentNotFound()
  const { latest, ...experiment } = row
  const detail = toExperiment(experiment)
  return course.as === 'STUDENT' ? { ...detail, mySubmission: latest ? (await withFiles(sql, [latest], 'STUDENT'))[0]! : null } : detail
}

/** Loads an experiment reached by its own id and checks the caller's access to its course. */
export async function experimentAccess(sql: Sql, experimentId: string, user: CurrentUser, intent: CourseIntent = {}) {
  const experiment = await q.findExperiment(sql, experimentId)
  if (!experiment) throw notFound('EXPERIMENT_NOT_FOUND', 'This experiment does not exist.')
  const course = await courseAccess(sql, experiment.course_id, user, 'member', intent)
  return { experiment, course }
}

/** Only students of the course submit; checked before the upload is read. */
export async function experimentForSubmission(sql: Sql, experimentId: string, user: CurrentUser) {
  const access = await experimentAccess(sql, experimentId, user, { write: true })
  if (access.course.as !== 'STUDENT') throw forbidden('Only students of this course can submit to an experiment.')
  return access
}

export async function submit(
  sql: Sql,
  storage: FileStorage,
  args: {
    experiment: { id: string; course_id: string; title: string; due_at: Date }
    course: CourseAccess
    student: CurrentUser
    /** One or more files (the single-file form sends one). */
    files: UploadedFile[]
    note: string | undefined
    maxUploadBytes: number
    now: Date
    channels: readonly Channel[]
  },
) {
  if (!args.files.length) throw invalidField('file', 'a file is required')
  const [first, ...rest] = cleanUploads(args.files, args.files.length > 1 ? 'files' : 'file', args.maxUploadBytes)
  try {
    const id = newId()
    const row = await sql.begin(async (tx) => {
      const inserted = await q.insertSubmission(tx as unknown as Sql, {
        id,
        experimentId: args.experiment.id,
        courseId: args.experiment.course_id,
        studentId: args.student.id,
        storageKey: first!.key,
        fileName: first!.name,
        fileSize: first!.size,
        contentType: first!.type,
        note: args.note?.trim() || null,
        late: isLate(args.now, args.experiment.due_at),
        now: args.now,
      })
      await insertFiles(tx, 'experiment', id, rest, 2)
      // The report and its notification to the course's teachers commit together (issue 29.10).
      const submission = { id, studentId: args.student.id, studentName: inserted.student_display_name, late: inserted.late }
      await notifySubmissionReceived(tx, { course: args.course, subject: 'EXPERIMENT', item: args.experiment, submission }, args.now, args.channels)
      return inserted
    })
    return (await withFiles(sql, [row], 'STUDENT'))[0]!
  } catch (e) {
    // No row points at the files: do not keep them.
    await Promise.allSettled(args.files.map((f) => storage.remove(f.key)))
    // The experiment's delete committed first (it locked the row; see deleteExperiment).
    if (e instanceof postgres.PostgresError && e.code === '23503' && e.constraint_name === 'experiment_submissions_experiment_id_fkey') {
      throw notFound('EXPERIMENT_NOT_FOUND', 'This experiment does not exist.')
    }
    throw e
  }
}

export async function listSubmissions(
  sql: Sql,
  experimentId: string,
  user: CurrentUser,
  pageQuery: { limit: number; offset: number },
) {
  const { course } = await experimentAccess(sql, experimentId, user)
  const studentId = course.as === 'TEACHER' ? null : user.id
  const [rows, total] = await Promise.all([
    q.listSubmissions(sql, experimentId, studentId, pageQuery.limit, pageQuery.offset),
    q.countSubmissions(sql, experimentId, studentId),
  ])
  return { items: await withFiles(sql, rows, course.as), total }
}

export async function latestSubmission(sql: Sql, experimentId: string, user: CurrentUser) {
  const { course } = await experimentAccess(sql, experimentId, user)
  const row = await q.latestSubmission(sql, experimentId, user.id)
  return row ? (await withFiles(sql, [row], course.as))[0]! : null
}

/** The file of a submission: for its student and the course's teacher only. */
export async function submissionFile(sql: Sql, submissionId: string, user: CurrentUser): Promise<StoredFileMeta> {
  const s = await q.findSubmissionContext(sql, submissionId)
  if (!s) throw submissionNotFound()
  if (s.student_id !== user.id) await courseAccess(sql, s.course_id, user, 'teacher')
  return { key: s.storage_key, fileName: s.file_name, size: Number(s.file_size), contentType: s.content_type }
}

/** File `position` of a submission (1 is the first file): for its student and the course's teacher only. */
export async function submissionFileAt(sql: Sql, submissionId: string, position: number, user: CurrentUser): Promise<StoredFileMeta> {
  if (position === 1) return submissionFile(sql, submissionId, user)
  const s = await q.findSubmissionContext(sql, submissionId)
  if (!s) throw submissionNotFound()
  if (s.student_id !== user.id) await courseAccess(sql, s.course_id, user, 'teacher')
  const f = await fileAt(sql, 'experiment', submissionId, position)
  if (!f) throw notFound('NOT_FOUND', 'This submission has no file at that position.')
  return storedMeta(f)
}

export async function grade(sql: Sql, submissionId: string, teacher: CurrentUser, body: ExperimentGradeBody, now: Date, channels: readonly Channel[]) {
  const s = await q.findSubmissionContext(sql, submissionId)
  if (!s) throw submissionNotFound()
  await courseAccess(sql, s.course_id, teacher, 'teacher', { write: true })
  const feedback = feedbackChange(body.feedback)
  let score = body.score
  if (body.rubric !== undefined) {
    if (!s.rubric) throw invalidField('rubric', 'this experiment has no rubric; give score')
    const fromRubric = rubricScore(s.rubric, body.rubric)
    score ??= fromRubric
  }
  if (score === undefined) throw invalidField('score', 'is required (or give rubric)')
  const hold = s.grade_release === 'MANUAL'
  const row = await sql.begin(async (tx) => {
    const graded = await q.gradeSubmission(tx, { id: s.id, score: score, feedback, rubric: body.rubric, graderId: teacher.id, now }, hold)
    if (!graded) throw submissionNotFound()
    // A held grade tells nobody: the release does, once per student.
    if (!hold) {
      const params: GradedParams = {
        kind: 'SUBMISSION_GRADED',
        subject: 'EXPERIMENT',
        courseId: s.course_id,
        courseTitle: null,
        title: s.experiment_title,
        score: Number(graded.score),
        fileName: graded.file_name,
      }
      await notify(tx, [graded.student_id], { actionPath: linkOf(params, { itemId: s.experiment_id }), params }, { now, channels })
    }
    return graded
  })
  return toSubmission(row)
}

/** An experiment's held grades released, each student told once (as learning/release.ts). */
export async function release(sql: Sql, experimentId: string, teacher: CurrentUser, now: Date, channels: readonly Channel[]) {
  const { experiment } = await experimentAccess(sql, experimentId, teacher, { write: true })
  await courseAccess(sql, experiment.course_id, teacher, 'teacher', { write: true })
  return sql.begin(async (tx) => {
    const params = tx`jsonb_build_object('kind', 'SUBMISSION_GRADED', 'subject', 'EXPERIMENT', 'courseId', ${experiment.course_id}::text,
                        'courseTitle', (select title from courses where id = ${experiment.course_id}), 'title', ${experiment.title}::text,
                        'score', r.score::float8, 'fileName', r.file_name)`
    const { written, extra } = await notifyEventsWith<{ released: number }>(
      tx,
      {
        ctes: tx`released as (${q.releaseHeld(tx, experimentId)}),
                 newest as (select distinct on (student_id) student_id, score, file_name from released order by student_id, submitted_at desc, id desc)`,
        source: tx`select r.student_id as user_id, ${params} as params,
                          ${linkOf({ kind: 'SUBMISSION_GRADED', subject: 'EXPERIMENT', courseId: experiment.course_id }, { itemId: experimentId })}::text as action_path,
                          null::uuid as event_id
                     from newest r`,
        summary: tx`jsonb_build_object('released', (select count(*) from released))`,
        arbitrate: 'none',
      },
      { now, channels },
    )
    return { released: Number(extra.released), notified: written }
  })
}

/** An experiment's rubric set, replaced or removed (issue 54). */
export async function setRubric(sql: Sql, courseId: string, experimentId: string, body: RubricBody, now: Date) {
  return sql.begin(async (tx) => {
    const before = await q.lockExperiment(tx, courseId, experimentId)
    if (!before) throw experimentNotFound()
    const rubric = body.rubric === null ? null : rubricValues(body.rubric, before.rubric, null)
    return toExperiment(await q.setRubric(tx, experimentId, rubric, now))
  })
}

/** The experiment deadlines of the caller's courses (homework centre), with their own state. */
export async function myExperiments(sql: Sql, userId: string, courseId: string | null, now: Date) {
  const rows = await q.listMyExperiments(sql, userId, courseId)
  return {
    items: rows.map((r) => {
      const remaining = remainingSeconds(now, r.due_at)
      // The due-time rule (src/lib/due.ts): open up to and including dueAt.
      const status = r.submitted_at ? 'SUBMITTED' : isLate(now, r.due_at) ? 'OVERDUE' : 'OPEN'
      return {
        experimentId: r.id,
        courseId: r.course_id,
        courseTitle: r.course_title,
        title: r.title,
        dueAt: iso(r.due_at)!,
        status: status as 'OPEN' | 'SUBMITTED' | 'OVERDUE',
        submittedAt: iso(r.submitted_at),
        late: r.late,
        score: num(r.score),
        remainingSeconds: remaining,
        ...(r.is_teacher ? { submittedCount: r.submitted_count ?? 0, studentCount: r.student_count ?? 0 } : {}),
      }
    }),
  }
}
