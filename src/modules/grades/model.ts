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

export const CellStatus = z.enum(['NOT_GRADED', 'MISSING']).meta({ id: 'GradeCellStatus' })

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
    status: z
      .record(z.string(), CellStatus)
      .meta({
        description:
          'Why a cell has no score, per column id: NOT_GRADED (handed in, no score yet), MISSING (nothing handed in and the due time has passed, at request time). Sparse: a cell with a score in `cells` is graded; a column in neither map has nothing handed in and is not past due (or has no due time).',
      }),
    late: z
      .array(Uuid)
      .meta({
        description:
          "Column ids whose newest submission was handed in after the column's current due time (src/lib/due.ts: exactly at the due time is on time), graded or not.",
      }),
  })
  .meta({ id: 'StudentGrades' })

export const GradeColumn = z
  .object({
    id: Uuid.meta({ description: 'The task or experiment id; the key of `cells`.' }),
    kind: z.enum(['TASK', 'EXPERIMENT']),
    taskKind: z.enum(['LEARNING', 'HOMEWORK']).nullable().meta({ description: 'Tasks: HOMEWORK or LEARNING (a quiz in the learning path); null for experiments.' }),
    taskType: z.enum(['MEDIA', 'QUIZ', 'LTI']).nullable().meta({ description: 'Tasks: QUIZ or MEDIA (handed-in text); null for experiments.' }),
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
