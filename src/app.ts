import { Elysia } from 'elysia'
import type { Deps } from './deps.ts'
import { docs, docsUi } from './docs/openapi.ts'
import { plumbing, routeMethodIndex } from './http/plumbing.ts'
import { authRoutes } from './modules/auth/routes.ts'
import { healthRoutes } from './modules/health/routes.ts'
import { webRoutes } from './web/routes.ts'

/** Every business route, mounted under a prefix: `/api/v1`, and `/core/api/v1` for the web front end. */
export function apiRoutes(deps: Deps, prefix: string) {
  return new Elysia({ prefix }).use(authRoutes(deps))
}

/** Builds the whole HTTP application without listening: server.ts listens, tests call `app.handle`. */
export function buildApp(deps: Deps) {
  let routes: () => { method: string; path: string }[] = () => []
  const app = new Elysia()
    .use(plumbing({ log: deps.log, methodsFor: routeMethodIndex(() => routes()) }))
    .use(docs())
    .use(docsUi())
    .use(healthRoutes(deps))
    .use(apiRoutes(deps, '/api/v1'))
    .use(apiRoutes(deps, '/core/api/v1'))
    .use(webRoutes(deps))
  routes = () => app.routes
  return app
}

export type App = ReturnType<typeof buildApp>
