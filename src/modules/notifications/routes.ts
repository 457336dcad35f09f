import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { resolveLocale } from '../../i18n/locale.ts'
import type { Channel } from './channel.ts'
import { InboxQuery, Notification, NotificationPage, NotificationParams, preferenceSchemas, ReadAllResult, StreamQuery } from './model.ts'
import { DIGEST_CHANNEL, handInDigestOf, preferencesOf, savePreferences } from './preferences.ts'
import * as service from './service.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The inbox, its live stream, and the preferences (a switch per type for each channel of
 * `channels`, the channel list of src/services/channels.ts).
 */
export function notificationRoutes(deps: Deps, channels: readonly Channel[]) {
  return new Elysia().use(inboxRoutes(deps)).use(preferenceRoutes(deps, channels))
}

function preferenceRoutes(deps: Deps, channels: readonly Channel[]) {
  const { sql, clock } = deps
  const names = channels.map((c) => c.name)
  const schemas = preferenceSchemas(names)
  // The channels' keys are known only at run time (the schema's type is a record of them): the
  // digest switch rides beside them.
  const allPreferences = async (userId: string) =>
    ({ ...(await preferencesOf(sql, userId, names)), handInDigest: await handInDigestOf(sql, userId) }) as unknown as Awaited<ReturnType<typeof preferencesOf>>
  return new Elysia({ tags: ['Notifications'] })
    .use(authPlugin(deps))
    .get('/me/notification-preferences', async ({ user }) => ok(await allPreferences(user.id)), {
      auth: true,
      response: { 200: envelope(schemas.whole) },
      detail: { summary: 'My notification preferences', description: 'Per channel, which types are also sent on it. Defaults (email): HOMEWORK_REMINDER true, SUBMISSION_GRADED true, ANNOUNCEMENT false.' },
    })
    .put(
      '/me/notification-preferences',
      async ({ user, body }) => {
        const { handInDigest, ...perChannel } = body as Record<string, Record<string, boolean>> & { handInDigest?: boolean }
        const digest: Record<string, Record<string, boolean>> = handInDigest === undefined ? {} : { [DIGEST_CHANNEL]: { SUBMISSION_RECEIVED: handInDigest } }
        await savePreferences(sql, user.id, { ...perChannel, ...digest }, clock.now())
        return ok(await allPreferences(user.id))
      },
      {
        auth: true,
        body: schemas.put,
        response: { 200: envelope(schemas.whole) },
        detail: { summary: 'Change my notification preferences', description: 'Any subset of each channel (`email`); returns the whole object. Unknown keys → 400.' },
      },
    )
}

function inboxRoutes(deps: Deps) {
  const { sql, clock } = deps
  const hub = deps.streams
  return new Elysia({ prefix: '/notifications', tags: ['Notifications'] })
    .use(authPlugin(deps))
    // `request.headers`, not `headers`: Elysia would build an object of every header (issue 55).
    .get('', async ({ user, query, request }) => ok(await service.inbox(sql, user.id, query, request.headers.get('accept-language') ?? undefined, clock.now())), {
      auth: true,
      query: InboxQuery,
      response: { 200: envelope(NotificationPage) },
      detail: {
        summary: 'My inbox',
        description:
          "Newest first. `unreadOnly` accepts only 'true' or 'false' (default false). `unreadCount` counts all unread notifications; `total` counts those matching the filter (both from per-user counters). Title and content are rendered in the reader's language; `params` carries their structure.",
      },
    })
    .get(
      '/stream',
      async ({ user, sessionId, query, headers, request, server }) => {
        // Bun closes connections idle for 10 s by default; a stream is kept alive by its pings.
        server?.timeout?.(request, 0)
        const header = headers['last-event-id']?.trim()
        const last = header && UUID.test(header) ? header : (query.lastEventId ?? null)
        const { locale } = await service.readerOf(sql, user.id, headers['accept-language'], clock.now())
        return hub.open(user, sessionId, resolveLocale(locale, null), last)
      },
      {
        auth: true,
        query: StreamQuery,
        detail: {
          summary: 'Live updates (server-sent events)',
          description:
            '`text/event-stream`, `Cache-Control: no-store`. `event: counts` (`{ unreadCount, unreadReminderCount }`) on connect and after every change; `event: notification` with `id: <notification id>` and the notification as in GET /notifications for every new one; `: ping` at least every 25 s. `Last-Event-ID` (header, or `lastEventId` query) first replays newer notifications, oldest first, at most 100. Across instances through PostgreSQL LISTEN/NOTIFY. Ends within a heartbeat after the session ends (logout on any instance). At most 10 open streams per user, counted across instances: the 11th → 429 (42900).',
          responses: { 200: { description: 'An event stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
        },
      },
    )
    .patch('/read-all', async ({ user }) => ok(await service.readAll(sql, user.id, clock.now())), {
      auth: true,
      response: { 200: envelope(ReadAllResult) },
      detail: { summary: 'Mark all my notifications read', description: '`updated` is how many were unread.' },
    })
    .patch(
      '/:notificationId/read',
      async ({ user, params, headers }) =>
        ok(await service.readOne(sql, user.id, params.notificationId, headers['accept-language'], clock.now())),
      {
        auth: true,
        params: NotificationParams,
        response: { 200: envelope(Notification) },
        detail: {
          summary: 'Mark one notification read',
          description: "Idempotent: repeating it keeps the first readAt. Another user's notification → 404.",
        },
      },
    )
}
