import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { HOMEWORK_STATUSES } from './status.ts'

export const HomeworkStatusSchema = z.enum(HOMEWORK_STATUSES)

export const HomeworkItem = z
  .object({
    taskId: Uuid,
    courseId: Uuid,
    courseTitle: z.string(),
    title: z.string(),
    startAt: IsoDateTime,
    dueAt: IsoDateTime,
    status: HomeworkStatusSchema.meta({
      description:
        'At request time. Student: SUBMITTED if any submission, else NOT_STARTED before startAt, OVERDUE after dueAt, else IN_PROGRESS. Teacher: time-based only.',
    }),
    submittedAt: IsoDateTime.nullable().meta({ description: "The student's newest submission; null for the teacher." }),
    score: z.number().nullable().meta({ description: "The newest submission's score, null until graded (and for the teacher)." }),
    remainingSeconds: z.number().int().min(0).meta({ description: 'Whole seconds until dueAt, never below 0.' }),
    submittedCount: z.number().int().optional().meta({ description: "Teacher only: students with at least one submission." }),
    studentCount: z.number().int().optional().meta({ description: 'Teacher only: students of the course.' }),
  })
  .meta({ id: 'HomeworkItem' })
export type HomeworkItem = z.infer<typeof HomeworkItem>

export const HomeworkList = z
  .object({
    items: z.array(HomeworkItem),
    unreadReminderCount: z.number().int().meta({ description: "The caller's unread HOMEWORK_REMINDER notifications (the red dot)." }),
  })
  .meta({ id: 'HomeworkList' })

export const MineQuery = z.object({
  status: HomeworkStatusSchema.optional(),
  courseId: Uuid.optional(),
})
export type MineQuery = z.infer<typeof MineQuery>
