import { expect, test } from 'bun:test'
import { signUp, testApp } from '../support/harness.ts'

/** Issue 27, finding 4: parallel first uses of the calendar feed agree on one URL. */
test('parallel first GET /me/calendar for a new user → every call 200 with one URL (issue 27.4)', async () => {
  const { api, deps } = await testApp()
  for (let round = 0; round < 3; round++) {
    const user = await signUp(api)
    const all = await Promise.all(Array.from({ length: 12 }, () => api.get('/me/calendar', { token: user.token })))
    expect(all.map((r) => [r.status, r.code])).toEqual(all.map(() => [200, 0]))
    expect(new Set(all.map((r) => r.data.url)).size).toBe(1)
    const [row] = await deps.sql<{ n: number }[]>`select count(*)::int as n from calendar_feeds where user_id = ${user.id}`
    expect(row!.n).toBe(1)
    expect(all[0]!.data.url).toEndWith('.ics')
  }
})
