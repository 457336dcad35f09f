import { expect, test } from 'bun:test'
import { ApiError } from '../../src/web/client/api.ts'
import { MAX_QUERY_RETRIES, QUERY_RETRY_DELAY_MS, queryRetry, queryRetryDelay } from '../../src/web/client/query-retry.ts'

/** Issue 27, finding 9: a failed request shows its error quickly (few, short automatic retries). */
test('queries retry once, soon, and only what a moment can fix (issue 27.9)', () => {
  const err = (status: number) => new ApiError(status, status * 100, 'x')
  for (const status of [0, 502, 503, 504]) {
    expect(queryRetry(0, err(status))).toBe(true)
    expect(queryRetry(1, err(status))).toBe(false)
  }
  for (const status of [400, 401, 403, 404, 409, 413, 429, 500]) expect(queryRetry(0, err(status))).toBe(false)
  expect(queryRetry(0, new Error('not an api error'))).toBe(false)
  // Worst case before the error shows: every retry's delay, well under a second.
  expect(MAX_QUERY_RETRIES * queryRetryDelay()).toBeLessThanOrEqual(QUERY_RETRY_DELAY_MS)
  expect(QUERY_RETRY_DELAY_MS).toBeLessThan(1000)
})
