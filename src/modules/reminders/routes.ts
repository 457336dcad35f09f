import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { idParams } from '../../http/params.ts'
import { ReminderEvent } from './model.ts'
import { remindersOfHomework } from './service.ts'

export function reminderRoutes(deps: Deps) {
  const { sql } = deps
  return new Elysia({ tags: ['Homework'] })
    .use(authPlugin(deps))
    .get(
      '/courses/:courseId/homeworks/:taskId/reminders',
      async ({ course, params }) => ok(await remindersOfHomework(sql, course.id, params.taskId)),
      {
        course: 'teacher',
        params: idParams('courseId', 'taskId'),
        response: { 200: envelope(z.array(ReminderEvent)) },
        detail: {
          summary: "A homework's reminder events",
          description:
            "The course's teacher. Every event of the homework, history included (canceled by a reschedule or because the student had already submitted), ordered by scheduledAt. 404 when the task is not a homework of this course.",
        },
      },
    )
}
