import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { onReplica } from '../../db/replica.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { courseAccess } from '../../http/guards.ts'
import { CourseParams } from '../../http/params.ts'
import { HomeworkList, MineQuery } from './model.ts'
import { homeworkCentre } from './service.ts'

export function homeworkRoutes(deps: Deps) {
  const { sql, clock } = deps
  return new Elysia({ tags: ['Homework'] })
    .use(authPlugin(deps))
    .get(
      '/courses/:courseId/homeworks',
      async ({ user, course, writeLsn }) => ok(await onReplica(deps, writeLsn, (db) => homeworkCentre(db, user.id, clock.now(), { courseId: course.id }))),
      {
        course: 'member',
        params: CourseParams,
        response: { 200: envelope(HomeworkList) },
        detail: {
          summary: "A course's homework",
          description:
            'Course members. A student sees their own status, newest submission and score; the teacher sees each homework once with a time-based status plus `submittedCount` and `studentCount`. Ordered by dueAt ascending.',
        },
      },
    )
    .get(
      '/homeworks/mine',
      async ({ user, query, writeLsn }) => {
        const now = clock.now()
        if (query.courseId) await courseAccess(sql, query.courseId, user, 'member')
        return ok(await onReplica(deps, writeLsn, (db) => homeworkCentre(db, user.id, now, { courseId: query.courseId ?? null, status: query.status })))
      },
      {
        auth: true,
        query: MineQuery,
        response: { 200: envelope(HomeworkList) },
        detail: {
          summary: 'My homework across courses',
          description:
            'Every homework of the courses the caller has joined (student view) or teaches (teacher view), ordered by dueAt; archived courses are left out (read-only: nothing to hand in), unless `courseId` names one. `status` filters on the status computed now; `courseId` narrows to one course (403 if the caller is not in it, 404 if it does not exist).',
          responses: { 403: { description: 'courseId names a course the caller is not in.' } },
        },
      },
    )
}
