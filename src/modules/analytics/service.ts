import type { Sql } from '../../db/connect.ts'
import { studentCount } from '../../db/student-range.ts'
import { iso } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import { isLate } from '../../lib/due.ts'
import { findTask } from '../learning/structure-queries.ts'
import { takesAnswers } from '../learning/submission-service.ts'
import * as q from './queries.ts'

const taskNotFound = () => notFound('TASK_NOT_FOUND', 'This learning task does not exist in this course.')

/** Ten buckets of ten points from (bucket, count) rows. */
function buckets(rows: { bucket: number | null; n: number }[]) {
  const counts = Array.from({ length: 10 }, () => 0)
  for (const r of rows) if (r.bucket !== null) counts[r.bucket] = (counts[r.bucket] ?? 0) + r.n
  return counts.map((count, i) => ({ from: i * 10, to: i * 10 + 10, count }))
}

/** A task of the course that takes answers (material has no scores to chart). */
async function gradedTask(sql: Sql, courseId: string, taskId: string) {
  const task = await findTask(sql, courseId, taskId)
  if (!task || !takesAnswers(task)) throw taskNotFound()
  return task
}

export async function scoreDistribution(sql: Sql, courseId: string, taskId: string) {
  const task = await gradedTask(sql, courseId, taskId)
  const [rows, students] = await Promise.all([q.scoreBuckets(sql, courseId, taskId), studentCount(sql, courseId)])
  return {
    taskId,
    title: task.title,
    buckets: buckets(rows),
    graded: rows.filter((r) => r.bucket !== null).reduce((a, r) => a + r.n, 0),
    ungraded: rows.find((r) => r.bucket === null)?.n ?? 0,
    students,
  }
}

export async function handInTimeline(sql: Sql, courseId: string, taskId: string, now: Date) {
  const task = await gradedTask(sql, courseId, taskId)
  const [days, students] = await Promise.all([q.handInDays(sql, courseId, taskId, task.due_at), studentCount(sql, courseId)])
  const onTime = days.reduce((a, d) => a + d.on_time, 0)
  const late = days.reduce((a, d) => a + d.late, 0)
  const without = Math.max(0, students - onTime - late)
  const past = task.due_at !== null && isLate(now, task.due_at)
  return {
    taskId,
    title: task.title,
    dueAt: iso(task.due_at),
    days: days.map((d) => ({ date: d.day, onTime: d.on_time, late: d.late })),
    onTime,
    late,
    missing: past ? without : 0,
    notYet: past ? 0 : without,
    students,
  }
}

export async function questionCorrectness(sql: Sql, courseId: string, taskId: string) {
  const task = await gradedTask(sql, courseId, taskId)
  const questions = task.questions.map((qu) => ({ id: qu.id, type: qu.type, correct: [...qu.correctOptions].sort((a, b) => a - b), points: qu.points }))
  const tallies = questions.length ? await q.questionTallies(sql, courseId, taskId, questions) : []
  const byId = new Map(tallies.map((t) => [t.question_id, t]))
  return {
    taskId,
    title: task.title,
    questions: task.questions.map((qu, i) => {
      const t = byId.get(qu.id)
      const answered = t?.answered ?? 0
      const share =
        qu.type === 'SHORT_ANSWER'
          ? t && t.scored > 0 ? Number(t.awarded) / (t.scored * qu.points) : null
          : answered > 0 ? t!.correct / answered : null
      return { questionId: qu.id, position: i + 1, type: qu.type, stem: qu.stem, points: qu.points, answered, shareCorrect: share === null ? null : Math.round(share * 1000) / 1000 }
    }),
  }
}

export async function totalsDistribution(sql: Sql, courseId: string) {
  const [rows, students] = await Promise.all([q.totalBuckets(sql, courseId), studentCount(sql, courseId)])
  const graded = rows.reduce((a, r) => a + r.n, 0)
  return { buckets: buckets(rows), graded, ungraded: Math.max(0, students - graded), students }
}
