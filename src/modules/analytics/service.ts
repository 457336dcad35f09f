import type { Sql, TxSql } from '../../db/connect.ts'
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
async function gradedTask(sql: TxSql, courseId: string, taskId: string) {
  const task = await findTask(sql, courseId, taskId)
  if (!task || !takesAnswers(task)) throw taskNotFound()
  return task
}

/** One snapshot for the version and the data it was read with (as the grade overview, src/modules/grades/service.ts). */
const SNAPSHOT = 'isolation level repeatable read read only'

/**
 * A chart's answer from `analytics_chart_cache` (sql/060) when it was computed at the course's
 * current gradebook version (sql/030), which every input of a chart raises; `build` runs
 * otherwise, in the snapshot the version was read in, and its answer is kept for that version.
 * A hit is one keyed read however large the course. `sql` may be the read replica
 * (src/db/replica.ts); the answer is kept through `store`, the primary (a replica is read-only).
 */
export async function cachedChart<T>(sql: Sql, courseId: string, chart: string, subject: string, build: (tx: TxSql) => Promise<T>, store: Sql = sql): Promise<T> {
  const got = await sql.begin(SNAPSHOT, async (tx) => {
    const [row] = await tx<{ version: string; data: T | null }[]>`
      select v.version::text as version, c.data
        from (select coalesce(sum(g.version), 0) as version from gradebook_versions g where g.course_id = ${courseId}) v
        left join analytics_chart_cache c on c.course_id = ${courseId} and c.chart = ${chart} and c.subject = ${subject} and c.version = v.version`
    if (row!.data !== null) return { data: row!.data, version: null }
    return { data: await build(tx), version: row!.version }
  })
  // Kept outside the read-only snapshot; only forwards, so a slower reader of an older version
  // does not replace a newer entry. A course deleted meanwhile keeps nothing.
  if (got.version !== null)
    await store`
      insert into analytics_chart_cache as c (course_id, chart, subject, version, data)
      select ${courseId}, ${chart}, ${subject}, ${got.version}::bigint, ${store.json(got.data as any)}
       where exists (select 1 from courses k where k.id = ${courseId})
      on conflict (course_id, chart, subject) do update set version = excluded.version, data = excluded.data
       where c.version < excluded.version`
  return got.data
}

export function scoreDistribution(sql: Sql, courseId: string, taskId: string, store: Sql = sql) {
  return cachedChart(sql, courseId, 'scores', taskId, (tx) => computeScoreDistribution(tx, courseId, taskId), store)
}

/** The score distribution straight from the sheets (what the cache keeps). */
export async function computeScoreDistribution(sql: TxSql, courseId: string, taskId: string) {
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

export async function handInTimeline(sql: Sql, courseId: string, taskId: string, now: Date, store: Sql = sql) {
  // Cached without `now`: whether the students without a hand-in are missing or not yet is
  // decided here, at each read (a due time passes without any write).
  const t = await cachedChart(sql, courseId, 'timeline', taskId, (tx) => computeHandIns(tx, courseId, taskId), store)
  const without = Math.max(0, t.students - t.onTime - t.late)
  const past = t.dueAt !== null && isLate(now, new Date(t.dueAt))
  return { ...t, missing: past ? without : 0, notYet: past ? 0 : without }
}

/** The timeline's hand-ins straight from the sheets (what the cache keeps). */
export async function computeHandIns(sql: TxSql, courseId: string, taskId: string) {
  const task = await gradedTask(sql, courseId, taskId)
  const [days, students] = await Promise.all([q.handInDays(sql, courseId, taskId, task.due_at), studentCount(sql, courseId)])
  return {
    taskId,
    title: task.title,
    dueAt: iso(task.due_at),
    days: days.map((d) => ({ date: d.day, onTime: d.on_time, late: d.late })),
    onTime: days.reduce((a, d) => a + d.on_time, 0),
    late: days.reduce((a, d) => a + d.late, 0),
    students,
  }
}

export function questionCorrectness(sql: Sql, courseId: string, taskId: string, store: Sql = sql) {
  return cachedChart(sql, courseId, 'questions', taskId, (tx) => computeQuestionCorrectness(tx, courseId, taskId), store)
}

/** The per-question shares straight from the sheets (what the cache keeps). */
export async function computeQuestionCorrectness(sql: TxSql, courseId: string, taskId: string) {
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

export function totalsDistribution(sql: Sql, courseId: string, store: Sql = sql) {
  return cachedChart(sql, courseId, 'totals', courseId, (tx) => computeTotalsDistribution(tx, courseId), store)
}

/** The totals' distribution straight from grade_totals (what the cache keeps). */
export async function computeTotalsDistribution(sql: TxSql, courseId: string) {
  const [rows, students] = await Promise.all([q.totalBuckets(sql, courseId), studentCount(sql, courseId)])
  const graded = rows.reduce((a, r) => a + r.n, 0)
  return { buckets: buckets(rows), graded, ungraded: Math.max(0, students - graded), students }
}
