import { z } from 'zod'
import { sanitizeRichText } from './richtext.ts'

export const FEEDBACK_MAX = 20_000

/** The body of both grading routes (learning submissions and experiment submissions). */
export const GradeBody = z.object({
  score: z.number({ message: 'must be a number from 0 to 100' }).min(0, 'must be from 0 to 100').max(100, 'must be from 0 to 100'),
  feedback: z
    .string()
    .max(FEEDBACK_MAX, `must be at most ${FEEDBACK_MAX.toLocaleString('en')} characters`)
    .nullable()
    .optional()
    .meta({ description: 'Rich text; sanitised on write. Omit to keep the current feedback, null to clear it.' }),
})
export type GradeBody = z.infer<typeof GradeBody>

/**
 * What grading does to the stored feedback: `undefined` keeps it, `null` clears it (as does
 * feedback that is empty once sanitised), anything else is stored sanitised.
 */
export function feedbackChange(feedback: string | null | undefined): string | null | undefined {
  if (feedback === undefined) return undefined
  return feedback === null ? null : sanitizeRichText(feedback) || null
}
