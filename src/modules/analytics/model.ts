import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'

/* The charts' answers (issue 54): what the web app draws as SVG with the same numbers in a table beside it. */

const Bucket = z.object({
  from: z.number().meta({ description: 'Lower bound of the score range (inclusive).' }),
  to: z.number().meta({ description: 'Upper bound (exclusive; the last bucket, 90-100, includes 100).' }),
  count: z.number().int(),
})

export const ScoreDistribution = z
  .object({
    taskId: Uuid,
    title: z.string(),
    buckets: z.array(Bucket).meta({ description: "Ten buckets of ten points: students by their newest sheet's released score." }),
    graded: z.number().int().meta({ description: 'Students whose newest sheet has a released score.' }),
    ungraded: z.number().int().meta({ description: 'Students whose newest sheet has no score (yet, or held for release).' }),
    students: z.number().int(),
  })
  .meta({ id: 'ScoreDistribution' })

export const HandInTimeline = z
  .object({
    taskId: Uuid,
    title: z.string(),
    dueAt: IsoDateTime.nullable(),
    days: z
      .array(z.object({ date: z.string().meta({ description: 'YYYY-MM-DD (UTC).' }), onTime: z.number().int(), late: z.number().int() }))
      .meta({ description: 'Per day, the students who first handed in that day.' }),
    onTime: z.number().int(),
    late: z.number().int(),
    missing: z.number().int().meta({ description: 'Students with no hand-in once the due time has passed (0 before).' }),
    notYet: z.number().int().meta({ description: 'Students with no hand-in while the task is still open.' }),
    students: z.number().int(),
  })
  .meta({ id: 'HandInTimeline' })

export const QuestionCorrectness = z
  .object({
    taskId: Uuid,
    title: z.string(),
    questions: z.array(
      z.object({
        questionId: Uuid,
        position: z.number().int().meta({ description: '1-based, in the quiz order.' }),
        type: z.enum(['SINGLE_CHOICE', 'MULTIPLE_CHOICE', 'SHORT_ANSWER']),
        stem: z.string(),
        points: z.number(),
        answered: z.number().int(),
        shareCorrect: z
          .number()
          .nullable()
          .meta({ description: 'Choice: share of those who answered that got it exactly right. Short answer: points awarded ÷ points possible over the scored ones. Null when nobody answered (or none is scored). 0 to 1.' }),
      }),
    ),
  })
  .meta({ id: 'QuestionCorrectness' })

export const TotalsDistribution = z
  .object({
    buckets: z.array(Bucket).meta({ description: "Ten buckets of ten points: students by their average over graded work (the gradebook's average)." }),
    graded: z.number().int(),
    ungraded: z.number().int().meta({ description: 'Students with no released grade yet.' }),
    students: z.number().int(),
  })
  .meta({ id: 'TotalsDistribution' })
