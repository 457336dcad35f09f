import { join } from 'node:path'
import { z } from 'zod'

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes')

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)

/** Croner syntax (5 or 6 fields, seconds allowed) or `off`. */
const cronExpr = z
  .string()
  .trim()
  .refine((v) => v === 'off' || /^(\S+\s+){4,5}\S+$/.test(v), 'a cron expression with 5 or 6 fields, or "off"')

const optionalText = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))

const EnvSchema = z
  .object({
    PORT: int(1, 65535).default(8080),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), 'a postgres:// or postgresql:// URL'),
    DB_POOL_MAX: int(1, 200).default(10),
    DATA_DIR: z.string().min(1).default('./data'),
    EMBEDDED_TEMPLATE_DIR: optionalText,
    JWT_SECRET: z.string().min(32, 'at least 32 characters').optional(),
    TOKEN_TTL_SECONDS: int(60, 60 * 60 * 24 * 90).default(60 * 60 * 24 * 7),
    COOKIE_SECURE: bool.default(false),
    TRUST_PROXY: bool.default(false),
    REMINDER_SCAN_CRON: cronExpr.default('* * * * *'),
    // Courses of more students get their reminder events and announcement notifications from the
    // background fan-out (src/fanout.ts), in chunks of FANOUT_CHUNK_STUDENTS students; the
    // runner starts right after the request's commit, and FANOUT_CRON picks up what another
    // (stopped) instance left.
    FANOUT_INLINE_STUDENTS: int(0, 10_000_000).default(5000),
    FANOUT_CHUNK_STUDENTS: int(1, 1_000_000).default(10_000),
    // A job is queued in this many parts of the course's students, and an instance writes that
    // many chunks at once (never more than its database connections: one on the embedded one).
    FANOUT_WORKERS: int(1, 32).default(2),
    FANOUT_CRON: cronExpr.default('*/15 * * * * *'),
    TASK_PUBLISH_CRON: cronExpr.default('* * * * *'),
    MAX_UPLOAD_BYTES: int(1024, 1024 * 1024 * 1024).default(20 * 1024 * 1024),
    // Course imports (issue 51): the package's own limit, what it may expand to, and the job's schedule.
    MAX_IMPORT_BYTES: int(1024, 8 * 1024 * 1024 * 1024).default(512 * 1024 * 1024),
    IMPORT_MAX_EXTRACTED_BYTES: int(1024, 64 * 1024 * 1024 * 1024).default(4 * 1024 * 1024 * 1024),
    IMPORT_CRON: cronExpr.default('*/10 * * * * *'),
    LOGIN_MAX_FAILURES: int(1, 1000).default(5),
    LOGIN_MAX_FAILURES_PER_IP: int(1, 100000).default(50),
    LOGIN_MAX_FAILURES_PER_ACCOUNT: int(1, 100000).default(50),
    LOGIN_WINDOW_SECONDS: int(1, 86400).default(15 * 60),
    PUBLIC_URL: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v ? v.replace(/\/+$/, '') : undefined))
      .refine((v) => v === undefined || /^https?:\/\/[^/\s]+(\/\S*)?$/.test(v), 'an http:// or https:// URL'),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    FILE_STORAGE: z.enum(['local', 's3']).default('local'),
    S3_BUCKET: optionalText,
    S3_ENDPOINT: optionalText.refine((v) => v === undefined || /^https?:\/\//.test(v), 'an http:// or https:// URL'),
    S3_REGION: optionalText,
    S3_ACCESS_KEY_ID: optionalText,
    S3_SECRET_ACCESS_KEY: optionalText,
    S3_PREFIX: optionalText,
    STORAGE_SWEEP_CRON: cronExpr.default('*/15 * * * *'),
    BACKUP_CRON: cronExpr.optional(),
    BACKUP_DIR: optionalText,
    BACKUP_KEEP: int(1, 1000).default(7),
    DB_MAINTENANCE_CRON: cronExpr.default('*/5 * * * *'),
    ORPHAN_GRACE_SECONDS: int(60, 60 * 60 * 24 * 30).default(60 * 60),
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    WEB_DIST_DIR: optionalText,
    CORS_ORIGINS: optionalText.transform((v, ctx) => {
      const origins = (v ?? '').split(',').map((o) => o.trim()).filter(Boolean)
      for (const o of origins) {
        let ok = false
        try {
          ok = new URL(o).origin === o
        } catch {}
        if (!ok) ctx.addIssue({ code: 'custom', message: `"${o}" is not an exact origin like https://app.example.com (scheme, host, optional port; no path)` })
      }
      return origins
    }),
    SHUTDOWN_TIMEOUT_SECONDS: int(1, 3600).default(25),
    DB_CONNECT_TIMEOUT_SECONDS: int(1, 60).default(2),
    // PostgreSQL unreachable at start: wait this long at most (0 = for ever), then exit.
    DB_START_TIMEOUT_SECONDS: int(0, 86_400).default(0),
    // An SMTP server that does not answer for this long is given up for this attempt.
    SMTP_TIMEOUT_SECONDS: int(1, 600).default(30),
    // Live stream (reminders branch): a direct connection for LISTEN when DATABASE_URL goes
    // through a transaction-mode pooler; the heartbeat (also the session check) of open streams.
    // Past one database server (issue 55): DATABASE_URL may go through a transaction-pooling
    // PgBouncer; DATABASE_DIRECT_URL reaches PostgreSQL itself for what needs a session (LISTEN,
    // session advisory locks, migrations). DATABASE_POOLED turns prepared statements off;
    // default: on when DATABASE_DIRECT_URL is set.
    DATABASE_DIRECT_URL: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), 'a postgres:// or postgresql:// URL'),
    DATABASE_POOLED: bool.optional(),
    // A streaming read replica for the read-heavy routes (issue 55, src/db/replica.ts); pooled
    // like DATABASE_URL when DATABASE_POOLED is on. A replica further behind the primary than
    // REPLICA_MAX_LAG_MS serves nothing; one that cannot be reached is retried after
    // REPLICA_RETRY_SECONDS.
    DATABASE_REPLICA_URL: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), 'a postgres:// or postgresql:// URL'),
    REPLICA_MAX_LAG_MS: int(0, 600_000).default(1000),
    REPLICA_RETRY_SECONDS: int(1, 3600).default(5),
    DATABASE_LISTEN_URL: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || /^postgres(ql)?:\/\//.test(v), 'a postgres:// or postgresql:// URL'),
    STREAM_HEARTBEAT_SECONDS: int(1, 25).default(20),
    // E-mail (reminders branch): unset SMTP_URL → no e-mail and nothing else changes.
    SMTP_URL: z
      .string()
      .trim()
      .optional()
      .transform((v) => (v ? v : undefined))
      .refine((v) => v === undefined || /^smtps?:\/\/[^/]/.test(v), 'an smtp:// or smtps:// URL'),
    MAIL_FROM: z.string().trim().min(3).default('Course Learning <no-reply@localhost>'),
    MAIL_SEND_CRON: cronExpr.default('*/5 * * * * *'),
    MAIL_CONNECTIONS: int(1, 64).default(8),
    // smtp:// must be upgraded with STARTTLS (a server not offering it gets no mail): no stripping.
    SMTP_REQUIRE_TLS: bool.default(false),
    INVITATION_MAILS_PER_DAY: int(0, 1_000_000).default(2000),
    // 0: keep every notification. Otherwise read ones older than this many days are deleted.
    NOTIFICATION_RETENTION_DAYS: int(0, 36500).default(0),
    NOTIFICATION_RETENTION_CRON: cronExpr.default('41 * * * *'),
    VALIDATE_RESPONSES: bool.optional(),
    GRADEBOOK_CACHE_MB: int(0, 4096).default(32),
    // A whole-course grade overview of more students is streamed, never built in memory or cached.
    GRADEBOOK_STREAM_STUDENTS: int(0, 10_000_000).default(5000),
    // Accounts (issue 21): lifetimes of e-mail links; who may register as a teacher.
    EMAIL_TOKEN_TTL_SECONDS: int(300, 60 * 60 * 24 * 30).default(60 * 60 * 24),
    PASSWORD_RESET_TTL_SECONDS: int(300, 60 * 60 * 24 * 7).default(30 * 60),
    TEACHER_REGISTRATION: z.enum(['open', 'closed']).default('open'),
    // Single sign-on (src/modules/sso): unset OIDC_ISSUER → off.
    OIDC_ISSUER: optionalText.refine(
      (v) => v === undefined || /^https:\/\/[^/\s]+(\/\S*)?$/.test(v) || /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/\S*)?$/.test(v),
      'an https:// URL (plain http only for a provider on this machine: 127.0.0.1, localhost)',
    ),
    OIDC_CLIENT_ID: optionalText,
    OIDC_CLIENT_SECRET: optionalText,
    OIDC_DISPLAY_NAME: z.string().trim().min(1).max(64).default('Single sign-on'),
    OIDC_SCOPES: z
      .string()
      .trim()
      .default('openid email profile')
      .refine((v) => v.split(/\s+/).includes('openid'), 'a space-separated list of scopes that includes "openid"'),
    OIDC_TEACHER_RULE: optionalText.transform((v, ctx) => {
      if (v === undefined) return undefined
      const at = v.indexOf('=')
      const claim = at > 0 ? v.slice(0, at).trim() : ''
      const value = at > 0 ? v.slice(at + 1).trim() : ''
      if (!claim || !value) {
        ctx.addIssue({ code: 'custom', message: 'claim=value, e.g. "groups=teachers" or "role=faculty"' })
        return z.NEVER
      }
      return { claim, value }
    }),
    PASSWORD_LOGIN: bool.default(true),
    NODE_ENV: z.string().optional(),
  })
  .superRefine((env, ctx) => {
    if (env.FILE_STORAGE === 's3' && !env.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'required when FILE_STORAGE=s3' })
    }
    if (env.SMTP_URL && !env.PUBLIC_URL) {
      ctx.addIssue({ code: 'custom', path: ['PUBLIC_URL'], message: 'required when SMTP_URL is set (the base of links in e-mails)' })
    }
    if (env.OIDC_ISSUER) {
      for (const key of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'PUBLIC_URL'] as const) {
        if (!env[key]) ctx.addIssue({ code: 'custom', path: [key], message: 'required when OIDC_ISSUER is set (single sign-on)' })
      }
    }
    if (!env.PASSWORD_LOGIN && !env.OIDC_ISSUER) {
      ctx.addIssue({ code: 'custom', path: ['PASSWORD_LOGIN'], message: 'may be false only with single sign-on configured (OIDC_ISSUER), else nobody can log in' })
    }
    if (env.DATABASE_REPLICA_URL && !env.DATABASE_URL) {
      ctx.addIssue({ code: 'custom', path: ['DATABASE_REPLICA_URL'], message: 'needs DATABASE_URL (the embedded database has no replica)' })
    }
    if (env.DATABASE_URL && !env.JWT_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['JWT_SECRET'],
        message: 'required when DATABASE_URL is set (several instances must share it); at least 32 characters',
      })
    }
  })

export type LogLevel = z.infer<typeof EnvSchema>['LOG_LEVEL']

export interface Config {
  port: number
  host: string
  databaseUrl: string | undefined
  dbPoolMax: number
  dataDir: string
  /** A ready PGlite data directory copied into `DATA_DIR/pgdata` on a first start (the image ships one). */
  embeddedTemplateDir: string | undefined
  /** Undefined only before boot resolves the embedded database's generated secret. */
  jwtSecret: string | undefined
  tokenTtlSeconds: number
  cookieSecure: boolean
  trustProxy: boolean
  reminderScanCron: string
  fanoutInlineStudents: number
  fanoutChunkStudents: number
  fanoutWorkers: number
  fanoutCron: string
  /** The task-publisher job (scheduled tasks published when their time comes); "off" disables. */
  taskPublishCron: string
  maxUploadBytes: number
  /** A course package's upload limit (POST /courses/imports), not MAX_UPLOAD_BYTES. */
  maxImportBytes: number
  /** The most bytes a package may expand to (a zip bomb's cap). */
  importMaxExtractedBytes: number
  /** The import runner's schedule (picks up queued imports and ones a stopped instance left); "off" disables. */
  importCron: string
  loginMaxFailures: number
  loginMaxFailuresPerIp: number
  loginMaxFailuresPerAccount: number
  loginWindowSeconds: number
  logLevel: LogLevel
  /** The base of links the service writes for people (calendar feeds, e-mails); the request's origin when unset. */
  publicUrl: string | undefined
  fileStorage: 'local' | 's3'
  s3: { bucket?: string; endpoint?: string; region?: string; accessKeyId?: string; secretAccessKey?: string; prefix?: string }
  storageSweepCron: string
  /** Backups of the embedded database: default daily at 03:00, 'off' with DATABASE_URL (a server has its own tools). */
  backupCron: string
  backupDir: string
  backupKeep: number
  /** VACUUM (ANALYZE) where no autovacuum does it (src/db/maintenance.ts); "off" disables. */
  dbMaintenanceCron: string
  orphanGraceSeconds: number
  metricsPort: number | undefined
  corsOrigins: string[]
  /** A web bundle built ahead (src/cli/build-web.ts); unset → built in-process on first use. */
  webDistDir: string | undefined
  /** After SIGTERM/SIGINT the process exits by this deadline, even with requests in flight. */
  shutdownTimeoutSeconds: number
  /** A connection attempt to PostgreSQL gives up after this long (outages answer 503 fast). */
  dbConnectTimeoutSeconds: number
  /** DB_START_TIMEOUT_SECONDS: how long the start waits for PostgreSQL (0: for ever). */
  dbStartTimeoutSeconds: number
  /** SMTP_TIMEOUT_SECONDS: no reply from the SMTP server for this long ends the attempt. */
  smtpTimeoutSeconds: number
  databaseListenUrl: string | undefined
  /** DATABASE_DIRECT_URL: PostgreSQL itself, for LISTEN, session advisory locks and migrations (DATABASE_URL may be a pooler). */
  databaseDirectUrl: string | undefined
  /** DATABASE_POOLED: DATABASE_URL goes through a transaction-mode pooler (no prepared statements). */
  databasePooled: boolean
  /** DATABASE_REPLICA_URL: a streaming read replica for the read-heavy routes (src/db/replica.ts). */
  databaseReplicaUrl: string | undefined
  /** REPLICA_MAX_LAG_MS: a replica further behind than this serves no reads. */
  replicaMaxLagMs: number
  /** REPLICA_RETRY_SECONDS: an unreachable replica is tried again after this long. */
  replicaRetrySeconds: number
  streamHeartbeatSeconds: number
  smtpUrl: string | undefined
  mailFrom: string
  mailSendCron: string
  /** MAIL_CONNECTIONS: pooled SMTP connections per instance (mails of a batch go out in parallel over them). */
  mailConnections: number
  /** SMTP_REQUIRE_TLS: an smtp:// server that does not upgrade with STARTTLS gets no mail. */
  smtpRequireTls: boolean
  /** INVITATION_MAILS_PER_DAY: roster invitation mails one teacher's imports may send a day (the rest wait). */
  invitationMailsPerDay: number
  /** NOTIFICATION_RETENTION_DAYS: read notifications delivered longer ago are deleted (0: never). */
  notificationRetentionDays: number
  notificationRetentionCron: string
  /** Check every success response against its schema (default: yes, except with NODE_ENV=production). */
  validateResponses: boolean
  /** Serialised grade overviews kept per instance (src/lib/overview-cache.ts); 0 turns it off. */
  gradebookCacheBytes: number
  /** A whole-course grade overview of more students than this is streamed (never cached). */
  gradebookStreamStudents: number
  /** Validity of verification and address-change links. */
  emailTokenTtlSeconds: number
  /** Validity of password-reset links. */
  passwordResetTtlSeconds: number
  /** `closed`: registering as TEACHER is refused (403 40301); teachers come from the CLI or SSO. */
  teacherRegistration: 'open' | 'closed'
  /** Single sign-on (src/modules/sso); undefined: off. */
  oidc: OidcConfig | undefined
  /** False: password login and registration answer 403 (single sign-on is the only way in). */
  passwordLogin: boolean
}

export interface OidcConfig {
  issuer: string
  clientId: string
  clientSecret: string
  displayName: string
  scopes: string
  /** An account whose claim equals (or is an array containing) the value is created as a TEACHER. */
  teacherRule: { claim: string; value: string } | undefined
}

export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Reads and validates the environment once; a wrong value names the variable and what is allowed. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(environment)'}: ${i.message}`)
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`)
  }
  const e = parsed.data
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dbPoolMax: e.DB_POOL_MAX,
    dataDir: e.DATA_DIR,
    embeddedTemplateDir: e.EMBEDDED_TEMPLATE_DIR,
    jwtSecret: e.JWT_SECRET,
    tokenTtlSeconds: e.TOKEN_TTL_SECONDS,
    cookieSecure: e.COOKIE_SECURE,
    trustProxy: e.TRUST_PROXY,
    reminderScanCron: e.REMINDER_SCAN_CRON,
    fanoutInlineStudents: e.FANOUT_INLINE_STUDENTS,
    fanoutChunkStudents: e.FANOUT_CHUNK_STUDENTS,
    fanoutWorkers: e.FANOUT_WORKERS,
    fanoutCron: e.FANOUT_CRON,
    taskPublishCron: e.TASK_PUBLISH_CRON,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    maxImportBytes: e.MAX_IMPORT_BYTES,
    importMaxExtractedBytes: e.IMPORT_MAX_EXTRACTED_BYTES,
    importCron: e.IMPORT_CRON,
    loginMaxFailures: e.LOGIN_MAX_FAILURES,
    loginMaxFailuresPerIp: e.LOGIN_MAX_FAILURES_PER_IP,
    loginMaxFailuresPerAccount: e.LOGIN_MAX_FAILURES_PER_ACCOUNT,
    loginWindowSeconds: e.LOGIN_WINDOW_SECONDS,
    logLevel: e.LOG_LEVEL,
    publicUrl: e.PUBLIC_URL,
    fileStorage: e.FILE_STORAGE,
    s3: {
      bucket: e.S3_BUCKET,
      endpoint: e.S3_ENDPOINT,
      region: e.S3_REGION,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      prefix: e.S3_PREFIX,
    },
    storageSweepCron: e.STORAGE_SWEEP_CRON,
    backupCron: e.BACKUP_CRON ?? (e.DATABASE_URL ? 'off' : '0 3 * * *'),
    backupDir: e.BACKUP_DIR ?? join(e.DATA_DIR, 'backups'),
    backupKeep: e.BACKUP_KEEP,
    dbMaintenanceCron: e.DB_MAINTENANCE_CRON,
    orphanGraceSeconds: e.ORPHAN_GRACE_SECONDS,
    metricsPort: e.METRICS_PORT,
    corsOrigins: e.CORS_ORIGINS,
    webDistDir: e.WEB_DIST_DIR,
    shutdownTimeoutSeconds: e.SHUTDOWN_TIMEOUT_SECONDS,
    dbConnectTimeoutSeconds: e.DB_CONNECT_TIMEOUT_SECONDS,
    dbStartTimeoutSeconds: e.DB_START_TIMEOUT_SECONDS,
    smtpTimeoutSeconds: e.SMTP_TIMEOUT_SECONDS,
    // DATABASE_LISTEN_URL (older name of the LISTEN connection) still works; the direct URL wins.
    databaseListenUrl: e.DATABASE_DIRECT_URL ?? e.DATABASE_LISTEN_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL,
    databasePooled: e.DATABASE_POOLED ?? Boolean(e.DATABASE_DIRECT_URL),
    databaseReplicaUrl: e.DATABASE_REPLICA_URL,
    replicaMaxLagMs: e.REPLICA_MAX_LAG_MS,
    replicaRetrySeconds: e.REPLICA_RETRY_SECONDS,
    streamHeartbeatSeconds: e.STREAM_HEARTBEAT_SECONDS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mailSendCron: e.MAIL_SEND_CRON,
    mailConnections: e.MAIL_CONNECTIONS,
    smtpRequireTls: e.SMTP_REQUIRE_TLS,
    invitationMailsPerDay: e.INVITATION_MAILS_PER_DAY,
    notificationRetentionDays: e.NOTIFICATION_RETENTION_DAYS,
    notificationRetentionCron: e.NOTIFICATION_RETENTION_CRON,
    validateResponses: e.VALIDATE_RESPONSES ?? e.NODE_ENV !== 'production',
    gradebookCacheBytes: e.GRADEBOOK_CACHE_MB * 1024 * 1024,
    gradebookStreamStudents: e.GRADEBOOK_STREAM_STUDENTS,
    emailTokenTtlSeconds: e.EMAIL_TOKEN_TTL_SECONDS,
    passwordResetTtlSeconds: e.PASSWORD_RESET_TTL_SECONDS,
    teacherRegistration: e.TEACHER_REGISTRATION,
    oidc: e.OIDC_ISSUER
      ? {
          issuer: e.OIDC_ISSUER,
          clientId: e.OIDC_CLIENT_ID!,
          clientSecret: e.OIDC_CLIENT_SECRET!,
          displayName: e.OIDC_DISPLAY_NAME,
          scopes: e.OIDC_SCOPES,
          teacherRule: e.OIDC_TEACHER_RULE,
        }
      : undefined,
    passwordLogin: e.PASSWORD_LOGIN,
  }
}
