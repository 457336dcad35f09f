import { z } from 'zod'
import { Uuid } from '../../http/envelope.ts'
import { plainText } from '../../http/text.ts'

/*
 * Rubrics (issue 54): criteria × levels on a homework, a quiz's short answers or an experiment.
 * The schemas shared by learning tasks and experiments (bodies and answers); the rules in rubric.ts.
 */
export const RUBRIC_LIMITS = { criteria: 20, levels: 10, maxPoints: 1_000 } as const

const Id = Uuid

export const RubricLevelInput = z.object({
  id: Id.optional().meta({ description: 'Kept when it names a level the criterion already has.' }),
  title: plainText({ min: 1, max: 200 }),
  description: plainText({ min: 0, max: 2_000, multiline: true }).default(''),
  points: z.number({ message: 'must be a number' }).min(0, 'must be 0 or more').max(RUBRIC_LIMITS.maxPoints, `must be at most ${RUBRIC_LIMITS.maxPoints}`),
})

export const RubricCriterionInput = z.object({
  id: Id.optional().meta({ description: 'Kept when it names a criterion the rubric already has.' }),
  title: plainText({ min: 1, max: 200 }),
  description: plainText({ min: 0, max: 2_000, multiline: true }).default(''),
  questionId: Id.nullable()
    .optional()
    .meta({ description: "Quizzes only (and then required): the SHORT_ANSWER question this criterion grades; its criteria's best levels add up to at most the question's points." }),
  levels: z
    .array(RubricLevelInput)
    .min(1, 'a criterion needs at least one level')
    .max(RUBRIC_LIMITS.levels, `at most ${RUBRIC_LIMITS.levels} levels`),
})

/** PUT …/rubric: the whole rubric; `null` removes it. */
export const RubricBody = z.object({
  rubric: z
    .object({
      criteria: z
        .array(RubricCriterionInput)
        .min(1, 'a rubric needs at least one criterion')
        .max(RUBRIC_LIMITS.criteria, `at most ${RUBRIC_LIMITS.criteria} criteria`),
    })
    .nullable(),
})
export type RubricBody = z.infer<typeof RubricBody>

// No schema ids: nested in tasks, experiments and their sheets, inline everywhere.
export const Rubric = z.object({
  criteria: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      description: z.string(),
      questionId: z.string().nullable(),
      levels: z.array(z.object({ id: z.string(), title: z.string(), description: z.string(), points: z.number() })),
    }),
  ),
})

export const RubricChoice = z.object({ criterionId: Id, levelId: Id })
