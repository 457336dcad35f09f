/**
 * Serialised grade overviews by course, page and gradebook version (sql/030), least recently
 * used first out, bounded by bytes. An entry is only ever served for the version it was built
 * from: the version is read in the same snapshot as the request's data, so a hit is exactly what
 * a fresh build would write, on any instance. One per app, built by `withServices`
 * (src/services/index.ts) and passed as `Deps.overviewCache`; GRADEBOOK_CACHE_MB = 0 turns it off
 * (null). Each lookup is reported to `count` (the metrics counter, given by the composition root).
 */
export interface CachedOverview {
  version: string
  /** The whole response body (envelope included), UTF-8. */
  body: Uint8Array<ArrayBuffer>
  /** Strong validator of `body` (a hash of it): the ETag. */
  etag: string
  /**
   * The span of time (epoch ms) the body holds for: a cell turns MISSING when its column's due
   * time passes, with no write. From the latest due time already past at the build (exclusive)
   * to the next one (inclusive, src/lib/due.ts: overdue from due + 1 ms); unbounded ends are
   * ±Infinity.
   */
  after: number
  until: number
}

/** Whether `entry` was built in the same due-time span as `now` (see `CachedOverview.after`). */
export const holdsAt = (entry: Pick<CachedOverview, 'after' | 'until'>, now: number) => now > entry.after && now <= entry.until

/** What a lookup found: a fresh entry, nothing usable, or another request's build under way. */
export type CacheLookup = 'hit' | 'miss' | 'shared'

export class OverviewCache {
  private readonly entries = new Map<string, CachedOverview>()
  private readonly inFlight = new Map<string, Promise<CachedOverview>>()
  private bytes = 0

  constructor(
    private readonly maxBytes: number,
    private readonly count: (result: CacheLookup) => void = () => {},
  ) {}

  get(key: string, version: string, now: number): CachedOverview | undefined {
    const entry = this.entries.get(key)
    if (!entry || entry.version !== version || !holdsAt(entry, now)) {
      this.count('miss')
      return undefined
    }
    // Most recently used last.
    this.entries.delete(key)
    this.entries.set(key, entry)
    this.count('hit')
    return entry
  }

  set(key: string, entry: CachedOverview) {
    const old = this.entries.get(key)
    if (old) {
      this.entries.delete(key)
      this.bytes -= old.body.byteLength
    }
    if (entry.body.byteLength > this.maxBytes) return
    this.entries.set(key, entry)
    this.bytes += entry.body.byteLength
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(k)
      this.bytes -= e.body.byteLength
    }
  }

  /** The build of `key` at `version` under way on this instance, if any. */
  building(key: string, version: string): Promise<CachedOverview> | undefined {
    const pending = this.inFlight.get(`${key}@${version}`)
    if (pending) this.count('shared')
    return pending
  }

  /** Registers a build until it settles (a failed build is not shared after it failed). */
  track(key: string, version: string, build: Promise<CachedOverview>) {
    const k = `${key}@${version}`
    this.inFlight.set(k, build)
    const done = () => void (this.inFlight.get(k) === build && this.inFlight.delete(k))
    build.then(done, done)
  }

  get size() {
    return { entries: this.entries.size, bytes: this.bytes }
  }
}
