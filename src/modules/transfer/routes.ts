import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, iso, ok } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import { localizeText } from '../../i18n/messages.ts'
import { requestLocale } from '../../i18n/request.ts'
import { newId } from '../../lib/ids.ts'
import { multipartRequestBody } from '../../storage/openapi.ts'
import { checkUpload, cleanFileName, parseForm, withUpload } from '../../storage/upload.ts'
import { CourseParams } from '../../http/params.ts'
import { contentDisposition } from '../../storage/download.ts'
import { exportCourse } from './export.ts'
import { ImportForm, ImportJob, ImportParams } from './model.ts'
import * as q from './queries.ts'

const importNotFound = () => notFound('IMPORT_NOT_FOUND', 'This course import does not exist.')

function toImport(r: q.ImportRow, request: Request) {
  const locale = requestLocale(request)
  const report = r.report as { created: Record<string, number>; skipped: { kind: string; title: string; reason: string }[] } | null
  return {
    id: r.id,
    state: r.state,
    progress: r.progress,
    fileName: r.file_name,
    courseId: r.course_id,
    report: report
      ? { created: report.created as any, skipped: report.skipped.map((s) => ({ ...s, reason: localizeText(s.reason, locale) })) }
      : null,
    error: r.error ? { code: r.error.code, message: localizeText(r.error.message, locale) } : null,
    createdAt: iso(r.created_at)!,
  }
}

export function transferRoutes(deps: Deps) {
  const { sql, clock, storage, config } = deps
  return new Elysia({ tags: ['Course import and export'] })
    .use(authPlugin(deps))
    .post(
      '/courses/imports',
      async ({ user, request, set }) => {
        // The role macro has checked the teacher before the upload is read.
        const job = await withUpload(request, { maxUploadBytes: config.maxImportBytes, storage, fileFields: ['file'] }, async (upload) => {
          const form = parseForm(ImportForm, upload.fields)
          checkUpload(form.file, 'file', config.maxImportBytes)
          return q.insertImport(sql, {
            id: newId(),
            teacherId: user.id,
            key: form.file.key,
            fileName: cleanFileName(form.file.name),
            fileSize: form.file.size,
            shiftDays: form.shiftDays ?? 0,
            now: clock.now(),
          })
        })
        void deps.imports.kick()
        set.status = 202
        set.headers['location'] = `/api/v1/courses/imports/${job.id}`
        return ok(toImport(job, request), 'Import queued.')
      },
      {
        role: 'TEACHER',
        parse: 'none',
        response: { 202: envelope(ImportJob) },
        detail: {
          summary: 'Import a course from a Moodle backup or a Common Cartridge (teachers)',
          description:
            'multipart/form-data: `file` (a Moodle 2.x-4.x .mbz, gzip tar or zip, or a Common Cartridge 1.0-1.3 .imscc/.zip; at most MAX_IMPORT_BYTES, default 512 MiB) and optional `shiftDays` (-3650…3650, moves every date). ' +
            'Answers 202 with the queued import and `Location`; the import runs in the background on any instance. See docs/course-import-export.md for what becomes what.',
          requestBody: multipartRequestBody(ImportForm),
        },
      },
    )
    .get(
      '/courses/imports/:importId',
      async ({ user, params, request }) => {
        const row = await q.findImport(sql, params.importId)
        if (!row || row.teacher_id !== user.id) throw importNotFound()
        return ok(toImport(row, request))
      },
      {
        role: 'TEACHER',
        params: ImportParams,
        response: { 200: envelope(ImportJob) },
        detail: {
          summary: 'A course import: state, progress and report (the teacher who started it)',
          description:
            '`state` QUEUED, RUNNING, DONE (with `courseId` and `report`: what was created and what was skipped, each with why) or FAILED (with `error`: code and message). Another teacher\'s import is 404 (40420).',
        },
      },
    )
    .get(
      '/courses/:courseId/export.imscc',
      async ({ course }) => {
        const pkg = await exportCourse(sql, storage, course.id, clock.now())
        return new Response(pkg.body, {
          headers: {
            'content-type': 'application/vnd.ims.imsccv1p1',
            'content-disposition': contentDisposition(pkg.fileName),
            'cache-control': 'private, no-store',
            'x-content-type-options': 'nosniff',
          },
        })
      },
      {
        course: 'teacher',
        params: CourseParams,
        detail: {
          summary: "Export the course as a Common Cartridge 1.1 package (the course's teachers)",
          description:
            'Streamed zip (`Content-Disposition: attachment`) whose imsmanifest.xml validates against the IMS CC 1.1 schemas: units and knowledge points as organization items, TEXT as HTML webcontent, LINK as web links, files as webcontent, quizzes as QTI 1.2 with keys and points, homework with its dates (Canvas\'s assignment extension). Importing it gives the same course back. See docs/course-import-export.md.',
          responses: {
            200: { description: 'The cartridge, as an attachment.', content: { 'application/vnd.ims.imsccv1p1': { schema: { type: 'string', format: 'binary' } } } },
          },
        },
      },
    )
}
