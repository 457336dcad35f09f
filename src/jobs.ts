import { cron } from '@elysiajs/cron'
import { Elysia } from 'elysia'
import type { Deps } from './deps.ts'
import { maintainDatabase } from './db/maintenance.ts'
import { isConnectionError } from './http/plumbing.ts'
import { countJobRun } from './metrics.ts'
import { purgeAccountRows } from './modules/accounts/queries.ts'
import { purgeExpired } from './modules/auth/queries.ts'
import { sendDueEmails, smtpTransport } from './modules/email/sender.ts'
import { purgeReadNotifications } from './modules/notifications/retention.ts'
import { dispatch } from './modules/reminders/dispatch.ts'
import { mailWaitingInvitations } from './modules/rosters/invitation-mail.ts'
import { publishScheduledTasks } from './modules/learning/publishing.ts'
import { publishScheduledAnnouncements } from './modules/announcements/service.ts'
import { sweepStorage } from './storage/sweep.ts'
import { createBackup } from './backup/backup.ts'
import { oneAtATime } from './backup/on-demand.ts'

export interface Job {
  name: string
  pattern: string
  run: (now: Date) => Promise<unknown>
}

/** The recurring jobs of one instance. Each job is idempotent and safe to run on several instances. */
export function defaultJobs(deps: Deps): Job[] {
  return [
    {
      name: 'housekeeping',
      pattern: '17 * * * *',
      run: async (now) => {
        await purgeExpired(deps.sql, now, deps.config.loginWindowSeconds)
        await purgeAccountRows(deps.sql, now)
      },
    },
    reminderJob(deps),
    fanoutJob(deps),
    taskPublisherJob(deps),
    storageSweepJob(deps),
    maintenanceJob(deps),
    importJob(deps),
    ...(deps.emailEnabled && deps.config.smtpUrl ? [emailJob(deps, deps.config.smtpUrl), invitationMailJob(deps)] : []),
    ...(deps.config.notificationRetentionDays > 0 ? [notificationRetentionJob(deps)] : []),
  ]
}

/**
 * Deletes read notifications older than NOTIFICATION_RETENTION_DAYS (set: hourly by default,
 * NOTIFICATION_RETENTION_CRON changes it). Safe on every instance at once (SKIP LOCKED batches).
 */
export function notificationRetentionJob(deps: Deps): Job {
  return {
    name: 'notification-retention',
    pattern: deps.config.notificationRetentionCron,
    run: (now) => purgeReadNotifications(deps.sql, now, deps.config.notificationRetentionDays),
  }
}

/**
 * A backup of the embedded database and its local files (src/backup/backup.ts), daily at 03:00
 * by default (BACKUP_CRON; 'off' disables it, the default with DATABASE_URL).
 */
export function backupJob(deps: Deps, dumpDataDir: () => Promise<Blob>, take = backupTaker(deps, dumpDataDir, undefined)): Job {
  return {
    name: 'backup',
    pattern: deps.config.backupCron,
    run: (now) => take(now).then(() => {}),
  }
}

/** Takes a backup now, one at a time in this process (the schedule and `bun run backup` share it). */
export function backupTaker(deps: Deps, dumpDataDir: () => Promise<Blob>, databaseDir: string | undefined) {
  const serial = oneAtATime(async (now: Date) => {
    const { path, manifest } = await createBackup({
      sql: deps.sql,
      dumpDataDir,
      filesRoot: deps.storage.localRoot ?? null,
      databaseDir,
      backupDir: deps.config.backupDir,
      keep: deps.config.backupKeep,
      now,
    })
    deps.log.info('backup written', { path, files: manifest.files.length - 1 })
    return { path }
  })
  return (now: Date) => serial(now)
}

/**
 * Removes temp files of dead processes and stored files no row references (older than
 * ORPHAN_GRACE_SECONDS). Every 15 minutes by default (STORAGE_SWEEP_CRON; 'off' disables it).
 */
export function storageSweepJob(deps: Deps): Job {
  return {
    name: 'storage-sweep',
    pattern: deps.config.storageSweepCron,
    run: (now) => sweepStorage(deps.sql, deps.storage, now, deps.config.orphanGraceSeconds),
  }
}

/**
 * VACUUM (ANALYZE) of the churn tables where no autovacuum does it: the embedded database,
 * or a server with autovacuum off (src/db/maintenance.ts). Every 5 minutes by default
 * (DB_MAINTENANCE_CRON; 'off' disables it). One instance at a time (advisory lock).
 */
export function maintenanceJob(deps: Deps): Job {
  return {
    name: 'db-maintenance',
    pattern: deps.config.dbMaintenanceCron,
    // A session advisory lock and a session setting: on the direct connection when pooled.
    run: () => maintainDatabase(deps.direct ?? deps.sql, deps.db),
  }
}

/**
 * Course imports (src/modules/transfer/job.ts): queued ones, and ones whose instance stopped
 * mid-import (their lease ran out). Every 10 s by default (IMPORT_CRON; 'off' disables it on this
 * instance). Safe on every instance at once (SKIP LOCKED claims with a lease).
 */
export function importJob(deps: Deps): Job {
  return {
    name: 'course-imports',
    pattern: deps.config.importCron,
    run: () => deps.imports.kick(),
  }
}

/**
 * Sends queued notification e-mails (SMTP_URL set): every 5 s by default, MAIL_SEND_CRON
 * changes it. Safe on every instance at once (SKIP LOCKED claims with a lease).
 */
export function emailJob(deps: Deps, smtpUrl: string): Job {
  const transport = smtpTransport(smtpUrl, deps.config.mailConnections, { socketTimeoutMs: deps.config.smtpTimeoutSeconds * 1000, requireTLS: deps.config.smtpRequireTls })
  const settings = { publicUrl: deps.config.publicUrl!, mailFrom: deps.config.mailFrom, secret: deps.config.jwtSecret }
  return {
    name: 'email-sender',
    pattern: deps.config.mailSendCron,
    run: (now) => sendDueEmails(deps.sql, transport, settings, now, deps.log),
  }
}

/**
 * Mails the roster invitations that waited (src/modules/rosters/invitation-mail.ts): a teacher's
 * daily cap reached, or the teacher's address not verified at import time. Every minute; safe on
 * every instance at once (one advisory lock around each teacher's decision).
 */
export function invitationMailJob(deps: Deps): Job {
  return {
    name: 'roster-invitation-mail',
    pattern: '40 * * * * *',
    run: (now) => mailWaitingInvitations(deps.sql, deps.config.invitationMailsPerDay, now),
  }
}

/**
 * Delivers due homework reminders. Every minute by default; REMINDER_SCAN_CRON changes it
 * (seconds allowed) and 'off' disables it on this instance. Safe on every instance at once.
 */
export function reminderJob(deps: Deps): Job {
  return {
    name: 'homework-reminders',
    pattern: deps.config.reminderScanCron,
    run: (now) => dispatch(deps.sql, now, { maxConnections: deps.db.maxConnections, channels: deps.channels }),
  }
}

/**
 * Works the background fan-out's queue (src/fanout.ts): what this instance's runner did not
 * finish, or another (stopped) instance left. Every 15 s by default; FANOUT_CRON changes it and
 * 'off' disables it on this instance. Safe on every instance at once (SKIP LOCKED claims).
 */
export function fanoutJob(deps: Deps): Job {
  return {
    name: 'fan-out',
    pattern: deps.config.fanoutCron,
    run: () => deps.fanout.drain(),
  }
}

/**
 * Publishes scheduled tasks whose time has come, with their reminders (issue 29.9), and scheduled
 * announcements, with their notifications (issue 56.4). Every minute
 * by default; TASK_PUBLISH_CRON changes it and 'off' disables it on this instance. Safe on every
 * instance at once (SKIP LOCKED).
 */
export function taskPublisherJob(deps: Deps): Job {
  return {
    name: 'task-publisher',
    pattern: deps.config.taskPublishCron,
    run: async (now) => ({
      tasks: await publishScheduledTasks(deps.sql, now, 100, deps.fanout),
      // Scheduled announcements (issue 56.4) are published by the same job.
      announcements: await publishScheduledAnnouncements(deps.sql, now, deps.channels, deps.fanout),
    }),
  }
}

/**
 * Registers jobs with @elysiajs/cron (croner). `protect` keeps a run from overlapping the
 * previous one in this process; cross-instance safety is the job's own (row locks, unique keys).
 */
export function scheduler(deps: Deps, jobs: Job[]) {
  let app = new Elysia({ name: 'scheduler' })
  for (const job of jobs) {
    if (job.pattern === 'off') continue
    app = app.use(
      cron({
        name: job.name,
        pattern: job.pattern,
        protect: true,
        catch: true,
        async run() {
          const started = performance.now()
          try {
            const now = deps.clock.now()
            // A connection that died while idle (database restarted, network cut) fails the
            // first statement only: one quick retry on a fresh connection, so a scan right
            // after an outage delivers instead of waiting for the next one.
            const result = await job.run(now).catch(async (e) => {
              if (!isConnectionError(e)) throw e
              await Bun.sleep(250)
              return job.run(now)
            })
            deps.log.debug('job finished', { job: job.name, durationMs: Math.round(performance.now() - started), result })
            countJobRun(job.name, 'ok')
          } catch (e) {
            deps.log.error('job failed', { job: job.name, error: String((e as Error)?.message ?? e) })
            countJobRun(job.name, 'failed')
          }
        },
      }) as any,
    )
  }
  return app
}

/** Stops every croner job registered in an app's store. */
export function stopJobs(store: unknown) {
  const jobs = (store as { cron?: Record<string, { stop(): void }> }).cron ?? {}
  for (const j of Object.values(jobs)) j.stop()
}
