import type { TxSql } from '../../db/connect.ts'
import type { QuestionScore, StoredAnswer, StoredQuestion } from './rows.ts'
import { askedOn, autoScore, sheetScore } from './scoring.ts'

/**
 * What a quiz edit does to the sheets already handed in (issue 29.1, Canvas' "regrade"):
 * question ids survive edits, so answers stay attached; when an edit changes what a sheet is
 * worth (an answer key, points, a question's type, questions added or removed), every sheet
 * of the task is rescored at once:
 * - `autoScore` is recomputed from the new key;
 * - a score the service computed (automatically, or from the teacher's per-question scores)
 *   is recomputed from the new questions;
 * - a score the teacher typed (an override) is kept;
 * - a sheet whose stored per-question score is now above that question's points keeps its
 *   score and counts as `needsReview` (grading it again names the question, issue 27.6).
 */
export interface RegradeSummary {
  sheets: number
  rescored: number
  needsReview: number
}

const keyOf = (qs: StoredQuestion[]) =>
  JSON.stringify(qs.map((q) => [q.id, q.type, q.points, [...q.correctOptions].sort((a, b) => a - b)]))

/** Did the edit change what any sheet is worth? (Stems, options text and titles do not.) */
export const gradingChanged = (before: StoredQuestion[], after: StoredQuestion[]) => keyOf(before) !== keyOf(after)

/** Per-question scores above their question's current points (the ones a grading must refuse). */
export function staleScores(questions: StoredQuestion[], scores: QuestionScore[]) {
  const byId = new Map(questions.map((q) => [q.id, q]))
  return scores.flatMap((s) => {
    const q = byId.get(s.questionId)
    return q && s.score > q.points ? [{ questionId: s.questionId, score: s.score, points: q.points }] : []
  })
}

interface SheetRow {
  id: string
  answers: StoredAnswer[] | null
  question_scores: QuestionScore[] | null
  auto_score: string | number | null
  score: string | number | null
  status: 'SUBMITTED' | 'GRADED'
  graded_by: string | null
  submitted_at: Date
}

const same = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) < 0.005)
const n = (v: string | number | null) => (v === null ? null : Number(v))

/** Rescores every sheet of the task (locked) in one read and one bulk write. */
export async function regradeTask(tx: TxSql, taskId: string, before: StoredQuestion[], after: StoredQuestion[]): Promise<RegradeSummary> {
  const sheets = await tx<SheetRow[]>`
    select id, answers, question_scores, auto_score, score, status, graded_by, submitted_at
      from learning_submissions where task_id = ${taskId}
       for update`
  const changes: [string, string | null, string | null][] = []
  let rescored = 0
  let needsReview = 0
  for (const s of sheets) {
    // Each sheet is scored on the questions it was asked: one added since is not counted wrong.
    const askedBefore = askedOn(before, s.submitted_at)
    const asked = askedOn(after, s.submitted_at)
    const onlyChoice = !asked.some((q) => q.type === 'SHORT_ANSWER')
    const answers = s.answers ?? []
    const scores = s.question_scores ?? []
    const auto = autoScore(asked, answers)
    let score = n(s.score)
    if (s.status === 'GRADED') {
      const computed = s.graded_by === null || same(score, sheetScore(askedBefore, answers, scores))
      if (staleScores(after, scores).length) needsReview++
      else if (computed) {
        const next = s.graded_by === null && onlyChoice ? auto : sheetScore(asked, answers, scores)
        if (next !== null && !same(next, score)) {
          score = next
          rescored++
        }
      }
    }
    if (!same(auto, n(s.auto_score)) || !same(score, n(s.score))) {
      changes.push([s.id, auto === null ? null : String(auto), score === null ? null : String(score)])
    }
  }
  if (changes.length) {
    await tx`
      update learning_submissions s
         set auto_score = v.auto::numeric, score = v.score::numeric
        from (values ${tx(changes as any)}) as v (id, auto, score)
       where s.id = v.id::uuid`
  }
  return { sheets: sheets.length, rescored, needsReview }
}

/** How many sheets answer each of the given questions (the ones an edit would remove). */
export async function answeredQuestions(tx: TxSql, taskId: string, questionIds: string[]) {
  if (!questionIds.length) return new Map<string, number>()
  const rows = await tx<{ question_id: string; answers: number }[]>`
    select a ->> 'questionId' as question_id, count(*)::int as answers
      from learning_submissions s, jsonb_array_elements(coalesce(s.answers, '[]'::jsonb)) a
     where s.task_id = ${taskId} and a ->> 'questionId' = any(${questionIds}::text[])
     group by 1`
  return new Map(rows.map((r) => [r.question_id, r.answers]))
}
