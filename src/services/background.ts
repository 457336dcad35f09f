import type { Background } from '../deps.ts'

/** One app's background work (`Deps.background`): a set of promises, each dropped when it settles. */
export function createBackground(): Background {
  const pending = new Set<Promise<unknown>>()
  return {
    add(work) {
      pending.add(work)
      void work.finally(() => pending.delete(work)).catch(() => {})
    },
    async settled() {
      while (pending.size) await Promise.allSettled([...pending])
    },
  }
}
