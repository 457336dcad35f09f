import type { Sql } from '../../db/connect.ts'
import { iso, num } from '../../http/envelope.ts'
import { roundScore } from '../../lib/score.ts'
import { toCsv, type CsvValue } from './csv.ts'
import * as q from './queries.ts'
import { windowOf, type OptionalPageQuery, type RowWindow } from '../../http/pagination.ts'
import { countStudents } from '../learning/submission-queries.ts'

type ExperimentGrade = {
  experimentId: string
  title: string
  submissionId: string
  submittedAt: string
  score: number | null
  feedback: string | null
  gradedAt: string | null
}

/** The whole course (or one page of its students) in a fixed number of queries, read from one snapshot. */
async function load(sql: Sql, courseId: string, window: RowWindow) {
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    const totals = await q.studentTotals(tx, courseId, window)
    const grades = await q.newestExperimentSubmissions(tx, courseId, window ? totals.map((t) => t.user_id) : null)
    const experiments = await q.courseExperiments(tx, courseId)
    const tasks = await q.gradedTasks(tx, courseId)
    const taskScores = await q.newestTaskScores(tx, courseId, window ? totals.map((t) => t.user_id) : null)
    // The total rides on every row; only a page past the end needs counting on its own.
    const total = totals[0]?.total ?? (window && window.offset > 0 ? await countStudents(tx, courseId) : 0)
    return { totals, grades, experiments, tasks, taskScores, total }
  })
}

export type GradeColumn = { id: string; kind: 'TASK' | 'EXPERIMENT'; title: string; dueAt: string | null }

export async function overview(sql: Sql, courseId: string, paging: OptionalPageQuery = {}) {
  const { window, page, pageSize } = windowOf(paging)
  const { totals, grades, experiments, tasks, taskScores, total } = await load(sql, courseId, window)
  // Gradebook columns: homework/quizzes in course order, then experiments by due date.
  const columns: GradeColumn[] = [
    ...tasks.map((t) => ({ id: t.id, kind: 'TASK' as const, title: t.title, dueAt: iso(t.due_at) })),
    ...experiments.map((e) => ({ id: e.id, kind: 'EXPERIMENT' as const, title: e.title, dueAt: iso(e.due_at) })),
  ]
  const cells = new Map<string, Record<string, number | null>>()
  const cellsOf = (studentId: string) => {
    let c = cells.get(studentId)
    if (!c) cells.set(studentId, (c = Object.fromEntries(columns.map((col) => [col.id, null]))))
    return c
  }
  const taskColumn = new Set(tasks.map((t) => t.id))
  for (const t of taskScores) if (taskColumn.has(t.task_id)) cellsOf(t.student_id)[t.task_id] = num(t.score)
  for (const g of grades) cellsOf(g.student_id)[g.experiment_id] = num(g.score)
  const byStudent = new Map<string, ExperimentGrade[]>()
  for (const g of grades) {
    const list = byStudent.get(g.student_id) ?? []
    list.push({
      experimentId: g.experiment_id,
      title: g.title,
      submissionId: g.submission_id,
      submittedAt: iso(g.submitted_at)!,
      score: num(g.score),
      feedback: g.feedback,
      gradedAt: iso(g.graded_at),
    })
    byStudent.set(g.student_id, list)
  }
  const students = totals.map((t) => ({
    userId: t.user_id,
    username: t.username,
    displayName: t.display_name,
    submissionCount: t.submission_count,
    gradedCount: t.graded_count,
    averageScore: num(t.average_score),
    experiments: byStudent.get(t.user_id) ?? [],
    cells: cellsOf(t.user_id),
  }))
  return { columns, students, experiments, total, page, pageSize }
}

/**
 * The overview as a spreadsheet: one row per student; after the totals, one score column per
 * homework/quiz (course order), then two columns per experiment of the course (score of the
 * newest submission, and when it was submitted). A submitted but ungraded experiment has a time
 * and an empty score; not submitted, both empty. Scores are rounded by `roundScore`, the rule
 * the grade table on screen uses, so the file and the screen agree.
 */
export async function overviewCsv(sql: Sql, courseId: string) {
  const { columns, students, experiments } = await overview(sql, courseId)
  const taskColumns = columns.filter((c) => c.kind === 'TASK')
  const header: CsvValue[] = ['User ID', 'Username', 'Display name', 'Submissions', 'Graded', 'Average score']
  for (const t of taskColumns) header.push(`${t.title}: score`)
  for (const e of experiments) header.push(`${e.title}: score`, `${e.title}: submitted at`)
  const rows: CsvValue[][] = [header]
  for (const s of students) {
    const byExperiment = new Map(s.experiments.map((g) => [g.experimentId, g]))
    const row: CsvValue[] = [s.userId, s.username, s.displayName, s.submissionCount, s.gradedCount, roundScore(s.averageScore)]
    for (const t of taskColumns) row.push(roundScore(s.cells[t.id]))
    for (const e of experiments) {
      const g = byExperiment.get(e.id)
      row.push(roundScore(g?.score), g?.submittedAt)
    }
    rows.push(row)
  }
  return toCsv(rows)
}

/** `grades-<course title>-<YYYY-MM-DD>.csv`, with characters file systems dislike replaced. */
export function csvFileName(courseTitle: string, now: Date) {
  const title = courseTitle.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').trim().slice(0, 100) || 'course'
  return `grades-${title}-${now.toISOString().slice(0, 10)}.csv`
}
