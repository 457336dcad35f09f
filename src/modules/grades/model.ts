import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { pageFields } from '../../http/pagination.ts'

export const ExperimentGrade = z
  .object({
    experimentId: Uuid,
    title: z.string(),
    submissionId: Uuid,
    submittedAt: IsoDateTime,
    score: z.number().nullable(),
    feedback: z.string().nullable(),
    gradedAt: IsoDateTime.nullable(),
  })
  .meta({ id: 'ExperimentGrade' })

export const StudentGrades = z
  .object({
    userId: Uuid,
    username: z.string(),
    displayName: z.string(),
    submissionCount: z.number().int().meta({ description: 'Learning tasks and experiments with a submission (the newest per task/experiment counts).' }),
    gradedCount: z.number().int().meta({ description: 'Of those newest submissions, how many are graded.' }),
    averageScore: z.number().nullable().meta({ description: 'Mean score of the graded newest submissions (2 decimals); null when none.' }),
    experiments: z.array(ExperimentGrade).meta({ description: "The student's newest submission per submitted experiment, by experiment due date." }),
    cells: z
      .record(z.string(), z.number())
      .meta({
        description:
          'The gradebook row: column id of `columns` → the score of the newest submission. Sparse: a column whose newest submission is missing or not graded yet has no key (read it as no score). Shown rounded to one decimal, half up, as in the CSV.',
      }),
  })
  .meta({ id: 'StudentGrades' })

export const GradeColumn = z
  .object({
    id: Uuid.meta({ description: 'The task or experiment id; the key of `cells`.' }),
    kind: z.enum(['TASK', 'EXPERIMENT']),
    title: z.string(),
    dueAt: IsoDateTime.nullable(),
  })
  .meta({ id: 'GradeColumn' })

export const GradeOverview = z
  .object({
    columns: z
      .array(GradeColumn)
      .meta({ description: 'Gradebook columns: every homework and quiz of the course (course order), then every experiment (by due date).' }),
    students: z.array(StudentGrades),
    ...pageFields,
  })
  .meta({ id: 'GradeOverview' })
