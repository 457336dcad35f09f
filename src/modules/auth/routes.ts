import { Elysia } from 'elysia'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { requestLocale } from '../../i18n/request.ts'
import { clearSessionCookie } from './session.ts'
import { envelope, iso, ok } from '../../http/envelope.ts'
import { AppError } from '../../http/errors.ts'
import { clientIp } from '../../http/client-ip.ts'
import { LoginBody, LoginResult, Me, RegisterBody, UpdateMeBody, User } from './model.ts'
import * as service from './service.ts'

export function authRoutes(deps: Deps) {
  const { sql, clock, config } = deps
  // PASSWORD_LOGIN=false: single sign-on is the only way in. Refused in `transform`, before the
  // body is validated, like the auth macros.
  const passwordLoginOnly = () => {
    if (!config.passwordLogin) {
      throw new AppError('PASSWORD_LOGIN_DISABLED', 'Password login is turned off on this server. Sign in with single sign-on instead.')
    }
  }
  return new Elysia({ prefix: '/auth', tags: ['Auth'] })
    .use(authPlugin(deps))
    .post(
      '/register',
      async ({ body, set, request }) => {
        set.status = 201
        return ok(await service.register(sql, body, { now: clock.now(), config, emailEnabled: deps.emailEnabled, locale: requestLocale(request) }), 'Registered.')
      },
      {
        transform: passwordLoginOnly,
        body: RegisterBody,
        response: { 201: envelope(Me) },
        detail: {
          summary: 'Register an account',
          description:
            'Role defaults to STUDENT. `locale` is optional: without it the user has not chosen a language and the browser (Accept-Language) decides. 409 when the username or email is taken. With `TEACHER_REGISTRATION=closed`, `role: TEACHER` → 403 (40301). With e-mail configured, a verification link is mailed to the address (`emailVerified` stays false until it is used).',
        },
      },
    )
    .post(
      '/login',
      async ({ body, tokens, cookie, request, server, headers }) => {
        const result = await service.login(sql, body, {
          now: clock.now(),
          ip: clientIp(request, server, config.trustProxy),
          userAgent: headers['user-agent']?.slice(0, 256) ?? null,
          config,
          sign: (p) => tokens.sign(p),
          cookie,
        })
        return ok({ ...result, expiresAt: iso(result.expiresAt)! }, 'Logged in.')
      },
      {
        transform: passwordLoginOnly,
        body: LoginBody,
        response: { 200: envelope(LoginResult) },
        detail: {
          summary: 'Log in with username or email',
          description:
            'Sets an HttpOnly session cookie and returns the same login state as a bearer token. Repeated failures are rate limited (429 with Retry-After).',
        },
      },
    )
    .get('/me', async ({ user }) => ok(await service.withPendingInvitations(sql, service.toUser(user))), {
      auth: true,
      response: { 200: envelope(Me) },
      detail: {
        summary: 'The current user',
        description: '`pendingCourseInvitations`: courses that imported this address in their class list and that this (unverified student) account joins once its address is verified.',
      },
    })
    .patch('/me', async ({ user, body }) => ok(await service.updateMe(sql, user, body), 'Saved.'), {
      auth: true,
      body: UpdateMeBody,
      response: { 200: envelope(User) },
      detail: {
        summary: "Change the current user's settings",
        description:
          '`locale` (`en`, `zh-CN`, or null to follow the browser) is the language of the web app and of the messages the service writes for this user; `displayName` as at registration.',
      },
    })
    .post(
      '/logout',
      async ({ sessionId, cookie }) => {
        await service.logout(sql, sessionId, clock.now())
        // Always answer with an expired cookie, also when the token came by header.
        clearSessionCookie(cookie, config)
        return ok(null, 'Logged out.')
      },
      {
        auth: true,
        detail: { summary: 'End the current login', description: 'The token stops working for both the cookie and the bearer header.' },
      },
    )
}
