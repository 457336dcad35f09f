/**
 * The load generator, in its own thread so the clients do not share the server's event loop.
 * N clients loop over a list of prepared requests (round robin, shared cursor): for a fixed
 * duration after a warm-up, or for a fixed number of requests. Only 127.0.0.1 URLs.
 */
import type { LoadJob, LoadResult } from './load.ts'

declare var self: Worker

self.onmessage = async (ev: MessageEvent<LoadJob>) => {
  const job = ev.data
  for (const r of job.requests) {
    if (!r.url.startsWith('http://127.0.0.1:')) throw new Error(`refusing a non-local URL: ${r.url}`)
  }
  let cursor = 0
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  let firstError: string | null = null
  const started = performance.now()
  const measureFrom = started + (job.warmupMs ?? 0)
  const stopAt = job.durationMs !== undefined ? measureFrom + job.durationMs : Infinity
  const max = job.maxRequests ?? Infinity
  let issued = 0
  let measuredEnd = measureFrom

  async function client() {
    for (;;) {
      const now = performance.now()
      if (now >= stopAt || issued >= max) return
      issued++
      const r = job.requests[cursor++ % job.requests.length]!
      const t0 = performance.now()
      let status = 0
      let text = ''
      try {
        const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body })
        status = res.status
        text = await res.text()
      } catch (e) {
        text = String(e)
      }
      const t1 = performance.now()
      if (t0 >= measureFrom && t1 <= stopAt) {
        latencies.push(t1 - t0)
        statuses[status] = (statuses[status] ?? 0) + 1
        if (t1 > measuredEnd) measuredEnd = t1
        if ((status < 200 || status >= 300) && firstError === null) firstError = `${status} ${text.slice(0, 300)}`
      }
    }
  }

  await Promise.all(Array.from({ length: job.concurrency }, client))
  const windowMs = job.durationMs !== undefined ? job.durationMs : measuredEnd - measureFrom
  const result: LoadResult = { latencies, statuses, windowMs, firstError }
  postMessage(result)
}
