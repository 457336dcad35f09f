import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { onReplica } from '../../db/replica.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { OptionalPageQuery, pageOf } from '../../http/pagination.ts'
import { CourseParams, idParams } from '../../http/params.ts'
import { readJsonBody } from '../../http/json-body.ts'
import { mediaType } from '../../http/plumbing.ts'
import { zodToOpenApi } from '../../docs/openapi.ts'
import { fileResponse } from '../../storage/download.ts'
import { downloadResponses } from '../../storage/openapi.ts'
import { MAX_FILES, SubmissionFileQuery } from '../../storage/submission-files.ts'
import {
  CreatePointBody,
  CreateTaskBody,
  CreateUnitBody,
  Deleted,
  EditedTask,
  LearningGradeBody,
  LearningTree,
  Overview,
  PatchPointBody,
  PatchTaskBody,
  PatchUnitBody,
  Point,
  ReorderBody,
  Submission,
  SubmissionQuery,
  SubmitBody,
  SubmitForm,
  Task,
  Unit,
} from './model.ts'
import * as structure from './structure-service.ts'
import { Released } from './model.ts'
import { releaseTask } from './release.ts'
import { RubricBody } from '../rubrics/model.ts'
import * as submissions from './submission-service.ts'

const HIDDEN_KEY = 'Students never receive `correctOptions`; the course teacher does.'

/** Units, knowledge points and tasks: the structure a teacher builds and members read. */
function structureRoutes(deps: Deps) {
  const { sql, clock } = deps
  return new Elysia({ prefix: '/courses/:courseId/learning', tags: ['Learning'] })
    .use(authPlugin(deps))
    // Read-heavy routes read through the replica when one is configured (issue 55).
    .get('', async ({ course, writeLsn }) => ok(await onReplica(deps, writeLsn, (db) => structure.learningTree(db, course))), {
      course: 'member',
      params: CourseParams,
      response: { 200: envelope(LearningTree) },
      detail: {
        summary: 'The learning tree: units → knowledge points → tasks',
        description: `Every level ordered by sortOrder; three queries whatever the size of the course. ${HIDDEN_KEY}`,
      },
    })
    .post(
      '/units',
      async ({ course, body, set }) => {
        set.status = 201
        return ok(await structure.createUnit(sql, course.id, body, clock.now()), 'Unit created.')
      },
      {
        course: 'teacher',
        params: CourseParams,
        body: CreateUnitBody,
        response: { 201: envelope(Unit) },
        detail: { summary: 'Create a learning unit (appended last)' },
      },
    )
    .patch(
      '/units/:unitId',
      async ({ course, params, body }) => ok(await structure.updateUnit(sql, course.id, params.unitId, body, clock.now()), 'Unit updated.'),
      {
        course: 'teacher',
        params: idParams('courseId', 'unitId'),
        body: PatchUnitBody,
        response: { 200: envelope(Unit) },
        detail: { summary: 'Rename or re-describe a learning unit' },
      },
    )
    .delete('/units/:unitId', async ({ course, params }) => ok(await structure.deleteUnit(sql, course.id, params.unitId), 'Unit deleted.'), {
      course: 'teacher',
      params: idParams('courseId', 'unitId'),
      response: { 200: envelope(Deleted) },
      detail: {
        summary: 'Delete a learning unit with its points and tasks',
        description: '409 HAS_SUBMISSIONS once any task under it has a submission.',
      },
    })
    .post(
      '/units/:unitId/points',
      async ({ course, params, body, set }) => {
        set.status = 201
        return ok(await structure.createPoint(sql, course.id, params.unitId, body, clock.now()), 'Knowledge point created.')
      },
      {
        course: 'teacher',
        params: idParams('courseId', 'unitId'),
        body: CreatePointBody,
        response: { 201: envelope(Point) },
        detail: { summary: 'Create a knowledge point in a unit (appended last)' },
      },
    )
    .patch(
      '/points/:pointId',
      async ({ course, params, body }) =>
        ok(await structure.updatePoint(sql, course.id, params.pointId, body, clock.now()), 'Knowledge point updated.'),
      {
        course: 'teacher',
        params: idParams('courseId', 'pointId'),
        body: PatchPointBody,
        response: { 200: envelope(Point) },
        detail: { summary: 'Rename or re-describe a knowledge point' },
      },
    )
    .delete(
      '/points/:pointId',
      async ({ course, params }) => ok(await structure.deletePoint(sql, course.id, params.pointId), 'Knowledge point deleted.'),
      {
        course: 'teacher',
        params: idParams('courseId', 'pointId'),
        response: { 200: envelope(Deleted) },
        detail: {
          summary: 'Delete a knowledge point with its tasks',
          description: '409 HAS_SUBMISSIONS once any of its tasks has a submission.',
        },
      },
    )
    .post(
      '/points/:pointId/tasks',
      async ({ course, params, body, set }) => {
        set.status = 201
        return ok(await structure.createTask(sql, course.id, params.pointId, body, clock.now(), deps.fanout), 'Task created.')
      },
      {
        course: 'teacher',
        params: idParams('courseId', 'pointId'),
        body: CreateTaskBody,
        response: { 201: envelope(Task) },
        detail: {
          summary: 'Create a learning task in a knowledge point (appended last)',
          description:
            'MEDIA tasks need materialType (FILE + resourceId of a FILE resource of this course, LINK + http(s) url, TEXT + content); ' +
            'QUIZ tasks need questions (choice questions: 2-20 options, correctOptions as 0-based indexes, exactly one for SINGLE_CHOICE). ' +
            'HOMEWORK needs dueAt after startAt (default now) and schedules reminders (in a course of more than FANOUT_INLINE_STUDENTS ' +
            'students the events are written right after this answer, in chunks).',
        },
      },
    )
    .get('/tasks/:taskId', async ({ course, params, writeLsn }) => ok(await onReplica(deps, writeLsn, (db) => structure.getTask(db, course, params.taskId))), {
      course: 'member',
      params: idParams('courseId', 'taskId'),
      response: { 200: envelope(Task) },
      detail: { summary: 'One learning task', description: HIDDEN_KEY },
    })
    .patch(
      '/tasks/:taskId',
      async ({ course, params, body }) => {
        const task = await structure.updateTask(sql, course.id, params.taskId, body, clock.now(), deps.fanout)
        const r = task.regrade
        return ok(task, r ? `Task updated; ${r.rescored} of ${r.sheets} answer sheets regraded${r.needsReview ? `, ${r.needsReview} need grading again` : ''}.` : 'Task updated.')
      },
      {
        course: 'teacher',
        params: idParams('courseId', 'taskId'),
        body: PatchTaskBody,
        response: { 200: envelope(EditedTask) },
        detail: {
          summary: 'Edit a learning task',
          description:
            'Any field of the create body; the result is validated like a new task. Sending `questions` replaces them ' +
            '(a question keeps its id when the request names it; send the ids back). A stored question left out that students ' +
            'answered needs `confirmQuestionRemoval: true`, else 409 HAS_SUBMISSIONS with `data.questions`. A changed answer key, ' +
            'points or set of questions regrades the sheets already handed in; `regrade` reports it. Changing startAt, dueAt, a notify switch or taskKind ' +
            'reschedules the homework reminders (in a large course right after this answer, as on creation). taskType cannot change once the task has submissions (409).',
        },
      },
    )
    .put(
      '/tasks/:taskId/rubric',
      async ({ course, params, body }) => ok(await structure.setRubric(sql, course.id, params.taskId, body, clock.now()), 'Rubric saved.'),
      {
        course: 'teacher',
        params: idParams('courseId', 'taskId'),
        body: RubricBody,
        response: { 200: envelope(Task) },
        detail: {
          summary: "Set or remove a task's rubric",
          description:
            '`{ rubric: { criteria: [{ id?, title, description?, questionId?, levels: [{ id?, title, description?, points }] }] } }` (1-20 criteria, 1-10 levels each), or `{ rubric: null }` to remove it. ' +
            'Ids sent back are kept (choices kept with graded sheets keep pointing at their level). Homework: the best levels add up to more than 0; grading by rubric scores the share of them. ' +
            "Quiz: every criterion names a SHORT_ANSWER question (`questionId`), and a question's criteria give at most its points. Material to read takes no rubric (409 TASK_TAKES_NO_ANSWERS). Students see the rubric on the task.",
        },
      },
    )
    .delete('/tasks/:taskId', async ({ course, params }) => ok(await structure.deleteTask(sql, course.id, params.taskId), 'Task deleted.'), {
      course: 'teacher',
      params: idParams('courseId', 'taskId'),
      response: { 200: envelope(Deleted) },
      detail: { summary: 'Delete a learning task', description: '409 HAS_SUBMISSIONS once it has a submission.' },
    })
    .patch(
      '/points/:pointId/tasks/order',
      async ({ course, params, body }) => ok(await structure.reorderTasks(sql, course.id, params.pointId, body), 'Tasks reordered.'),
      {
        course: 'teacher',
        params: idParams('courseId', 'pointId'),
        body: ReorderBody,
        response: { 200: envelope(z.array(Task)) },
        detail: {
          summary: "Reorder a knowledge point's tasks",
          description:
            'orderedTaskIds must list every task of the point exactly once (else 400); sortOrder becomes 1..n. ' +
            'Concurrent reorders of one point are serialised: the result is always one of the requested orders. Returns the tasks in the new order.',
        },
      },
    )
}

/** Answer sheets, grading and the per-student overview. */
function submissionRoutes(deps: Deps) {
  const { sql, clock, storage, config, log } = deps
  return new Elysia({ prefix: '/courses/:courseId/learning', tags: ['Learning'] })
    .use(authPlugin(deps))
    .post(
      '/tasks/:taskId/submissions',
      async ({ course, user, params, request, set, headers }) => {
        const key = headers['idempotency-key'] ?? null
        const now = clock.now()
        // Read here, not by Elysia: a multipart body only after the checks (see submitWithFiles).
        const { submission, replayed } =
          mediaType(request) === 'multipart/form-data'
            ? await submissions.submitWithFiles(sql, storage, course, user, params.taskId, request, { now, idempotencyKey: key, maxUploadBytes: config.maxUploadBytes, channels: deps.channels })
            : await submissions.submit(sql, course, user, params.taskId, await readJsonBody(request, SubmitBody), now, key, deps.channels)
        set.status = replayed ? 200 : 201
        if (replayed) set.headers['idempotent-replayed'] = 'true'
        return ok(submission, replayed ? 'Already handed in with this Idempotency-Key; this is that submission.' : 'Submitted.')
      },
      {
        course: 'student',
        parse: 'none',
        params: idParams('courseId', 'taskId'),
        response: { 200: envelope(Submission), 201: envelope(Submission) },
        detail: {
          summary: 'Submit an answer sheet (students of the course)',
          description:
            '`{ content }` (rich text) for MEDIA tasks, `{ answers: [{ questionId, selectedOptions?, text? }] }` for QUIZ tasks. ' +
            'Every submission is kept and the newest counts; after dueAt it is accepted with `late: true`; before a homework opens, 409. ' +
            'autoScore (0-100) weighs choice questions by points; a multiple-choice question counts only when exactly right. ' +
            'A quiz without short-answer questions is GRADED at once with score = autoScore. ' +
            `With files (homework photographed on a phone, a PDF…), send multipart/form-data instead: \`content\` (optional for MEDIA tasks when files come with it) or \`answers\` as JSON text, and one to ${MAX_FILES} \`files\` parts; ` +
            'the whole body at most MAX_UPLOAD_BYTES (default 20 MiB; over it 413), each text field at most 64 KiB, an empty file or more than 10 → 400. ' +
            'The answer lists them in `files`, each downloadable by the student and the course teacher (`fileUrl`). ' +
            'Optional `Idempotency-Key` header (1-255 visible ASCII characters, a new UUID per attempt): the same key again for ' +
            'this task returns the first submission with 200 and `Idempotent-Replayed: true` instead of a second one (a multipart ' +
            'replay stores none of its files); the same key with a different answer or other files is 409.',
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: zodToOpenApi(SubmitBody) as any },
              'multipart/form-data': { schema: zodToOpenApi(SubmitForm) as any },
            },
          },
        },
      },
    )
    .get(
      '/submissions/:submissionId/file',
      async ({ course, user, params, query, request }) =>
        fileResponse(storage, request, await submissions.submissionFile(sql, course, user, params.submissionId, query.position ?? 1), log),
      {
        course: 'member',
        params: idParams('courseId', 'submissionId'),
        query: SubmissionFileQuery,
        detail: {
          summary: 'Download a file handed in with an answer sheet',
          description:
            "The student who handed it in and the course's teacher only (another member → 403). `position` picks the file (as in the sheet's `files`; default 1). " +
            '`inline=1` previews images, audio and video (sandboxed); every other type is an attachment. Supports single byte ranges.',
          responses: downloadResponses,
        },
      },
    )
    .get(
      '/tasks/:taskId/submissions',
      async ({ course, user, params, query }) => ok(await submissions.listSubmissions(sql, course, user, params.taskId, query)),
      {
        course: 'member',
        params: idParams('courseId', 'taskId'),
        query: SubmissionQuery,
        response: { 200: envelope(pageOf(Submission)) },
        detail: {
          summary: "A task's submissions, newest first",
          description: 'The teacher sees every student (optionally filtered by studentId); a student sees only their own.',
        },
      },
    )
    .patch(
      '/submissions/:submissionId/grade',
      async ({ course, user, params, body }) =>
        ok(await submissions.grade(sql, course.id, user, params.submissionId, body, clock.now(), deps.channels), 'Graded.'),
      {
        course: 'teacher',
        params: idParams('courseId', 'submissionId'),
        body: LearningGradeBody,
        response: { 200: envelope(Submission) },
        detail: {
          summary: 'Grade or regrade a submission',
          description:
            'score 0-100 (decimals kept to two places), `feedback` rich text (sanitised): omitted keeps the current feedback, null clears it. Regrading replaces the score and sets gradedAt again. The student is notified. Per-question grading: `questionScores: [{ questionId, score }]` scores SHORT_ANSWER questions of the task (each 0..its points; a choice or unknown question, or a score above the points → 400); they are merged into the sheet and returned as `questionScores`. When every short-answer question is scored, `score` may be omitted and is computed as (choice points earned + short-answer points awarded) ÷ total points × 100; a given `score` overrides it.',
        },
      },
    )
    .post(
      '/tasks/:taskId/release',
      async ({ course, params }) => {
        const r = await releaseTask(sql, course, params.taskId, clock.now(), deps.channels)
        return ok(r, r.released ? `${r.released} grade(s) released.` : 'No grades were waiting for release.')
      },
      {
        course: 'teacher',
        params: idParams('courseId', 'taskId'),
        response: { 200: envelope(Released) },
        detail: {
          summary: "Release a task's held grades (MANUAL release)",
          description:
            'Every grade of the task that waits for release becomes the student\'s: score, feedback and rubric levels show, the sheet is GRADED and counts in the totals. Each student with a released grade gets one notification (their newest sheet). Nothing held: 200 with `released: 0`, nobody told. Grades given after a release wait for the next one while the task stays MANUAL.',
        },
      },
    )
    .get('/overview', async ({ course, user, query, writeLsn }) => ok(await onReplica(deps, writeLsn, (db) => submissions.overview(db, course, user, query))), {
      course: 'member',
      params: CourseParams,
      query: OptionalPageQuery,
      response: { 200: envelope(Overview) },
      detail: {
        summary: 'Learning summary per student',
        description:
          "Per student: tasks in the course, tasks submitted, tasks whose newest submission is graded, and the average of those scores (null when none). The teacher sees every student, a student only their own row. Students come by display name ignoring case, then username. Without `page` and `pageSize` every student is returned (`pageSize` null); with either, one page of at most 200 students (page 1 and 50 a page by default), in the same order; `total` counts the whole list.",
      },
    })
}

export function learningRoutes(deps: Deps) {
  return new Elysia().use(structureRoutes(deps)).use(submissionRoutes(deps))
}
