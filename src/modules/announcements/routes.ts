import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { pageOf, PageQuery } from '../../http/pagination.ts'
import { CourseParams, idParams } from '../../http/params.ts'
import { Announcement, CreateAnnouncementBody, UpdateAnnouncementBody } from './model.ts'
import * as service from './service.ts'

const AnnouncementParams = idParams('courseId', 'announcementId')
const SAID = { DRAFT: 'Draft saved.', SCHEDULED: 'Announcement scheduled.', PUBLISHED: 'Announcement published.' } as const

export function announcementRoutes(deps: Deps) {
  const { sql, clock } = deps
  return new Elysia({ prefix: '/courses/:courseId/announcements', tags: ['Announcements'] })
    .use(authPlugin(deps))
    .post(
      '',
      async ({ params, body, user, set }) => {
        set.status = 201
        const a = await service.publish(sql, params.courseId, user, body, clock.now(), deps.channels, deps.fanout)
        return ok(a, SAID[a.state])
      },
      {
        params: CourseParams,
        course: 'teacher',
        body: CreateAnnouncementBody,
        response: { 201: envelope(Announcement) },
        detail: {
          summary: 'Publish, schedule or draft an announcement (the course teacher)',
          description:
            'Title 1-200 characters; content is rich text (up to 100 000 characters) sanitised against the allow-list; content with ' +
            'nothing allowed left → 400. Without `state` and `publishAt` it is published at once, as before: every student of the course gets an ANNOUNCEMENT notification (title, a plain-text excerpt, ' +
            'actionPath `/courses/{courseId}`); in a course of more than FANOUT_INLINE_STUDENTS (5,000) students they are written right after ' +
            'this answer, in chunks (background fan-out). `state: DRAFT` keeps it from students and notifies nobody; `publishAt` (in the future, else 400) ' +
            'schedules it: the publisher job (TASK_PUBLISH_CRON, every minute) publishes it then and notifies the students, once.',
        },
      },
    )
    .get('', async ({ course, query }) => ok(await service.list(sql, course, query)), {
      params: CourseParams,
      query: PageQuery,
      course: 'member',
      response: { 200: envelope(pageOf(Announcement)) },
      detail: {
        summary: 'Announcements, newest first (members)',
        description: 'Students see published announcements only, newest publication first; the course teachers see drafts and scheduled ones too, newest first.',
      },
    })
    .patch(
      '/:announcementId',
      async ({ params, body }) =>
        ok(await service.update(sql, params.courseId, params.announcementId, body, clock.now(), deps.channels, deps.fanout), 'Announcement updated.'),
      {
        params: AnnouncementParams,
        course: 'teacher',
        body: UpdateAnnouncementBody,
        response: { 200: envelope(Announcement) },
        detail: {
          summary: 'Edit an announcement (the course teacher)',
          description:
            '`title`, `content` or both; sets `updatedAt`. Students are not notified again. A draft or scheduled announcement takes `state` and `publishAt`: ' +
            '`state: PUBLISHED` publishes it now (students notified, once), `publishAt` schedules it or moves its time, `state: DRAFT` takes it back. ' +
            'A published announcement cannot become a draft or be scheduled (409; delete it to retract it). Unknown id or another course → 404 (40409).',
        },
      },
    )
    .delete(
      '/:announcementId',
      async ({ params }) => {
        await service.remove(sql, params.courseId, params.announcementId)
        return ok(null, 'Announcement deleted.')
      },
      {
        params: AnnouncementParams,
        course: 'teacher',
        response: { 200: envelope(z.null()) },
        detail: {
          summary: 'Delete an announcement (the course teacher)',
          description: 'Notifications already delivered stay in the inbox. Unknown id or another course → 404 (40409).',
        },
      },
    )
}
