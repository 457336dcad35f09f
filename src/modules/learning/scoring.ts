import type { StoredAnswer, StoredQuestion } from './rows.ts'

const sameSet = (a: number[], b: number[]) => {
  if (a.length !== b.length) return false
  const x = [...a].sort((p, q) => p - q)
  const y = [...b].sort((p, q) => p - q)
  return x.every((v, i) => v === y[i])
}

/**
 * The questions a sheet handed in at `submittedAt` was asked: one added by a later edit (issue
 * 56.5a) was not on it, so it is neither wrong nor part of that sheet's score.
 */
export const addedAfter = (q: StoredQuestion, submittedAt: Date) => q.addedAt !== undefined && new Date(q.addedAt) > submittedAt
export const askedOn = (questions: StoredQuestion[], submittedAt: Date) => questions.filter((q) => !addedAfter(q, submittedAt))

/** A choice question counts only when the selection is exactly the answer key. */
export const isCorrect = (q: StoredQuestion, a: StoredAnswer | undefined) =>
  q.type !== 'SHORT_ANSWER' && a !== undefined && sameSet(a.selectedOptions, q.correctOptions)

/**
 * Automatic score, 0-100 with two decimals: points of exactly-right choice questions over the
 * points of all choice questions. Short-answer questions are left to the teacher and do not
 * enter this score. Null when the quiz has no choice question.
 */
export function autoScore(questions: StoredQuestion[], answers: StoredAnswer[]): number | null {
  const choice = questions.filter((q) => q.type !== 'SHORT_ANSWER')
  const total = choice.reduce((s, q) => s + q.points, 0)
  if (!choice.length || total <= 0) return null
  const byQuestion = new Map(answers.map((a) => [a.questionId, a]))
  const earned = choice.reduce((s, q) => s + (isCorrect(q, byQuestion.get(q.id)) ? q.points : 0), 0)
  return Math.round((earned / total) * 10_000) / 100
}

/**
 * The sheet's score from points, 0-100 with two decimals: (choice points earned + short-answer
 * points awarded) ÷ total points × 100. Null while a short-answer question has no score yet
 * (or when the task has no points at all).
 */
export function sheetScore(
  questions: StoredQuestion[],
  answers: StoredAnswer[],
  questionScores: { questionId: string; score: number }[],
): number | null {
  const total = questions.reduce((s, q) => s + q.points, 0)
  if (total <= 0) return null
  const byQuestion = new Map(answers.map((a) => [a.questionId, a]))
  const awarded = new Map(questionScores.map((s) => [s.questionId, s.score]))
  let earned = 0
  for (const q of questions) {
    if (q.type === 'SHORT_ANSWER') {
      const given = awarded.get(q.id)
      if (given === undefined) return null
      earned += given
    } else if (isCorrect(q, byQuestion.get(q.id))) earned += q.points
  }
  return Math.round((earned / total) * 10_000) / 100
}
