import { beforeAll, describe, expect, test } from 'bun:test'
import { loadConfig } from '../../src/config.ts'
import type { Sql } from '../../src/db/connect.ts'
import { defaultJobs } from '../../src/jobs.ts'
import { newId } from '../../src/lib/ids.ts'
import { purgeReadNotifications } from '../../src/modules/notifications/retention.ts'
import { signUp, testApp, testConfig, usingExternalDb, type Account, type TestContext } from '../support/harness.ts'

/*
 * NOTIFICATION_RETENTION_DAYS (issue 26): read notifications older than the retention are deleted
 * in batches, unread ones never; the counters stay exact; two runs at once delete each row once.
 */
const DAY = 86_400_000
// Long before any other test file's dates: the purge goes oldest first through the shared
// database, so these rows are the first it meets (a run stops after 200 batches).
const NOW = new Date('2000-01-10T12:00:00.000Z')
const ago = (days: number) => new Date(NOW.getTime() - days * DAY)
let ctx: TestContext
let sql: Sql
beforeAll(async () => {
  ctx = await testApp()
  sql = ctx.deps.sql
})

async function seed(user: Account, rows: { days: number; read: boolean }[]) {
  const list = rows.map((r, i) => ({
    id: newId(),
    user_id: user.id,
    notification_type: i % 2 ? 'ANNOUNCEMENT' : 'HOMEWORK_REMINDER',
    title: `N${i}`,
    content: '',
    delivered_at: ago(r.days),
    read_at: r.read ? ago(r.days) : null,
  }))
  await sql`insert into notifications ${sql(list)}`
  return list
}
const counters = async (userId: string) =>
  (await sql<{ total: number; unread: number; unread_reminders: number }[]>`
    select total, unread, unread_reminders from notification_counters where user_id = ${userId}`)[0]
const actual = async (userId: string) =>
  (await sql<{ total: number; unread: number; unread_reminders: number }[]>`
    select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread,
           (count(*) filter (where read_at is null and notification_type = 'HOMEWORK_REMINDER'))::int as unread_reminders
      from notifications where user_id = ${userId}`)[0]

describe('notification retention', () => {
  test('deletes read notifications older than the retention, in batches; keeps unread and recent ones; counters exact', async () => {
    const user = await signUp(ctx.api)
    const rows = await seed(user, [
      ...Array.from({ length: 7 }, () => ({ days: 40, read: true })),
      ...Array.from({ length: 3 }, () => ({ days: 40, read: false })),
      ...Array.from({ length: 4 }, () => ({ days: 10, read: true })),
      ...Array.from({ length: 2 }, () => ({ days: 1, read: false })),
    ])
    // (Other test files share the database: what the purge returns counts their rows too.)
    const mine = async () => new Set((await sql<{ id: string }[]>`select id from notifications where user_id = ${user.id}`).map((r) => r.id))
    // A day before, nothing of this user's is old enough; then batches of 3.
    await purgeReadNotifications(sql, ago(31), 30, 3)
    expect((await mine()).size).toBe(16)
    expect(await purgeReadNotifications(sql, NOW, 30, 3)).toBeGreaterThanOrEqual(7)
    expect(await mine()).toEqual(new Set(rows.slice(7).map((r) => r.id)))
    expect(await counters(user.id)).toEqual(await actual(user.id))
    expect(await counters(user.id)).toMatchObject({ total: 9, unread: 5 })
    // The inbox over HTTP agrees.
    const inbox = await ctx.api.get('/notifications?pageSize=50', { token: user.token })
    expect(inbox.status).toBe(200)
    expect(inbox.data.total).toBe(9)
    expect(inbox.data.unreadCount).toBe(5)
    expect(inbox.data.items).toHaveLength(9)
    // 0 days: retention off.
    expect(await purgeReadNotifications(sql, new Date(NOW.getTime() + 1000 * DAY), 0)).toBe(0)
  })

  test.skipIf(!usingExternalDb())('two instances at once delete each row once; counters exact', async () => {
    const users = await Promise.all([signUp(ctx.api), signUp(ctx.api)])
    for (const u of users) await seed(u, Array.from({ length: 300 }, (_, i) => ({ days: 40 + (i % 5), read: i % 10 !== 0 })))
    const runs = await Promise.all([0, 1, 2].map(() => purgeReadNotifications(sql, NOW, 30, 25)))
    expect(runs.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2 * 270)
    for (const u of users) {
      expect(await counters(u.id)).toEqual(await actual(u.id))
      expect(await counters(u.id)).toMatchObject({ total: 30, unread: 30 })
    }
  })

  test('the job runs only when NOTIFICATION_RETENTION_DAYS is set', () => {
    const names = (days?: string) =>
      defaultJobs({ ...ctx.deps, config: testConfig(loadConfig(days ? { NOTIFICATION_RETENTION_DAYS: days } : {})) }).map((j) => j.name)
    expect(names()).not.toContain('notification-retention')
    expect(names('90')).toContain('notification-retention')
    expect(() => loadConfig({ NOTIFICATION_RETENTION_DAYS: '-1' })).toThrow()
  })
})
