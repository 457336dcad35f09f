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
