import { afterAll, describe, expect, test } from 'bun:test'
import { connectEmbedded, connectExternal, type Database } from '../../src/db/connect.ts'
import { CHURN_TABLES, LOCK_KEY, maintainDatabase } from '../../src/db/maintenance.ts'
import { migrate } from '../../src/db/migrate.ts'
import { defaultJobs } from '../../src/jobs.ts'
import { scratchDatabase } from '../support/processes.ts'
import { testApp } from '../support/harness.ts'
import { waitFor } from '../support/wait.ts'

/*
 * The database maintenance job (src/db/maintenance.ts): VACUUM (ANALYZE) of the churn tables
 * where no autovacuum does it. Issue 11 soak: with autovacuum off (this machine's server; the
 * embedded database has none) dead row versions piled up for the whole run.
 */

const cleanup: (() => Promise<unknown>)[] = []
afterAll(async () => {
  for (const c of cleanup.reverse()) await c()
})

/** Some dead rows in notifications: a user, notifications, all updated once. */
async function churn(db: Database) {
  const [u] = await db.sql<{ id: string }[]>`
    insert into users (id, username, email, password_hash, display_name, role)
    values (gen_uuid_v7(), 'churn' || floor(random() * 1e9)::text, 'churn' || floor(random() * 1e9)::text || '@example.test', 'x', 'Churn', 'STUDENT')
    returning id`
  await db.sql`
    insert into notifications (id, user_id, notification_type, title, content, delivered_at)
    select gen_uuid_v7(), ${u!.id}, 'ANNOUNCEMENT', 'n' || g, '', now() from generate_series(1, 500) g`
  await db.sql`update notifications set read_at = now() where user_id = ${u!.id}`
}

const lastVacuum = async (db: Database, table: string) =>
  (await db.sql<{ at: Date | null }[]>`select last_vacuum as at from pg_stat_user_tables where relname = ${table} and schemaname = current_schema()`)[0]?.at ?? null

describe('database maintenance', () => {
  test('is one of the default jobs, every 5 minutes unless DB_MAINTENANCE_CRON says otherwise', async () => {
    const { deps } = await testApp()
    const job = defaultJobs(deps).find((j) => j.name === 'db-maintenance')
    expect(job?.pattern).toBe('*/5 * * * *')
    const off = await testApp({ config: { dbMaintenanceCron: 'off' } })
    expect(defaultJobs(off.deps).find((j) => j.name === 'db-maintenance')?.pattern).toBe('off')
  })

  test('embedded (no autovacuum there): vacuums and analyzes every churn table', async () => {
    const db = await connectEmbedded(undefined)
    cleanup.push(() => db.close())
    await migrate(db.sql)
    await churn(db)
    expect(await lastVacuum(db, 'notifications')).toBeNull()
    const result = await maintainDatabase(db.sql, db.capability)
    expect(result.skipped).toBeUndefined()
    expect(result.vacuumed.map((v) => v.table).sort()).toEqual([...CHURN_TABLES].sort())
    expect(await lastVacuum(db, 'notifications')).toBeInstanceOf(Date)
    // The service goes on using the one connection afterwards.
    expect([...(await db.sql`select count(*)::int as n from notifications`)]).toEqual([{ n: 500 }])
  }, 60_000) // boots and migrates its own PGlite: longer than 5 s on a loaded box

  test.skipIf(!process.env.DATABASE_URL)('PostgreSQL: nothing when autovacuum is on; else the tables with dead rows, one instance at a time', async () => {
    const scratch = await scratchDatabase('cls_maint')
    cleanup.push(() => scratch.drop())
    const a = await connectExternal(scratch.url, 4)
    const b = await connectExternal(scratch.url, 4)
    cleanup.push(() => a.close(), () => b.close())
    await migrate(a.sql)
    await churn(a)
    const [setting] = await a.sql<{ on: boolean }[]>`select current_setting('autovacuum') = 'on' as on`
    if (setting!.on) {
      expect(await maintainDatabase(a.sql, a.capability)).toEqual({ skipped: 'autovacuum', vacuumed: [] })
      return
    }
    // Statistics reach the views shortly after a transaction ends.
    await waitFor(
      async () => {
        const [s] = await a.sql<{ dead: number }[]>`select n_dead_tup::int as dead from pg_stat_user_tables where relname = 'notifications'`
        return (s?.dead ?? 0) >= 500
      },
      { timeoutMs: 5_000, intervalMs: 100, what: 'the dead rows to show in pg_stat_user_tables' },
    )
    // Another instance holding the job's lock: this one skips.
    const other = await b.sql.reserve()
    await other`select pg_advisory_lock(${LOCK_KEY})`
    expect(await maintainDatabase(a.sql, a.capability)).toEqual({ skipped: 'another instance', vacuumed: [] })
    expect(await lastVacuum(a, 'notifications')).toBeNull()
    await other`select pg_advisory_unlock(${LOCK_KEY})`
    other.release()
    const worked = await maintainDatabase(a.sql, a.capability)
    expect(worked.skipped).toBeUndefined()
    expect(worked.vacuumed.map((v) => v.table)).toContain('notifications')
    expect(await lastVacuum(a, 'notifications')).toBeInstanceOf(Date)
    // Nothing left to do right after: a second run vacuums nothing it just vacuumed (once the
    // vacuum's own figures have reached the statistics views).
    await waitFor(
      async () => {
        const [s] = await a.sql<{ clean: boolean }[]>`
          select not (n_dead_tup > 25 + 0.1 * n_live_tup or n_mod_since_analyze > 25 + 0.05 * n_live_tup) as clean
            from pg_stat_user_tables where relname = 'notifications'`
        return s?.clean
      },
      { timeoutMs: 5_000, intervalMs: 100, what: 'the vacuum to show in pg_stat_user_tables' },
    )
    const again = await maintainDatabase(a.sql, a.capability)
    expect(again.vacuumed.map((v) => v.table)).not.toContain('notifications')
  })
})
