import type { Sql } from './connect.ts'
import type { DatabaseCapability } from './connect.ts'

/**
 * VACUUM and ANALYZE of the tables that churn, when nobody else does it.
 *
 * Every read, grading, counter update and delivered reminder leaves a dead row version behind;
 * PostgreSQL's autovacuum removes them and keeps the planner's statistics fresh. The embedded
 * database has no autovacuum (PGlite runs no background workers), and some servers run with it
 * off (this project's CI machine does). Without it the hot tables only grow: index scans step
 * over more dead entries, tables outgrow the cache, plans are made from statistics of an
 * empty table. The hot statements are written not to depend on vacuum (sql/012, sql/025,
 * sql/029), but a service that runs for months should not leave its tables to rot either.
 *
 * So this job, on a schedule (DB_MAINTENANCE_CRON, every 5 minutes by default):
 *  - external server with autovacuum on: does nothing (the server's own is better);
 *  - external server with autovacuum off: vacuums and analyzes the project's tables whose
 *    statistics show enough dead rows or changes (autovacuum's own thresholds, halved);
 *  - embedded: vacuums and analyzes the churn tables below (PGlite's statistics are not
 *    reliable enough to choose by), which is quick once their pages are all-visible.
 * One instance at a time (a session advisory lock on a reserved connection; the others skip).
 */

/** Tables that take updates or deletes on hot paths. */
export const CHURN_TABLES = [
  'notifications',
  'notification_counters',
  'course_counters',
  'course_student_counts',
  'grade_totals',
  'homework_reminder_events',
  'email_outbox',
  'sessions',
  'login_throttle',
  'learning_submissions',
  'experiment_submissions',
] as const

export const LOCK_KEY = 0x636c_7301 // 'cls' 1: the maintenance job's advisory lock

export interface MaintenanceResult {
  skipped?: 'autovacuum' | 'another instance'
  vacuumed: { table: string; ms: number }[]
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`

/** Tables of the current schema worth a VACUUM (ANALYZE) now, by their statistics. */
async function dueTables(sql: Sql): Promise<string[]> {
  const rows = await sql<{ relname: string }[]>`
    select relname
      from pg_stat_user_tables
     where schemaname = current_schema()
       and (n_dead_tup > 25 + 0.1 * n_live_tup or n_mod_since_analyze > 25 + 0.05 * n_live_tup)
     order by relname`
  return rows.map((r) => r.relname)
}

export async function maintainDatabase(sql: Sql, db: DatabaseCapability): Promise<MaintenanceResult> {
  const embedded = db.kind === 'embedded'
  if (!embedded) {
    const [setting] = await sql<{ on: boolean }[]>`select current_setting('autovacuum') = 'on' as on`
    if (setting?.on) return { skipped: 'autovacuum', vacuumed: [] }
  }
  const conn = await sql.reserve()
  try {
    const [lock] = await conn<{ got: boolean }[]>`select pg_try_advisory_lock(${LOCK_KEY}) as got`
    if (!lock?.got) return { skipped: 'another instance', vacuumed: [] }
    try {
      const existing = new Set(
        (await conn<{ relname: string }[]>`
          select c.relname from pg_class c
           where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r'`).map((r) => r.relname),
      )
      const tables = (embedded ? [...CHURN_TABLES] : await dueTables(conn as unknown as Sql)).filter((t) => existing.has(t))
      const vacuumed: MaintenanceResult['vacuumed'] = []
      // On a server, paced like autovacuum (2 ms pause per 200 cost units) so requests keep the
      // cores; the embedded database has one connection, so there it goes flat out.
      if (!embedded) await conn`set vacuum_cost_delay = 2`
      for (const table of tables) {
        const started = performance.now()
        // VACUUM cannot run in a transaction block: a simple statement on its own.
        await conn.unsafe(`vacuum (analyze) ${quoteIdent(table)}`)
        vacuumed.push({ table, ms: Math.round(performance.now() - started) })
      }
      return { vacuumed }
    } finally {
      if (!embedded) await conn`reset vacuum_cost_delay`
      await conn`select pg_advisory_unlock(${LOCK_KEY})`
    }
  } finally {
    conn.release()
  }
}
