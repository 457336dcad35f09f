import { iso, num } from '../../http/envelope.ts'
import { addedAfter, isCorrect } from './scoring.ts'
import { toFile, type FileRow } from '../../storage/submission-files.ts'
import type { MaterialType, PublishState, QuestionType, TaskKind, TaskType } from './model.ts'

/**
 * Row shapes of the learning tables and the ONE place they become API objects
 * (snake_case rows → camelCase JSON, timestamps via `iso`, numerics via `num`).
 * What a viewer may see (the answer key) is decided here too.
 */

export type Viewer = 'TEACHER' | 'STUDENT'

export interface UnitRow {
  id: string
  course_id: string
  title: string
  description: string
  sort_order: number
}

export interface PointRow {
  id: string
  unit_id: string
  course_id: string
  title: string
  description: string
  sort_order: number
}

/** A question as stored in `learning_tasks.questions`. */
export interface StoredQuestion {
  id: string
  type: QuestionType
  stem: string
  options: string[]
  correctOptions: number[]
  points: number
  /** Set when an edit added the question to a task that already existed (ISO time); sheets handed in before it were not asked it. */
  addedAt?: string
}

/** When students see a task's grades (sql/058): at once, or when the teacher releases them. */
export type GradeRelease = 'AUTOMATIC' | 'MANUAL'

export type { Rubric, RubricChoice, RubricCriterion, RubricLevel } from '../rubrics/rules.ts'
import type { Rubric, RubricChoice } from '../rubrics/rules.ts'

export interface TaskRow {
  id: string
  point_id: string
  course_id: string
  title: string
  task_kind: TaskKind
  task_type: TaskType
  material_type: MaterialType | null
  content: string
  url: string | null
  resource_id: string | null
  questions: StoredQuestion[]
  start_at: Date | null
  due_at: Date | null
  notify_on_start: boolean
  notify_before_due_24h: boolean
  notify_on_due: boolean
  sort_order: number
  created_at: Date
  publish_state: PublishState
  publish_at: Date | null
  published_at: Date | null
  grade_release: GradeRelease
  rubric: Rubric | null
  lti_tool_id: string | null
  lti_target_link_uri: string | null
  lti_custom: Record<string, string> | null
}

export interface StoredAnswer {
  questionId: string
  selectedOptions: number[]
  text: string | null
}

/** Points a teacher awarded to one short-answer question (`learning_submissions.question_scores`). */
export interface QuestionScore {
  questionId: string
  score: number
}

export interface SubmissionRow {
  id: string
  task_id: string
  course_id: string
  student_id: string
  username: string
  display_name: string
  content: string | null
  answers: StoredAnswer[] | null
  auto_score: string | null
  score: string | null
  question_scores: QuestionScore[] | null
  feedback: string | null
  status: 'SUBMITTED' | 'GRADED'
  late: boolean
  submitted_at: Date
  graded_at: Date | null
  /** A grade waiting for the teacher's release (sql/058): never shown to the student. */
  held_score: string | null
  held_question_scores: QuestionScore[] | null
  held_feedback: string | null
  held_rubric: RubricChoice[] | null
  held_at: Date | null
  rubric_choices: RubricChoice[] | null
}

export interface OverviewRow {
  user_id: string
  username: string
  display_name: string
  total_tasks: number
  submitted_tasks: number
  graded_tasks: number
  average_score: string | null
  /** Rows of the whole (unpaged) list. */
  total: number
}

export const toUnit = (r: UnitRow) => ({
  id: r.id,
  courseId: r.course_id,
  title: r.title,
  description: r.description,
  sortOrder: r.sort_order,
})

export const toPoint = (r: PointRow) => ({
  id: r.id,
  unitId: r.unit_id,
  title: r.title,
  description: r.description,
  sortOrder: r.sort_order,
})

/** Students get the questions without `correctOptions`; the course teacher gets everything. */
const toQuestion = (q: StoredQuestion, viewer: Viewer) => ({
  id: q.id,
  type: q.type,
  stem: q.stem,
  options: q.options,
  ...(viewer === 'TEACHER' ? { correctOptions: q.correctOptions } : {}),
  points: q.points,
  ...(q.addedAt ? { addedAt: q.addedAt } : {}),
})

export const toTask = (r: TaskRow, viewer: Viewer) => ({
  id: r.id,
  pointId: r.point_id,
  courseId: r.course_id,
  title: r.title,
  taskKind: r.task_kind,
  taskType: r.task_type,
  materialType: r.material_type,
  content: r.content,
  url: r.url,
  resourceId: r.resource_id,
  questions: r.questions.map((q) => toQuestion(q, viewer)),
  startAt: iso(r.start_at),
  dueAt: iso(r.due_at),
  notifyOnStart: r.notify_on_start,
  notifyBeforeDue24h: r.notify_before_due_24h,
  notifyOnDue: r.notify_on_due,
  sortOrder: r.sort_order,
  createdAt: iso(r.created_at)!,
  state: r.publish_state,
  publishAt: iso(r.publish_at),
  publishedAt: iso(r.published_at),
  gradeRelease: r.grade_release,
  rubric: r.rubric,
  lti: r.task_type === 'LTI' ? { toolId: r.lti_tool_id, targetLinkUri: r.lti_target_link_uri, custom: r.lti_custom ?? {} } : null,
})

/**
 * What each question of a graded quiz sheet earned (issue 29.10: students saw only the total):
 * a choice question all its points or none, a short answer the teacher's points (null while the
 * teacher gave only an overall score). The answer key itself stays with the teacher.
 */
export function questionResults(questions: StoredQuestion[], answers: StoredAnswer[], scores: QuestionScore[], submittedAt: Date) {
  const byQuestion = new Map(answers.map((a) => [a.questionId, a]))
  const awarded = new Map(scores.map((s) => [s.questionId, s.score]))
  return questions.map((q) => {
    const added = addedAfter(q, submittedAt)
    return {
      questionId: q.id,
      points: q.points,
      // A score given before the question's points were lowered (and not rescored yet) shows as at most its points (issue 48).
      earned: added ? null : q.type === 'SHORT_ANSWER' ? capped(awarded.get(q.id), q.points) : isCorrect(q, byQuestion.get(q.id)) ? q.points : 0,
      addedAfterSubmission: added,
    }
  })
}

const capped = (score: number | undefined, points: number) => (score === undefined ? null : Math.min(score, points))

/**
 * The per-question scores as a student sees them: never above the question's points now (the
 * teacher sees what is stored, so that the grading's 400 naming a stale score can be acted on).
 */
export function studentQuestionScores(questions: StoredQuestion[], scores: QuestionScore[]) {
  const points = new Map(questions.map((q) => [q.id, q.points]))
  return scores.map((s) => (points.has(s.questionId) ? { ...s, score: Math.min(s.score, points.get(s.questionId)!) } : s))
}

/** Download path of file `position` of a learning submission (1, the first, needs no query). */
export const learningFileUrl = (courseId: string, submissionId: string, position: number) =>
  `/api/v1/courses/${courseId}/learning/submissions/${submissionId}/file${position === 1 ? '' : `?position=${position}`}`

/**
 * A sheet as the API shows it: with the task's `questions`, a graded quiz sheet carries its
 * per-question results; with its `files` (when loaded), their download links.
 *
 * A held grade (a MANUAL task before its release, sql/058) is the teacher's only: the teacher
 * sees it as the sheet's grade with `released: false`; the student sees the sheet as it was
 * before (SUBMITTED, no score, no feedback), and on a MANUAL task no autoScore either until a
 * grade of the sheet was released.
 */
export const toSubmission = (
  r: SubmissionRow,
  questions: StoredQuestion[] = [],
  files: FileRow[] = [],
  viewer: Viewer = 'TEACHER',
  manual = false,
) => {
  const held = viewer === 'TEACHER' && r.held_at !== null
  const status = held ? 'GRADED' : r.status
  const scores = held ? (r.held_question_scores ?? r.question_scores ?? []) : (r.question_scores ?? [])
  return {
    id: r.id,
    taskId: r.task_id,
    courseId: r.course_id,
    student: { id: r.student_id, username: r.username, displayName: r.display_name },
    content: r.content,
    answers: r.answers,
    autoScore: viewer === 'STUDENT' && manual && r.status !== 'GRADED' ? null : num(r.auto_score),
    score: num(held ? r.held_score : r.score),
    questionScores: viewer === 'STUDENT' ? studentQuestionScores(questions, scores) : scores,
    questionResults: status === 'GRADED' && r.answers ? questionResults(questions, r.answers, scores, r.submitted_at) : [],
    feedback: held ? r.held_feedback : r.feedback,
    rubricChoices: (held ? (r.held_rubric ?? r.rubric_choices) : r.rubric_choices) ?? [],
    status,
    ...(viewer === 'TEACHER' ? { released: r.held_at === null } : {}),
    late: r.late,
    submittedAt: iso(r.submitted_at)!,
    gradedAt: iso(held ? r.held_at : r.graded_at),
    files: files.map((f) => toFile(f, learningFileUrl(r.course_id, r.id, f.position))),
  }
}

export const toOverviewRow = (r: OverviewRow) => ({
  userId: r.user_id,
  username: r.username,
  displayName: r.display_name,
  totalTasks: r.total_tasks,
  submittedTasks: r.submitted_tasks,
  gradedTasks: r.graded_tasks,
  averageScore: num(r.average_score),
})
