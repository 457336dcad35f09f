import type { Deps } from '../deps.ts'
import type { Fanout } from '../lib/fanout.ts'
import { createFanout } from './fanout.ts'

/*
 * The shared services of one app, built once where the app is composed (src/server.ts, the test
 * harness, the benches) and passed in `Deps`, so that no module finds them through a lookup of
 * its own. Nothing under src/modules imports this folder.
 */

/** Deps as the caller has them: everything but the services built here (a given one is kept). */
export type BaseDeps = Omit<Deps, 'fanout'> & { fanout?: Fanout }

/** `base` with its services: the background fan-out runner (`Deps.fanout`). */
export function withServices(base: BaseDeps): Deps {
  const deps = { ...base } as Deps
  deps.fanout ??= createFanout(deps)
  return deps
}
