import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { authPlugin, type CourseGuard } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { idParams } from '../../http/params.ts'
import { Comment, CommentListQuery, CommentPage, CommentParams, CreateCommentBody, UpdateCommentBody } from './model.ts'
import * as service from './service.ts'

const AnnouncementThread = idParams('courseId', 'announcementId')
const TaskThread = idParams('courseId', 'taskId')
const PrivateThread = idParams('courseId', 'taskId', 'studentId')

/** Members; a student only in their own private thread (checked before the body is read). */
const PRIVATE_GUARD: CourseGuard = { level: 'member', whenArchived: 'refuse-writes', ownStudent: 'studentId' }

const listDoc = (what: string) => ({
  summary: `Comments ${what}, oldest first`,
  description:
    'Pages of `pageSize` (default 50, at most 200); pass `nextCursor` as `after` for the next one. Hidden comments are shown to the ' +
    "course's teachers and to their authors only.",
})
const postDoc = (what: string, notifies: string) => ({
  summary: `Comment ${what}`,
  description:
    '`{ content }`: rich text sanitised against the allow-list, at most 10,000 characters; nothing allowed left → 400. ' +
    `${notifies} At most 30 comments a minute per user (429, 42900, with Retry-After).`,
})
const CLASS_NOTICE =
  'Students may not when the course has class comments off (403, 40303). Notifies (COMMENT_REPLY) the writer of what it is under ' +
  '(an announcement\'s author; a task\'s teachers) and everyone who commented there before, if still in the course.'

/**
 * The course's conversation (issue 53): class threads under announcements and tasks (every
 * member), private threads on one student's work for a task (that student and the course's
 * teachers), and editing, hiding and deleting one comment by its id.
 */
export function commentRoutes(deps: Deps) {
  const { sql, clock } = deps
  const delivery = () => ({ now: clock.now(), channels: deps.channels })
  const created = (set: { status?: number | string }, c: service.Comment) => {
    set.status = 201
    return ok(c, 'Comment posted.')
  }
  return new Elysia({ tags: ['Comments'] })
    .use(authPlugin(deps))
    .get(
      '/courses/:courseId/announcements/:announcementId/comments',
      async ({ course, user, params, query }) =>
        ok(await service.list(sql, course, user, { kind: 'ANNOUNCEMENT', courseId: course.id, announcementId: params.announcementId }, query)),
      { params: AnnouncementThread, query: CommentListQuery, course: 'member', response: { 200: envelope(CommentPage) }, detail: listDoc('under an announcement (members)') },
    )
    .post(
      '/courses/:courseId/announcements/:announcementId/comments',
      async ({ course, user, params, body, set }) =>
        created(set, await service.post(sql, course, user, { kind: 'ANNOUNCEMENT', courseId: course.id, announcementId: params.announcementId }, body, delivery())),
      { params: AnnouncementThread, body: CreateCommentBody, course: 'member', response: { 201: envelope(Comment) }, detail: postDoc('under an announcement (members)', CLASS_NOTICE) },
    )
    .get(
      '/courses/:courseId/learning/tasks/:taskId/comments',
      async ({ course, user, params, query }) => ok(await service.list(sql, course, user, { kind: 'TASK', courseId: course.id, taskId: params.taskId }, query)),
      { params: TaskThread, query: CommentListQuery, course: 'member', response: { 200: envelope(CommentPage) }, detail: listDoc('under a task (members)') },
    )
    .post(
      '/courses/:courseId/learning/tasks/:taskId/comments',
      async ({ course, user, params, body, set }) =>
        created(set, await service.post(sql, course, user, { kind: 'TASK', courseId: course.id, taskId: params.taskId }, body, delivery())),
      { params: TaskThread, body: CreateCommentBody, course: 'member', response: { 201: envelope(Comment) }, detail: postDoc('under a task (members)', CLASS_NOTICE) },
    )
    .get(
      '/courses/:courseId/learning/tasks/:taskId/students/:studentId/comments',
      async ({ course, user, params, query }) =>
        ok(await service.list(sql, course, user, { kind: 'PRIVATE', courseId: course.id, taskId: params.taskId, studentId: params.studentId }, query)),
      {
        params: PrivateThread,
        query: CommentListQuery,
        course: PRIVATE_GUARD,
        response: { 200: envelope(CommentPage) },
        detail: {
          ...listDoc("in a student's private thread on a task"),
          description: `${listDoc('').description} That student and the course's teachers only: another student → 403; someone who is not a student of the course → 404.`,
        },
      },
    )
    .post(
      '/courses/:courseId/learning/tasks/:taskId/students/:studentId/comments',
      async ({ course, user, params, body, set }) =>
        created(set, await service.post(sql, course, user, { kind: 'PRIVATE', courseId: course.id, taskId: params.taskId, studentId: params.studentId }, body, delivery())),
      {
        params: PrivateThread,
        body: CreateCommentBody,
        course: PRIVATE_GUARD,
        response: { 201: envelope(Comment) },
        detail: postDoc(
          "in a student's private thread on a task (that student and the course's teachers)",
          'Notifies (PRIVATE_COMMENT) the course\'s teachers when the student writes, the student when a teacher writes.',
        ),
      },
    )
    .patch('/comments/:commentId', async ({ comment, user, body }) => ok(await service.update(sql, comment, user, body, clock.now()), 'Comment updated.'), {
      params: CommentParams,
      body: UpdateCommentBody,
      comment: true,
      response: { 200: envelope(Comment) },
      detail: {
        summary: 'Edit or hide a comment',
        description:
          '`content`: its author, within 15 minutes of writing it (later → 409, 40910); the edit sets `editedAt`. `hidden`: the course\'s teachers, class ' +
          'comments only. A comment the caller may not see → 404 (40410); someone else\'s → 403; an archived course → 409 (40908).',
      },
    })
    .delete(
      '/comments/:commentId',
      async ({ comment }) => {
        await service.remove(sql, comment)
        return ok(null, 'Comment deleted.')
      },
      {
        params: CommentParams,
        comment: true,
        response: { 200: envelope(z.null()) },
        detail: {
          summary: 'Delete a comment',
          description:
            "Its author, or the course's teachers for any class comment. Its notifications leave every inbox. A comment the caller may not see → 404 (40410).",
        },
      },
    )
}
