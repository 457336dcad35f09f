import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { ifNoneMatch } from '../../http/conditional.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { notFound } from '../../http/errors.ts'
import { requestUrl } from '../../http/request-url.ts'
import { CalendarFeed, FeedParams } from './model.ts'
import * as service from './service.ts'

const baseUrl = (deps: Deps, request: Request) => deps.config.publicUrl ?? requestUrl(request).origin

/** `GET /me/calendar` and its rotation, under the API prefixes. */
export function calendarRoutes(deps: Deps) {
  const { sql } = deps
  return new Elysia({ prefix: '/me/calendar', tags: ['Calendar'] })
    .use(authPlugin(deps))
    .get('', async ({ user, request }) => ok(await service.myFeedUrl(sql, user.id, baseUrl(deps, request))), {
      auth: true,
      response: { 200: envelope(CalendarFeed) },
      detail: {
        summary: 'My private calendar feed URL',
        description:
          'An iCalendar (RFC 5545) feed of the deadlines of my courses, for Google Calendar, Outlook or Apple Calendar. Created on first use; the same URL until rotated.',
      },
    })
    .post('/rotate', async ({ user, request }) => ok(await service.rotateFeed(sql, user.id, baseUrl(deps, request)), 'A new calendar URL; the old one no longer works.'), {
      auth: true,
      response: { 200: envelope(CalendarFeed) },
      detail: { summary: 'Replace my calendar feed URL', description: 'The old URL answers 404 at once.' },
    })
}

/** `GET /calendar/{token}.ics`: no login (calendar apps cannot log in); the token is the secret. */
export function calendarFeedRoute(deps: Deps) {
  return new Elysia({ tags: ['Calendar'] }).get(
    `${service.FEED_PATH}:file`,
    async ({ params, request, set }) => {
      const token = params.file.endsWith('.ics') ? params.file.slice(0, -4) : ''
      const feed = await service.renderFeed(deps.sql, token, { base: baseUrl(deps, request), acceptLanguage: request.headers.get('accept-language') })
      if (!feed) throw notFound('NOT_FOUND', 'No calendar at this address. It may have been replaced by a new one.')
      set.headers['etag'] = feed.etag
      set.headers['cache-control'] = 'private, no-cache'
      set.headers['x-content-type-options'] = 'nosniff'
      if (ifNoneMatch(request.headers.get('if-none-match'), feed.etag)) {
        set.status = 304
        return ''
      }
      set.headers['content-type'] = 'text/calendar; charset=utf-8'
      set.headers['content-disposition'] = 'inline; filename="deadlines.ics"'
      return feed.body
    },
    {
      params: FeedParams,
      detail: {
        summary: 'A calendar feed (iCalendar)',
        description:
          'text/calendar; one VEVENT per homework and experiment deadline, UID `{id}@course-learning-service`, SEQUENCE and LAST-MODIFIED change when a deadline moves. ETag and 304 for If-None-Match. Unknown token → 404.',
        responses: { 200: { description: 'The feed', content: { 'text/calendar': { schema: { type: 'string' } } } }, 304: { description: 'Unchanged' } },
      },
    },
  )
}
