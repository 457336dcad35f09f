import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { InboxQuery, Notification, NotificationPage, NotificationParams, ReadAllResult } from './model.ts'
import * as service from './service.ts'

export function notificationRoutes(deps: Deps) {
  const { sql, clock } = deps
  return new Elysia({ prefix: '/notifications', tags: ['Notifications'] })
    .use(authPlugin(deps))
    .get('', async ({ user, query }) => ok(await service.inbox(sql, user.id, query)), {
      auth: true,
      query: InboxQuery,
      response: { 200: envelope(NotificationPage) },
      detail: {
        summary: 'My inbox',
        description:
          "Newest first. `unreadOnly` accepts only 'true' or 'false' (default false). `unreadCount` counts all unread notifications; `total` counts those matching the filter.",
      },
    })
    .patch('/read-all', async ({ user }) => ok(await service.readAll(sql, user.id, clock.now())), {
      auth: true,
      response: { 200: envelope(ReadAllResult) },
      detail: { summary: 'Mark all my notifications read', description: '`updated` is how many were unread.' },
    })
    .patch(
      '/:notificationId/read',
      async ({ user, params }) => ok(await service.readOne(sql, user.id, params.notificationId, clock.now())),
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
