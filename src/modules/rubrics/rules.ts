import { badRequest, type FieldError } from '../../http/errors.ts'
import { newId } from '../../lib/ids.ts'
import type { RubricBody } from './model.ts'

/** The stored shapes (`rubric` of learning_tasks and experiments, `rubric_choices` of sheets, sql/058). */
export interface RubricLevel {
  id: string
  title: string
  description: string
  points: number
}
export interface RubricCriterion {
  id: string
  title: string
  description: string
  questionId: string | null
  levels: RubricLevel[]
}
export interface Rubric {
  criteria: RubricCriterion[]
}
export interface RubricChoice {
  criterionId: string
  levelId: string
}

/** A short-answer question a quiz rubric may grade. */
export interface GradableQuestion {
  id: string
  type: string
  points: number
}

const invalid = (fields: FieldError[]) => badRequest(`Invalid request. ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`.slice(0, 500), fields)
const round2 = (n: number) => Math.round(n * 100) / 100
const best = (c: RubricCriterion) => Math.max(...c.levels.map((l) => l.points))

/**
 * A rubric as sent → as stored: ids kept where they name what the rubric had (so choices kept
 * with sheets keep pointing at their level), new ones given. `questions` is a quiz's questions
 * (null for homework and experiments): there every criterion grades one short-answer question and
 * a question's criteria give at most its points; elsewhere no criterion names a question and the
 * rubric's best levels add up to more than 0 (the score is a share of them). Every problem at once.
 */
export function rubricValues(body: NonNullable<RubricBody['rubric']>, existing: Rubric | null, questions: GradableQuestion[] | null): Rubric {
  const known = new Map((existing?.criteria ?? []).map((c) => [c.id, c]))
  const problems: FieldError[] = []
  const used = new Set<string>()
  const criteria = body.criteria.map((c, i) => {
    const before = c.id && known.has(c.id) && !used.has(c.id) ? known.get(c.id)! : null
    const id = before ? before.id : newId()
    used.add(id)
    const levelIds = new Set((before?.levels ?? []).map((l) => l.id))
    const usedLevels = new Set<string>()
    const levels = c.levels.map((l) => {
      const lid = l.id && levelIds.has(l.id) && !usedLevels.has(l.id) ? l.id : newId()
      usedLevels.add(lid)
      return { id: lid, title: l.title, description: l.description, points: round2(l.points) }
    })
    const questionId = c.questionId ?? null
    if (questions === null && questionId !== null) problems.push({ field: `rubric.criteria.${i}.questionId`, message: 'only a quiz rubric names questions' })
    if (questions !== null) {
      const q = questions.find((x) => x.id === questionId)
      if (!q) problems.push({ field: `rubric.criteria.${i}.questionId`, message: 'must name a SHORT_ANSWER question of this quiz' })
      else if (q.type !== 'SHORT_ANSWER') problems.push({ field: `rubric.criteria.${i}.questionId`, message: 'is a choice question; those are scored automatically' })
    }
    return { id, title: c.title, description: c.description, questionId, levels }
  })
  const rubric = { criteria }
  if (questions === null && maxPoints(rubric) <= 0) problems.push({ field: 'rubric.criteria', message: 'the best levels must give more than 0 points' })
  if (questions !== null) {
    for (const q of questions) {
      const sum = round2(criteria.filter((c) => c.questionId === q.id).reduce((a, c) => a + best(c), 0))
      if (sum > q.points) problems.push({ field: 'rubric.criteria', message: `the criteria of question ${q.id} give up to ${sum} points; the question is worth ${q.points}` })
    }
  }
  if (problems.length) throw invalid(problems)
  return rubric
}

export const maxPoints = (r: Rubric) => round2(r.criteria.reduce((a, c) => a + best(c), 0))

/**
 * The grader's choices checked against the rubric: each criterion exactly once, each level one
 * of that criterion's. Returns the chosen points per criterion, in the rubric's order.
 */
export function chosenLevels(rubric: Rubric, choices: RubricChoice[]) {
  const problems: FieldError[] = []
  const byId = new Map(rubric.criteria.map((c) => [c.id, c]))
  const picked = new Map<string, RubricLevel>()
  choices.forEach((ch, i) => {
    const c = byId.get(ch.criterionId)
    if (!c) return problems.push({ field: `rubric.${i}.criterionId`, message: 'is not a criterion of this rubric' })
    if (picked.has(c.id)) return problems.push({ field: `rubric.${i}.criterionId`, message: 'picks a level of the same criterion twice' })
    const level = c.levels.find((l) => l.id === ch.levelId)
    if (!level) return problems.push({ field: `rubric.${i}.levelId`, message: 'is not a level of this criterion' })
    picked.set(c.id, level)
  })
  const missing = rubric.criteria.filter((c) => !picked.has(c.id))
  if (missing.length) problems.push({ field: 'rubric', message: `pick a level of every criterion (${missing.map((c) => c.title).join(', ')})` })
  if (problems.length) throw invalid(problems)
  return rubric.criteria.map((c) => ({ criterion: c, level: picked.get(c.id)! }))
}

/** Homework and experiments: the chosen points as a share of the rubric's best, 0-100, two decimals. */
export function rubricScore(rubric: Rubric, choices: RubricChoice[]) {
  const chosen = chosenLevels(rubric, choices)
  const sum = chosen.reduce((a, x) => a + x.level.points, 0)
  return round2((sum / maxPoints(rubric)) * 100)
}

/** Quizzes: each short-answer question's score, the sum of its criteria's chosen points. */
export function rubricQuestionScores(rubric: Rubric, choices: RubricChoice[]) {
  const perQuestion = new Map<string, number>()
  for (const { criterion, level } of chosenLevels(rubric, choices)) {
    if (criterion.questionId) perQuestion.set(criterion.questionId, round2((perQuestion.get(criterion.questionId) ?? 0) + level.points))
  }
  return [...perQuestion].map(([questionId, score]) => ({ questionId, score }))
}
