import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { clientIp } from '../../http/client-ip.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { requestLocale } from '../../i18n/request.ts'
import { User } from '../auth/model.ts'
import { clearSessionCookie } from '../auth/session.ts'
import { ChangeEmailBody, ChangePasswordBody, ForgotBody, ResetBody, SessionItem, SessionParams, TokenBody } from './model.ts'
import * as service from './service.ts'

/** Verified addresses, password recovery and change, and the caller's sessions (issue 21). */
export function accountRoutes(deps: Deps) {
  const { sql, clock, config } = deps
  const d: service.AccountDeps = { sql, config, emailEnabled: deps.emailEnabled, log: deps.log, background: deps.background }
  return new Elysia({ prefix: '/auth', tags: ['Auth'] })
    .use(authPlugin(deps))
    .get('/email/settings', () => ok({ enabled: deps.emailEnabled }), {
      response: { 200: envelope(z.object({ enabled: z.boolean() }).meta({ id: 'EmailSettings' })) },
      detail: {
        summary: 'Whether this server sends e-mail',
        description: 'No login. `enabled` false (no `SMTP_URL`): no verification mails, no reset by e-mail (the web app then hides the banner and points to the school).',
      },
    })
    .post('/email/verify', async ({ body }) => ok(await service.verifyEmail(d, body.token, clock.now()), 'Your e-mail address is verified.'), {
      body: TokenBody,
      response: { 200: envelope(User) },
      detail: {
        summary: 'Use a verification (or address-change) link',
        description:
          'No login: the token from the mailed link `/verify-email?token=…` is the credential. → the user with `emailVerified: true` (and the new address, for an address change). Unknown, used or expired token → 400 (40002); the address taken by another account meanwhile → 409 (40902).',
      },
    })
    .post(
      '/email/verification',
      async ({ user, request, set }) => {
        await service.resendVerification(d, user, requestLocale(request), clock.now())
        set.status = 202
        return ok(null, 'A new verification e-mail is on its way.')
      },
      {
        auth: true,
        response: { 202: envelope(z.null()) },
        detail: {
          summary: 'Send a new verification mail',
          description: '202 and a new link to the current address (older links stop working). More than 1 a minute or 5 a day → 429. Already verified → 409 (40900); no e-mail configured → 409 (40905).',
        },
      },
    )
    .post(
      '/email/change',
      async ({ user, body, request, server, set }) => {
        await service.changeEmail(d, user, body, { ip: clientIp(request, server, config.trustProxy), locale: requestLocale(request), now: clock.now() })
        set.status = 202
        return ok(null, 'We sent a link to the new address; the change takes effect when it is opened.')
      },
      {
        auth: true,
        body: ChangeEmailBody,
        response: { 202: envelope(z.null()) },
        detail: {
          summary: 'Change my e-mail address',
          description:
            '202: a verification link goes to `newEmail`; the address changes when it is used (409 if taken meanwhile), and the old address, if verified, gets a notice. A wrong `currentPassword` → 400 and counts as a failed login. Address taken → 409 (40902). At most 1 a minute and 5 a day.',
        },
      },
    )
    .post(
      '/password/forgot',
      async ({ body, request, server, set }) => {
        await service.forgotPassword(d, body, { ip: clientIp(request, server, config.trustProxy), locale: requestLocale(request), now: clock.now() })
        set.status = 202
        return ok(null, 'If an account with that username or e-mail exists, a reset link is on its way.')
      },
      {
        body: ForgotBody,
        response: { 202: envelope(z.null()) },
        detail: {
          summary: 'Ask for a password reset link',
          description:
            'Always 202 with the same body, whether or not the account exists (the account is looked up after the answer). An existing account gets a link valid `PASSWORD_RESET_TTL_SECONDS`; a newer link replaces older ones; at most 3 mails per account an hour. More than 20 requests an hour from one client address → 429. No e-mail configured → 409 (40905).',
        },
      },
    )
    .post('/password/reset', async ({ body }) => ok(await service.resetPassword(d, body, clock.now()), 'Your password was changed. Log in with the new one.'), {
      body: ResetBody,
      response: { 200: envelope(User) },
      detail: {
        summary: 'Choose a new password with a reset link',
        description:
          'The password is replaced, the address counts as verified, every session of the account ends (cookie and bearer, every instance), and its login-throttling failures are cleared. Unknown, used or expired token → 400 (40002).',
      },
    })
    .post(
      '/password/change',
      async ({ user, sessionId, body, request, server }) => {
        await service.changePassword(d, user, sessionId, body, { ip: clientIp(request, server, config.trustProxy), now: clock.now() })
        return ok(null, 'Your password was changed. Your other sessions were signed out.')
      },
      {
        auth: true,
        body: ChangePasswordBody,
        detail: {
          summary: 'Change my password',
          description: 'Every other session of the account ends; this one stays. A wrong `currentPassword` → 400 (field `currentPassword`) and counts as a failed login (429 once a throttling scope is full).',
        },
      },
    )
    .get('/sessions', async ({ user, sessionId }) => ok(await service.listSessions(sql, user, sessionId, clock.now())), {
      auth: true,
      response: { 200: envelope(z.array(SessionItem)) },
      detail: { summary: 'My active sessions', description: 'Newest first; `current` marks this one; `lastUsedAt` may lag by up to a minute.' },
    })
    .delete(
      '/sessions/:sessionId',
      async ({ user, sessionId, params, cookie }) => {
        await service.endSession(sql, user, params.sessionId, clock.now())
        if (params.sessionId === sessionId) clearSessionCookie(cookie, config)
        return ok(null, 'Signed out.')
      },
      {
        auth: true,
        params: SessionParams,
        detail: { summary: 'Sign out one of my sessions', description: 'That session ends at once on every instance. Another user’s (or an ended) session → 404.' },
      },
    )
}
