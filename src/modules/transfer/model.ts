import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { uploadedFile } from '../../storage/upload.ts'

export const ImportForm = z.object({
  file: uploadedFile('a file is required').meta({ description: 'A Moodle backup (.mbz) or a Common Cartridge package (.imscc, .zip).' }),
  shiftDays: z
    .string()
    .trim()
    .regex(/^-?\d{1,4}$/, 'must be a whole number of days')
    .transform(Number)
    .refine((n) => n >= -3650 && n <= 3650, 'must be between -3650 and 3650')
    .optional()
    .meta({ description: 'Moves every date of the package by this many days (-3650…3650).' }),
})

export const ImportParams = z.object({ importId: Uuid })

const Count = z.number().int()
export const ImportJob = z
  .object({
    id: Uuid,
    state: z.enum(['QUEUED', 'RUNNING', 'DONE', 'FAILED']),
    progress: z.number().int().min(0).max(100),
    fileName: z.string(),
    courseId: Uuid.nullable(),
    report: z
      .object({
        created: z.object({ units: Count, points: Count, tasks: Count, quizzes: Count, questions: Count, homework: Count, resources: Count, files: Count }),
        skipped: z.array(z.object({ kind: z.string(), title: z.string(), reason: z.string() })),
      })
      .nullable(),
    error: z.object({ code: z.number().int(), message: z.string() }).nullable(),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'CourseImport' })
