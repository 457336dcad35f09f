import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { courseAccess } from '../../http/guards.ts'
import { RubricBody } from '../rubrics/model.ts'
import { envelope, ok, Uuid } from '../../http/envelope.ts'
import { offsetOf, page, pageOf, PageQuery } from '../../http/pagination.ts'
import { CourseParams } from '../../http/params.ts'
import { fileResponse } from '../../storage/download.ts'
import { downloadResponses, multipartRequestBody } from '../../storage/openapi.ts'
import { parseForm, withUpload, type FormFields } from '../../storage/upload.ts'
import {
  CourseExperimentParams,
  Experiment,
  ExperimentCreate,
  ExperimentDetail,
  ExperimentGradeBody,
  ExperimentParams,
  ExperimentPatch,
  MyExperimentList,
  MyExperimentsQuery,
  Released,
  Submission,
  SubmissionForm,
  SubmissionFileQuery,
  SubmissionParams,
} from './model.ts'
import * as service from './service.ts'

export function experimentRoutes(deps: Deps) {
  const { sql, clock, storage, config, log } = deps
  return new Elysia({ tags: ['Experiments'] })
    .use(authPlugin(deps))
    .post(
      '/courses/:courseId/experiments',
      async ({ course, body, set }) => {
        set.status = 201
        return ok(await service.createExperiment(sql, course.id, body, clock.now()), 'Experiment created.')
      },
      {
        course: 'teacher',
        params: CourseParams,
        body: ExperimentCreate,
        response: { 201: envelope(Experiment) },
        detail: { summary: 'Create an experiment (course teacher)', description: '`description` is rich text, sanitised on write.' },
      },
    )
    .get(
      '/experiments/mine',
      async ({ user, query }) => {
        if (query.courseId) await courseAccess(sql, query.courseId, user, 'member')
        return ok(await service.myExperiments(sql, user.id, query.courseId ?? null, clock.now()))
      },
      {
        auth: true,
        query: MyExperimentsQuery,
        response: { 200: envelope(MyExperimentList) },
        detail: {
          summary: 'My experiments across courses',
          description:
            "Every experiment of the courses the caller has joined (with the caller's newest submission) or teaches (with submission counts), ordered by dueAt; one query. `courseId` narrows to one course (403 if the caller is not in it, 404 if it does not exist).",
          responses: { 403: { description: 'courseId names a course the caller is not in.' } },
        },
      },
    )
    .get('/courses/:courseId/experiments', async ({ course }) => ok(await service.listExperiments(sql, course.id)), {
      course: 'member',
      params: CourseParams,
      response: { 200: envelope(z.array(Experiment)) },
      detail: { summary: 'List the experiments of a course (members)', description: 'A bare array ordered by `dueAt`.' },
    })
    .get(
      '/courses/:courseId/experiments/:experimentId',
      async ({ course, params, user }) => ok(await service.getExperiment(sql, course, params.experimentId, user.id)),
      {
        course: 'member',
        params: CourseExperimentParams,
        response: { 200: envelope(ExperimentDetail) },
        detail: {
          summary: 'Experiment detail (members)',
          description: "For a student, `mySubmission` is their newest submission or null. An experiment of another course is 404.",
        },
      },
    )
    .patch(
      '/courses/:courseId/experiments/:experimentId',
      async ({ course, params, body }) =>
        ok(await service.updateExperiment(sql, course.id, params.experimentId, body, clock.now()), 'Experiment updated.'),
      {
        course: 'teacher',
        params: CourseExperimentParams,
        body: ExperimentPatch,
        response: { 200: envelope(Experiment) },
        detail: {
          summary: 'Edit an experiment (course teacher)',
          description: 'Any of title, description, dueAt. A new dueAt relabels existing submissions: `late` is always judged against the current dueAt.',
        },
      },
    )
    .delete(
      '/courses/:courseId/experiments/:experimentId',
      async ({ course, params }) => ok(await service.deleteExperiment(sql, course.id, params.experimentId), 'Experiment deleted.'),
      {
        course: 'teacher',
        params: CourseExperimentParams,
        response: { 200: envelope(z.object({ id: Uuid })) },
        detail: {
          summary: 'Delete an experiment (course teacher)',
          description:
            '409 HAS_SUBMISSIONS once any student has submitted to it (edit it instead). An experiment of another course is 404. A submission racing the delete either makes it 409 or itself fails with 404; it is never accepted and then lost.',
        },
      },
    )
    .post(
      '/experiments/:experimentId/submissions',
      async ({ user, params, request, set }) => {
        // Permission first: a refused caller's upload is never read or stored.
        const { experiment, course } = await service.experimentForSubmission(sql, params.experimentId, user)
        const upload = { maxUploadBytes: config.maxUploadBytes, storage, fileFields: ['file', 'files'], repeatable: ['files'] }
        const submission = await withUpload(request, upload, async ({ fields, files }) => {
          const form = parseForm(SubmissionForm, { ...fields, files: files.files } as unknown as FormFields)
          return service.submit(sql, storage, {
            experiment,
            course,
            student: user,
            files: [...(form.file ? [form.file] : []), ...(form.files ?? [])],
            note: form.note,
            maxUploadBytes: config.maxUploadBytes,
            now: clock.now(),
            channels: deps.channels,
          })
        })
        set.status = 201
        return ok(submission, 'Submitted.')
      },
      {
        auth: true,
        parse: 'none',
        params: ExperimentParams,
        response: { 201: envelope(Submission) },
        detail: {
          summary: 'Submit a file for an experiment (students of the course)',
          description:
            'multipart/form-data: `file`, or one or more `files` parts (photos from a phone, PDFs…; at least one file, at most 10, the whole body at most MAX_UPLOAD_BYTES, default 20 MiB) and `note` (optional plain text, at most 2,000 characters). Every attempt is kept; the newest counts. Submissions after `dueAt` are accepted with `late: true`.',
          requestBody: multipartRequestBody(SubmissionForm),
        },
      },
    )
    .get(
      '/experiments/:experimentId/submissions',
      async ({ user, params, query }) => {
        const { items, total } = await service.listSubmissions(sql, params.experimentId, user, {
          limit: query.pageSize,
          offset: offsetOf(query),
        })
        return ok(page(items, total, query))
      },
      {
        auth: true,
        params: ExperimentParams,
        query: PageQuery,
        response: { 200: envelope(pageOf(Submission)) },
        detail: {
          summary: 'List submissions of an experiment',
          description: "The course's teacher sees every submission, a student only their own; newest first, paginated.",
        },
      },
    )
    .get(
      '/experiments/:experimentId/submissions/latest',
      async ({ user, params }) => ok(await service.latestSubmission(sql, params.experimentId, user)),
      {
        auth: true,
        params: ExperimentParams,
        response: { 200: envelope(Submission.nullable()) },
        detail: { summary: "The caller's newest submission", description: '`data: null` when the caller has not submitted.' },
      },
    )
    .get(
      '/submissions/:submissionId/file',
      async ({ user, params, query, request }) =>
        fileResponse(storage, request, await service.submissionFileAt(sql, params.submissionId, query.position ?? 1, user), log),
      {
        auth: true,
        params: SubmissionParams,
        query: SubmissionFileQuery,
        detail: {
          summary: 'Download a submitted file',
          description:
            "The submitting student and the course's teacher only. Supports single byte ranges. `position` picks one file of a multi-file submission (as in its `files`; default 1, the first).",
          responses: downloadResponses,
        },
      },
    )
    .patch(
      '/submissions/:submissionId/grade',
      async ({ user, params, body }) => ok(await service.grade(sql, params.submissionId, user, body, clock.now(), deps.channels), 'Graded.'),
      {
        experimentSubmission: 'teacher',
        params: SubmissionParams,
        body: ExperimentGradeBody,
        response: { 200: envelope(Submission) },
        detail: {
          summary: 'Grade an experiment submission (course teacher)',
          description:
            "`score` 0-100, or `rubric` (one level per criterion of the experiment's rubric: the score is the chosen points ÷ the rubric's best × 100); `feedback` rich text (sanitised), omitted keeps the current feedback. Grading again overwrites. The student gets a SUBMISSION_GRADED notification; under MANUAL release the grade waits (released: false) and nobody is told until the release.",
        },
      },
    )
    .post(
      '/experiments/:experimentId/release',
      async ({ user, params }) => {
        const r = await service.release(sql, params.experimentId, user, clock.now(), deps.channels)
        return ok(r, r.released ? `${r.released} grade(s) released.` : 'No grades were waiting for release.')
      },
      {
        auth: true,
        params: ExperimentParams,
        response: { 200: envelope(Released) },
        detail: {
          summary: "Release an experiment's held grades (course teacher)",
          description:
            'Every grade of the experiment that waits for release (MANUAL) becomes the student\'s; each student with a released grade gets one notification. Nothing held: 200 with `released: 0`, nobody told.',
        },
      },
    )
    .put(
      '/courses/:courseId/experiments/:experimentId/rubric',
      async ({ course, params, body }) => ok(await service.setRubric(sql, course.id, params.experimentId, body, clock.now()), 'Rubric saved.'),
      {
        course: 'teacher',
        params: CourseExperimentParams,
        body: RubricBody,
        response: { 200: envelope(Experiment) },
        detail: {
          summary: "Set or remove an experiment's rubric",
          description:
            '`{ rubric: { criteria: [{ id?, title, description?, levels: [{ id?, title, description?, points }] }] } }` (1-20 criteria, 1-10 levels each; the best levels add up to more than 0), or `{ rubric: null }`. Ids sent back are kept.',
        },
      },
    )
}
