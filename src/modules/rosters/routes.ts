import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { AppError } from '../../http/errors.ts'
import { PageQuery } from '../../http/pagination.ts'
import { requestLocale } from '../../i18n/request.ts'
import { CourseParams, idParams } from '../../http/params.ts'
import { mediaType } from '../../http/plumbing.ts'
import { Member } from '../courses/model.ts'
import { AddTeacherBody, InvitationPage, RosterJson, RosterReport } from './model.ts'
import * as service from './service.ts'

const CourseUserParams = idParams('courseId', 'userId')
const InvitationParams = idParams('courseId', 'invitationId')

/** The roster body, read after the teacher check (the route parses it itself: JSON or CSV). */
async function rosterRows(request: Request): Promise<service.RosterRow[]> {
  const type = mediaType(request)
  if (type === 'text/csv') return service.rowsOfCsv(await request.text())
  if (type !== 'application/json') throw service.rosterContentType()
  let json: unknown
  try {
    json = JSON.parse(await request.text())
  } catch {
    throw new AppError('MALFORMED_REQUEST', 'The request body could not be parsed; send well-formed JSON or multipart/form-data.')
  }
  const parsed = RosterJson.safeParse(json)
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => ({ field: i.path.join('.') || 'emails', message: i.message }))
    throw new AppError('VALIDATION_FAILED', `Invalid request. ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`, { fields })
  }
  return service.rowsOfJson(parsed.data.emails)
}

/** Co-teachers, leaving and removing students, roster import and its invitations (issue 23). */
export function rosterRoutes(deps: Deps) {
  const { sql, clock, config } = deps
  return new Elysia({ prefix: '/courses', tags: ['Rosters'] })
    .use(authPlugin(deps))
    .post(
      '/:courseId/teachers',
      async ({ course, user, body, set }) => {
        set.status = 201
        return ok(await service.addCoTeacher(sql, course, user, body, clock.now(), deps.emailEnabled), 'Co-teacher added.')
      },
      {
        params: CourseParams,
        course: 'owner',
        body: AddTeacherBody,
        response: { 201: envelope(Member) },
        detail: {
          summary: "Add a co-teacher (the course's owner)",
          description:
            'A TEACHER account, by username or e-mail (case-insensitive), gets every teacher right in the course except managing co-teachers. ' +
            'Already a teacher of it → 409 (40906); a STUDENT account → 409 (40907); unknown → 404. On a server that sends e-mail, an account named by an address it has not verified → 409 (40900): add it by username.',
        },
      },
    )
    .delete(
      '/:courseId/teachers/:userId',
      async ({ params }) => {
        await service.removeCoTeacher(sql, params.courseId, params.userId)
        return ok(null, 'Co-teacher removed.')
      },
      {
        params: CourseUserParams,
        course: 'owner',
        response: { 200: envelope(z.null()) },
        detail: { summary: "Remove a co-teacher (the course's owner)", description: 'Not a co-teacher of the course (the owner included) → 404.' },
      },
    )
    .post(
      '/:courseId/leave',
      async ({ course, user }) => {
        await service.leaveCourse(sql, course.id, user)
        return ok(null, 'You left the course.')
      },
      {
        params: CourseParams,
        course: 'student',
        response: { 200: envelope(z.null()) },
        detail: {
          summary: 'Leave a course (its students)',
          description:
            'In one transaction the membership ends and your pending reminders of the course are canceled. Your submissions and grades are kept: joining again shows them again.',
        },
      },
    )
    .delete(
      '/:courseId/members/:userId',
      async ({ params }) => {
        await service.removeMember(sql, params.courseId, params.userId)
        return ok(null, 'Student removed from the course.')
      },
      {
        params: CourseUserParams,
        course: 'teacher',
        response: { 200: envelope(z.null()) },
        detail: {
          summary: 'Remove a student (course teacher)',
          description:
            'As if the student left: membership and pending reminders go in one transaction; submissions and grades are kept. The owner or a co-teacher → 409; not a student of the course → 404.',
        },
      },
    )
    .post(
      '/:courseId/roster',
      async ({ course, user, request }) =>
        ok(
          await service.importRoster(
            sql,
            course.id,
            user,
            await rosterRows(request),
            clock.now(),
            deps.emailEnabled ? { locale: requestLocale(request), perDay: config.invitationMailsPerDay } : null,
          ),
          'Roster imported.',
        ),
      {
        params: CourseParams,
        course: 'teacher',
        parse: 'none',
        response: { 200: envelope(RosterReport) },
        detail: {
          summary: 'Import a class list (course teacher)',
          description:
            '`application/json` `{ emails: [...] }` or `text/csv` with a header row naming an `email` column; at most 5,000 rows. ' +
            'A STUDENT account with the address (case-insensitive) is enrolled as if it had joined by code when its address is verified (on a server without e-mail: always); an unverified one gets a pending invitation and joins when it verifies (`awaitingVerification`). ' +
            'A TEACHER account, a malformed or repeated address is reported in `invalid`; an unknown address gets a pending invitation, and whoever registers with it is enrolled once the address is verified. ' +
            'When the server sends e-mail, each new invitation of an unknown address is mailed (fixed text in the language of this request, no course title or name, a link to `/register?email=…`) within the caps: ' +
            'only once your own address is verified, at most one invitation mail per address a day whatever the course, at most `INVITATION_MAILS_PER_DAY` (default 2,000) per teacher a day. ' +
            '`mailWaiting` lists the invitations whose mail waits (they are mailed later by themselves). Importing the same list again changes nothing and mails nobody.',
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: { type: 'object', properties: { emails: { type: 'array', items: { type: 'string' }, maxItems: 5000 } }, required: ['emails'] } },
              'text/csv': { schema: { type: 'string' } },
            },
          },
        },
      },
    )
    .get(
      '/:courseId/roster/invitations',
      async ({ params, query }) => ok(await service.listInvitations(sql, params.courseId, query)),
      {
        params: CourseParams,
        query: PageQuery,
        course: 'teacher',
        response: { 200: envelope(InvitationPage) },
        detail: { summary: 'Pending roster invitations (course teacher)', description: 'Oldest first; paged; the total is a counter kept by the database.' },
      },
    )
    .delete(
      '/:courseId/roster/invitations/:invitationId',
      async ({ params }) => {
        await service.revokeInvitation(sql, params.courseId, params.invitationId)
        return ok(null, 'Invitation revoked.')
      },
      {
        params: InvitationParams,
        course: 'teacher',
        response: { 200: envelope(z.null()) },
        detail: { summary: 'Revoke a roster invitation (course teacher)', description: 'Unknown invitation of this course → 404.' },
      },
    )
}


