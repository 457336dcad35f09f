/**
 * Waiting for state without fixed sleeps: poll until the state is there, with a deadline that
 * names what was awaited. Tests use these instead of `Bun.sleep(n)` followed by a check; a sleep
 * in a test is only for a scenario that needs time to pass (and says why next to it).
 */
export interface WaitOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number
  /** Between two probes (default 50 ms). */
  intervalMs?: number
  /** Named in the error at the deadline. */
  what?: string
}

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Calls `probe` until it returns a truthy value, and returns that value. */
export async function waitFor<T>(probe: () => T | Promise<T>, opts: WaitOptions = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000)
  for (;;) {
    const value = await probe()
    if (value) return value as NonNullable<T>
    if (Date.now() >= deadline) throw new Error(`timed out after ${opts.timeoutMs ?? 10_000} ms waiting for ${opts.what ?? 'a condition'}`)
    await pause(opts.intervalMs ?? 50)
  }
}

/** Runs `assertion` (expect calls) until it stops throwing; at the deadline its last error is thrown. */
export async function eventually<T>(assertion: () => T | Promise<T>, opts: WaitOptions = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000)
  for (;;) {
    try {
      return await assertion()
    } catch (e) {
      if (Date.now() >= deadline) throw e
    }
    await pause(opts.intervalMs ?? 50)
  }
}

/** Finished runs (ok or failed) of the scheduled job `job` on the process serving metrics at `metricsPort` (job_runs_total). */
export async function jobRuns(metricsPort: number, job: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
  let n = 0
  for (const m of text.matchAll(/^job_runs_total\{([^}]*)\} (\d+)$/gm)) if (m[1]!.includes(`job="${job}"`)) n += Number(m[2])
  return n
}

/**
 * Waits until `job` has finished `runs` more runs on every process (by their METRICS_PORTs) than
 * when called: "nothing happened twice" is checked after whole runs, not after a guessed sleep.
 */
export async function afterJobRuns(metricsPorts: number[], job: string, runs: number, opts: WaitOptions = {}) {
  const start = await Promise.all(metricsPorts.map((p) => jobRuns(p, job)))
  await waitFor(async () => (await Promise.all(metricsPorts.map((p) => jobRuns(p, job)))).every((n, i) => n >= start[i]! + runs), {
    intervalMs: 100,
    timeoutMs: 20_000,
    what: `${runs} more runs of ${job} on every instance`,
    ...opts,
  })
}

