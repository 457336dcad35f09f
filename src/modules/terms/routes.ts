import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { CourseParams } from '../../http/params.ts'
import { Course } from '../courses/model.ts'
import { contentDisposition } from '../../storage/download.ts'
import { CopyCourseBody, CourseExperimentParams } from './model.ts'
import * as service from './service.ts'
import { submissionsZip } from './zip.ts'

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
    .get(
      '/courses/:courseId/experiments/:experimentId/submissions.zip',
      async ({ course, params }) => {
        const zip = await submissionsZip(sql, storage, course.id, params.experimentId, clock.now())
        return new Response(zip.body, {
          headers: {
            'content-type': 'application/zip',
            'content-disposition': contentDisposition(zip.fileName),
            'cache-control': 'private, no-store',
            'x-content-type-options': 'nosniff',
          },
        })
      },
      {
        params: CourseExperimentParams,
        course: 'teacher',
        detail: {
          tags: ['Experiments'],
          summary: "Download every student's newest submission as one zip (course teacher)",
          description:
            "Streamed `application/zip`: every file of each current student's newest submission as `{username}/{cleaned original name}` " +
            '(a name repeated within one submission gets ` (2)`, ` (3)`… before its extension), plus ' +
            '`submissions.csv` (username, display name, submitted at, late, score, file names separated by `; `; UTF-8 with BOM, formula-safe). ' +
            'Server memory stays bounded whatever the total size. An experiment of another course is 404.',
          responses: {
            200: { description: 'The zip file, as an attachment.', content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } } },
          },
        },
      },
    )
}
