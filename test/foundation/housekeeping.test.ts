import { expect, test } from 'bun:test'
import { defaultJobs } from '../../src/jobs.ts'
import { ManualClock, signUp, testApp } from '../support/harness.ts'

test('housekeeping removes expired and revoked sessions and stale throttle windows, nothing else', async () => {
  const clock = new ManualClock('2026-11-22T08:00:00.000Z')
  const { api, deps } = await testApp({ clock, config: { tokenTtlSeconds: 3600 } })
  const expired = await signUp(api)
  const revoked = await signUp(api)
  await api.post('/auth/logout', { token: revoked.token })
  clock.advance(30 * 60_000)
  const live = await signUp(api)
  clock.advance(31 * 60_000)
  // The throttle window is 15 minutes by default.
  await deps.sql`insert into login_throttle (key, window_started_at, failures) values
    (${`id:stale-${live.id}`}, ${new Date(clock.now().getTime() - 16 * 60_000)}, 3),
    (${`id:fresh-${live.id}`}, ${new Date(clock.now().getTime() - 60_000)}, 1)`

  const job = defaultJobs(deps).find((j) => j.name === 'housekeeping')!
  await job.run(clock.now())

  const sessions = await deps.sql<{ user_id: string }[]>`
    select user_id from sessions where user_id in ${deps.sql([expired.id, revoked.id, live.id])}`
  expect(sessions.map((s) => s.user_id)).toEqual([live.id])
  const keys = await deps.sql<{ key: string }[]>`select key from login_throttle where key like ${`%${live.id}`} order by key`
  expect(keys.map((k) => k.key)).toEqual([`id:fresh-${live.id}`])
  expect((await api.get('/auth/me', { token: live.token })).status).toBe(200)
})
