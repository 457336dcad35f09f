/** Runs a load job in a worker thread and summarises latencies. */

export interface PreparedRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: string
}

export interface LoadJob {
  requests: PreparedRequest[]
  concurrency: number
  /** Measure for this long after the warm-up… */
  durationMs?: number
  warmupMs?: number
  /** …or issue exactly this many requests (no warm-up). */
  maxRequests?: number
}

export interface LoadResult {
  latencies: number[]
  statuses: Record<string, number>
  windowMs: number
  firstError: string | null
}

export interface Summary {
  requests: number
  errors: number
  rps: number
  p50: number
  p95: number
  p99: number
  max: number
  mean: number
  firstError: string | null
}

export function runLoad(job: LoadJob): Promise<LoadResult> {
  const worker = new Worker(new URL('./load-worker.ts', import.meta.url).href)
  return new Promise<LoadResult>((resolve, reject) => {
    worker.onmessage = (ev: MessageEvent<LoadResult>) => {
      worker.terminate()
      resolve(ev.data)
    }
    worker.onerror = (e) => {
      worker.terminate()
      reject(new Error(e.message))
    }
    worker.postMessage(job)
  })
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number) {
  if (sorted.length === 0) return NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!
}

export function summarise(r: LoadResult): Summary {
  const sorted = [...r.latencies].sort((a, b) => a - b)
  const ok = Object.entries(r.statuses).reduce((n, [s, c]) => n + (Number(s) >= 200 && Number(s) < 300 ? c : 0), 0)
  return {
    requests: sorted.length,
    errors: sorted.length - ok,
    rps: sorted.length / (r.windowMs / 1000),
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
    mean: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1),
    firstError: r.firstError,
  }
}

/** GET `url` with a bearer `token` from `concurrency` clients for `seconds` after 0.5 s of warm-up; any error throws. */
export async function readRate(url: string, token: string, seconds: number, concurrency = 8): Promise<Summary> {
  const s = summarise(await runLoad({ requests: [{ method: 'GET', url, headers: { authorization: `Bearer ${token}` } }], concurrency, durationMs: seconds * 1000, warmupMs: 500 }))
  if (s.errors) throw new Error(`${url}: ${s.errors} errors (${s.firstError})`)
  return s
}

/**
 * Each measurement run forwards and then backwards (A B C C B A), `rounds` times; the results of
 * each, in the order they ran. A ratio of their means does not depend on which ran first, nor on
 * a machine whose speed drifts steadily meanwhile.
 */
export async function mirrored<T>(measures: readonly (() => Promise<T>)[], rounds = 1): Promise<T[][]> {
  const runs: T[][] = measures.map(() => [])
  const order = [...measures.keys(), ...[...measures.keys()].reverse()]
  for (let r = 0; r < rounds; r++) for (const i of order) runs[i]!.push(await measures[i]!())
  return runs
}

/** The mean of `mirrored`'s runs of one measure. */
export const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
