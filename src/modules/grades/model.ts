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
  })
  .meta({ id: 'StudentGrades' })

export const GradeOverview = z.object({ students: z.array(StudentGrades), ...pageFields }).meta({ id: 'GradeOverview' })
