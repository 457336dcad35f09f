import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { onReplica } from '../../db/replica.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { CourseParams } from '../../http/params.ts'
import { Course, CourseListQuery, CreateCourseBody, JoinBody, MemberPage, MembersQuery, UpdateCourseBody } from './model.ts'
import * as service from './service.ts'

export function courseRoutes(deps: Deps) {
  const { sql, clock } = deps
  return new Elysia({ prefix: '/courses', tags: ['Courses'] })
    .use(authPlugin(deps))
    .post(
      '',
      async ({ body, user, set }) => {
        set.status = 201
        return ok(await service.createCourse(sql, user, body, clock.now()), 'Course created.')
      },
      {
        role: 'TEACHER',
        body: CreateCourseBody,
        response: { 201: envelope(Course) },
        detail: {
          summary: 'Create a course (teachers)',
          description:
            'Title 1-120 characters, description plain text up to 5000 (both trimmed). The course gets a fresh invite code: ' +
            '8 characters from A-Z and 2-9 without the look-alikes 0/O, 1/I/L.',
        },
      },
    )
    // Read-heavy routes read through the replica when one is configured (issue 55).
    .get('', async ({ user, query, writeLsn }) => ok(await onReplica(deps, writeLsn, (db) => service.listMyCourses(db, user, query.archived === 'true'))), {
      auth: true,
      query: CourseListQuery,
      response: { 200: envelope(z.array(Course)) },
      detail: {
        summary: 'My courses',
        description:
          'The active courses the caller teaches or has joined, with `myRole`; newest first (by creation for taught, by join time for joined courses). `archived=true`: the archived ones instead.',
      },
    })
    .post(
      '/join',
      async ({ body, user }) => ok(await service.joinCourse(sql, user, body.inviteCode, clock.now()), 'Joined the course.'),
      {
        role: 'STUDENT',
        body: JoinBody,
        response: { 200: envelope(Course) },
        detail: {
          summary: 'Join a course by invite code (students)',
          description:
            'The code is matched case-insensitively, surrounding spaces ignored. Unknown code → 404 (40401); ' +
            'joining closed by the teacher → 409 (40903); a teacher account → 403. Joining a course one is already in returns it unchanged.',
        },
      },
    )
    .get('/:courseId', async ({ params, user }) => ok(await service.getCourse(sql, params.courseId, user)), {
      params: CourseParams,
      course: 'member',
      response: { 200: envelope(Course) },
      detail: { summary: 'Course detail (members)', description: "`inviteCode` and `joiningOpen` only for the course's teacher." },
    })
    .patch(
      '/:courseId',
      async ({ params, user, body }) => ok(await service.updateCourse(sql, params.courseId, user, body, clock.now(), deps.fanout), 'Course updated.'),
      {
        params: CourseParams,
        // An archived course accepts `archived: false` here (the service refuses other edits).
        course: { level: 'teacher', whenArchived: 'allow' },
        body: UpdateCourseBody,
        response: { 200: envelope(Course) },
        detail: {
          summary: 'Edit a course, open or close joining, archive it (the course teacher)',
          description:
            'Any of `title`, `description`, `joiningOpen`, `archived`. With `joiningOpen: false` the invite code is refused (409, 40903). ' +
            '`archived: true` makes the course read-only (every write in it → 409, 40908), hides it from `GET /courses` and cancels its pending reminders; ' +
            '`archived: false` makes it active again and creates the reminders whose times are still ahead. An archived course accepts no other edit unless it is unarchived by the same request.',
        },
      },
    )
    .post(
      '/:courseId/invite-code',
      async ({ params, user }) => ok(await service.rotateInviteCode(sql, params.courseId, user), 'Invite code replaced.'),
      {
        params: CourseParams,
        course: 'teacher',
        response: { 200: envelope(Course) },
        detail: {
          summary: 'Replace the invite code (the course teacher)',
          description: 'Returns the course with its new code; the old code stops working immediately. Members stay members.',
        },
      },
    )
    .get(
      '/:courseId/members',
      async ({ params, query }) => ok(await service.listMembers(sql, params.courseId, query)),
      {
        params: CourseParams,
        query: MembersQuery,
        course: 'member',
        response: { 200: envelope(MemberPage) },
        detail: {
          summary: 'Course members (members)',
          description:
            "The owner first (joinedAt = the course's creation, `owner: true`), then the co-teachers (role TEACHER), then students by join time. " +
            'Paginated by `page`/`pageSize`, or by `after` = the previous `nextCursor` (constant cost at any depth). `q` searches names and usernames. ' +
            '`total` is read from a counter kept by the database.',
        },
      },
    )
}
