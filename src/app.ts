import { ltiProtocolRoutes, ltiRoutes } from './modules/lti/routes.ts'
import { Elysia, type AnyElysia } from 'elysia'
import type { Deps } from './deps.ts'
import { docs, docsUi } from './docs/openapi.ts'
import { corsPolicy } from './http/cors.ts'
import { passResponsesThrough } from './http/envelope.ts'
import { ownBodyIndex, plumbing, routeMethodIndex } from './http/plumbing.ts'
import { accountRoutes } from './modules/accounts/routes.ts'
import { announcementRoutes } from './modules/announcements/routes.ts'
import { commentRoutes } from './modules/comments/routes.ts'
import { authRoutes } from './modules/auth/routes.ts'
import { calendarFeedRoute, calendarRoutes } from './modules/calendar/routes.ts'
import { courseRoutes } from './modules/courses/routes.ts'
import { rosterRoutes } from './modules/rosters/routes.ts'
import { CHANNELS } from './services/channels.ts'
import { emailRoutes } from './modules/email/routes.ts'
import { experimentRoutes } from './modules/experiments/routes.ts'
import { gradeRoutes } from './modules/grades/routes.ts'
import { analyticsRoutes } from './modules/analytics/routes.ts'
import { healthRoutes } from './modules/health/routes.ts'
import { homeworkRoutes } from './modules/homework/routes.ts'
import { learningRoutes } from './modules/learning/routes.ts'
import { notificationRoutes } from './modules/notifications/routes.ts'
import { reminderRoutes } from './modules/reminders/routes.ts'
import { resourceRoutes } from './modules/resources/routes.ts'
import { ssoRoutes } from './modules/sso/routes.ts'
import { termRoutes } from './modules/terms/routes.ts'
import { transferRoutes } from './modules/transfer/routes.ts'
import { workspaceRoutes } from './modules/workspace/routes.ts'
import { webRoutes } from './web/routes.ts'

/** Every business route, mounted under a prefix: `/api/v1`, and `/core/api/v1` for the web front end. */
export function apiRoutes(deps: Deps, prefix: string) {
  return new Elysia({ prefix })
    .use(authRoutes(deps))
    .use(accountRoutes(deps))
    .use(ssoRoutes(deps))
    .use(transferRoutes(deps))
    .use(courseRoutes(deps))
    .use(rosterRoutes(deps))
    .use(announcementRoutes(deps))
    .use(commentRoutes(deps))
    .use(workspaceRoutes(deps))
    .use(learningRoutes(deps))
    .use(homeworkRoutes(deps))
    .use(reminderRoutes(deps))
    .use(notificationRoutes(deps, CHANNELS))
    .use(emailRoutes(deps))
    .use(experimentRoutes(deps))
    .use(resourceRoutes(deps))
    .use(gradeRoutes(deps))
    .use(analyticsRoutes(deps))
    .use(calendarRoutes(deps))
    .use(termRoutes(deps))
    .use(ltiRoutes(deps))
}

/** Builds the whole HTTP application without listening: server.ts listens, tests call `app.handle`. */
export function buildApp(deps: Deps) {
  // The root app is known only once built; the docs and the 405 lookup read it lazily.
  let root: AnyElysia | undefined
  const app = new Elysia()
    .use(
      plumbing({
        log: deps.log,
        methodsFor: routeMethodIndex(() => root?.routes ?? []),
        readsOwnBody: ownBodyIndex(() => root?.routes ?? []),
        maxUploadBytes: deps.config.maxUploadBytes,
        now: () => deps.clock.now(),
      }),
    )
    .use(corsPolicy(deps.config.corsOrigins))
    .use(docs(() => root!))
    .use(docsUi())
    .use(healthRoutes(deps))
    .use(calendarFeedRoute(deps))
    .use(ltiProtocolRoutes(deps))
    .use(apiRoutes(deps, '/api/v1'))
    .use(apiRoutes(deps, '/core/api/v1'))
    .use(webRoutes(deps))
  root = app
  // The switch is this app's (Deps), not the process's: its own routes' envelopes only.
  if (!deps.config.validateResponses) passResponsesThrough(app.routes)
  return app
}

export type App = ReturnType<typeof buildApp>
