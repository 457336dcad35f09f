import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { onReplica } from '../../db/replica.ts'
import { authPlugin } from '../../http/auth.ts'
import { ifNoneMatch } from '../../http/conditional.ts'
import { envelope } from '../../http/envelope.ts'
import { CourseParams } from '../../http/params.ts'
import { OptionalPageQuery } from '../../http/pagination.ts'
import { contentDisposition } from '../../storage/download.ts'
import { GradeOverview } from './model.ts'
import * as service from './service.ts'

export function gradeRoutes(deps: Deps) {
  const { sql, clock, config, log } = deps
  // One cache per app (Deps.overviewCache), shared by both prefixes the routes are mounted under.
  const cache = deps.overviewCache
  // Development and tests: every freshly built overview is checked against its schema (the
  // route answers bytes, which Elysia does not validate).
  const check = config.validateResponses ? (data: unknown) => void GradeOverview.parse(data) : undefined
  return new Elysia({ tags: ['Grades'] })
    .use(authPlugin(deps))
    .get(
      '/courses/:courseId/grades/overview',
      // Through the replica when one is configured (issue 55); a streamed overview is opened
      // inside, so a replica that fails before the first rows leaves it to the primary.
      async ({ course, query, headers, writeLsn }) =>
        onReplica(deps, writeLsn, async (db) => {
          const outcome = await service.overviewBody(db, course.id, query, clock.now(), cache, check, config.gradebookStreamStudents)
          // ETag from the body's hash (or, streamed, from the gradebook version): the browser
          // revalidates (no-cache) and gets 304 while the gradebook is unchanged, from any instance.
          const common = { etag: outcome.etag, 'cache-control': 'private, no-cache' }
          if (ifNoneMatch(headers['if-none-match'], outcome.etag)) return new Response(null, { status: 304, headers: common })
          const body =
            'open' in outcome
              ? await outcome.open((e) => log.error('grade overview stream failed', { courseId: course.id, error: String((e as Error)?.message ?? e) }))
              : outcome.body
          return new Response(body, { headers: { ...common, 'content-type': 'application/json;charset=utf-8' } })
        }),
      {
        course: 'teacher',
        params: CourseParams,
        query: OptionalPageQuery,
        response: { 200: envelope(GradeOverview) },
        detail: {
          summary: 'Per-student grade overview (course teacher)',
          responses: { 304: { description: 'Not modified: the `If-None-Match` ETag is still current.' } },
          description:
            'Every student of the course. Counts cover the newest submission per learning task and per experiment; `averageScore` is over the graded ones (null when none). `experiments` lists the newest submission of each experiment the student submitted. Gradebook: `columns` lists every homework/quiz and experiment, and each student\'s `cells` maps a column id to the score of the newest submission; a column with no submission or no grade yet has no key; `status` says why a cell has no score (NOT_GRADED: handed in; MISSING: nothing handed in and the due time has passed, at request time) and `late` lists the columns whose newest submission came after the due time. Scores are shown rounded to one decimal, half up (the CSV uses the same rule). Students come by display name ignoring case, then username. Without `page` and `pageSize` every student is returned (`pageSize` null; a course of more than GRADEBOOK_STREAM_STUDENTS students is streamed, with a weak ETag, and `total` then counts the students written); with either, one page of at most 200 students (page 1 and 50 a page by default), in the same order; `total` counts the whole list.',
        },
      },
    )
    .get(
      '/courses/:courseId/grades/overview.csv',
      async ({ course, writeLsn }) => {
        const now = clock.now()
        const body = await onReplica(deps, writeLsn, (db) => service.overviewCsv(db, course.id, now, service.STREAM_CHUNK, (e) =>
          log.error('grades CSV stream failed', { courseId: course.id, error: String((e as Error)?.message ?? e) }),
        ))
        return new Response(body, {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': contentDisposition(service.csvFileName(course.title, now)),
            'cache-control': 'private, no-store',
          },
        })
      },
      {
        course: 'teacher',
        params: CourseParams,
        detail: {
          summary: 'Grade overview as CSV (course teacher)',
          description:
            'The same data as a spreadsheet: UTF-8 with a byte-order mark, RFC 4180 (comma-separated, CRLF, quotes doubled). Columns: User ID, Username, Display name, Submissions, Graded, Average score, then "<title>: score" per homework/quiz (course order), then per experiment (by due date) "<title>: score" and "<title>: submitted at", then one "<title>: status" per gradebook column (homework/quizzes, then experiments): Graded, Not graded (handed in, no score), Missing (nothing handed in, past the due time), each with ", late" when the newest submission came after the due time; empty when nothing is handed in and the due time has not passed. The status columns come after all earlier ones, so the earlier columns keep their positions. Scores are rounded to one decimal, half up, like the grade table on screen. Text cells starting with = + - @ tab or CR are prefixed with an apostrophe so spreadsheets do not run them as formulas. Streamed as it is read (chunks of 2,000 students); a failure after the first chunk cuts the download off without its end (a failed download, not a shorter file).',
          responses: {
            200: {
              description: 'The CSV file, as an attachment.',
              content: { 'text/csv': { schema: { type: 'string' } } },
            },
          },
        },
      },
    )
}
