import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { CourseParams } from '../../http/params.ts'
import { Course } from '../courses/model.ts'
import { CopyCourseBody } from './model.ts'
import * as service from './service.ts'

/** Terms: copying a course into a new term, downloading an experiment's submissions at once. */
export function termRoutes(deps: Deps) {
  const { sql, clock, storage } = deps
  return new Elysia({ tags: ['Courses'] })
    .use(authPlugin(deps))
    .post(
      '/courses/:courseId/copy',
      async ({ course, user, body, set }) => {
        set.status = 201
        return ok(await service.copyCourse({ sql, storage }, course, user, body, clock.now()), 'Course copied.')
      },
      {
        params: CourseParams,
        // Copying last term's archived course into the next term is the point.
        course: { level: 'teacher', whenArchived: 'allow' },
        body: CopyCourseBody,
        response: { 201: envelope(Course) },
        detail: {
          summary: 'Copy a course into a new term (the course teacher)',
          description:
            'A new course owned by the caller, joining open, with a fresh invite code: workspace modules, units, points, tasks ' +
            '(content, materials, quizzes with their keys and points), homework with `startAt`/`dueAt` moved by `shiftDays` ' +
            '(-3650..3650), experiments (`dueAt` moved) and resources (files are copied: they stay downloadable when the ' +
            "original's are deleted). Not copied: members, co-teachers, announcements, submissions, grades, reminders, " +
            'notifications. One transaction. Works on an archived course too.',
        },
      },
    )
}
