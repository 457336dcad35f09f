import { z } from 'zod'
import { idParams } from '../../http/params.ts'
import { plainText } from '../../http/text.ts'
import { DESCRIPTION_MAX, TITLE_MAX } from '../courses/model.ts'

export const MAX_SHIFT_DAYS = 3650

export const CopyCourseBody = z.object({
  title: plainText({ min: 1, max: TITLE_MAX }),
  description: plainText({ min: 0, max: DESCRIPTION_MAX, multiline: true })
    .optional()
    .meta({ description: "Omitted: the original course's description." }),
  shiftDays: z
    .number()
    .int()
    .min(-MAX_SHIFT_DAYS)
    .max(MAX_SHIFT_DAYS)
    .meta({ description: 'Days added to every homework startAt/dueAt and experiment dueAt (negative moves them earlier).' }),
})
export type CopyCourseBody = z.infer<typeof CopyCourseBody>

export const CourseExperimentParams = idParams('courseId', 'experimentId')
