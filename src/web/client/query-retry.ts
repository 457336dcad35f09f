import { ApiError } from './api.ts'

/**
 * How queries retry on their own before the page shows the failure. Only what a moment can
 * fix is retried, once and soon: no network answer (status 0) and a gateway or database that is
 * briefly unavailable (502, 503, 504). A 500 or any 4xx would fail the same way again: shown at
 * once. So a failed request shows its error within about half a second, not after ~7 s of
 * "Loading…" (three automatic retries with growing delays).
 */
export const MAX_QUERY_RETRIES = 1
export const QUERY_RETRY_DELAY_MS = 400

export const queryRetry = (failures: number, error: unknown) =>
  failures < MAX_QUERY_RETRIES && error instanceof ApiError && [0, 502, 503, 504].includes(error.status)

export const queryRetryDelay = () => QUERY_RETRY_DELAY_MS
