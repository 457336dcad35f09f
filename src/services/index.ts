import type { Deps } from '../deps.ts'
import { oidcClient } from '../infra/oidc.ts'
import { OverviewCache } from '../lib/overview-cache.ts'
import { countGradebookCache } from '../metrics.ts'
import { StreamHub } from '../modules/notifications/stream.ts'
import { CALLBACK_PATH } from '../modules/sso/model.ts'
import { createImportRunner } from '../modules/transfer/job.ts'
import { createBackground } from './background.ts'
import { channelsOn } from './channels.ts'
import { createFanout } from './fanout.ts'

/*
 * The shared services of one app, built once where the app is composed (src/server.ts, the test
 * harness, the benches) and passed in `Deps`, so that no module finds them through a lookup of
 * its own (issue 50: they were WeakMaps keyed by Deps). The routes are mounted under two prefixes
 * (`/api/v1`, `/core/api/v1`) and their functions run once for each: a service made there would
 * be made twice. Nothing under src/modules imports this folder.
 */

/** The services `withServices` builds. */
export type ServiceKeys = 'fanout' | 'streams' | 'overviewCache' | 'oidc' | 'imports' | 'background' | 'channels'

/** Deps as the caller has them: everything but the services built here (a given one is kept). */
export type BaseDeps = Omit<Deps, ServiceKeys> & Partial<Pick<Deps, ServiceKeys>>

/**
 * `base` with its services: the background fan-out runner (`fanout`), the live-stream hub
 * (`streams`), the grade overview cache (`overviewCache`), the OpenID relying party (`oidc`) and
 * the course import runner (`imports`) and the background work of requests (`background`) and the notification channels this process
 * delivers on (`channels`). None of them does anything before it is first used.
 */
export function withServices(base: BaseDeps): Deps {
  const deps = { ...base } as Deps
  const { config } = deps
  deps.fanout ??= createFanout(deps)
  deps.streams ??= new StreamHub(
    { sql: deps.sql, clock: deps.clock, log: deps.log, embedded: deps.db.kind === 'embedded', listenUrl: config.databaseListenUrl },
    config.streamHeartbeatSeconds * 1000,
  )
  if (deps.overviewCache === undefined) deps.overviewCache = config.gradebookCacheBytes > 0 ? new OverviewCache(config.gradebookCacheBytes, countGradebookCache) : null
  if (deps.oidc === undefined) deps.oidc = config.oidc ? oidcClient(config.oidc, `${config.publicUrl}${CALLBACK_PATH}`) : null
  deps.imports ??= createImportRunner(deps)
  deps.background ??= createBackground()
  deps.channels ??= channelsOn(deps)
  return deps
}
