import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { UnsubscribeQuery, UnsubscribeResult } from './model.ts'
import * as service from './service.ts'

export function emailRoutes(deps: Deps) {
  const { sql, clock } = deps
  return new Elysia({ tags: ['Notifications'] })
    .use(authPlugin(deps))
    .post(
      '/email/unsubscribe',
      async ({ query }) => ok(await service.unsubscribe(sql, deps.config.jwtSecret, query.token, clock.now()), 'You will no longer receive these e-mails.'),
      {
        query: UnsubscribeQuery,
        // The body (`List-Unsubscribe=One-Click`, form-encoded per RFC 8058) carries nothing we need.
        parse: 'none',
        response: { 200: envelope(UnsubscribeResult) },
        detail: {
          summary: 'One-click unsubscribe (RFC 8058)',
          description:
            'The target of List-Unsubscribe in e-mails. No login: the signed `token` names the user and the notification type, which is turned off. Accepts application/x-www-form-urlencoded (`List-Unsubscribe=One-Click`), the only route that does. Invalid token → 400.',
        },
      },
    )
}
