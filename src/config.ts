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
    JWT_SECRET: z.string().min(32, 'at least 32 characters').optional(),
    TOKEN_TTL_SECONDS: int(60, 60 * 60 * 24 * 90).default(60 * 60 * 24 * 7),
    COOKIE_SECURE: bool.default(false),
    TRUST_PROXY: bool.default(false),
    REMINDER_SCAN_CRON: cronExpr.default('* * * * *'),
    MAX_UPLOAD_BYTES: int(1024, 1024 * 1024 * 1024).default(20 * 1024 * 1024),
    LOGIN_MAX_FAILURES: int(1, 1000).default(5),
    LOGIN_MAX_FAILURES_PER_IP: int(1, 100000).default(50),
    LOGIN_WINDOW_SECONDS: int(1, 86400).default(15 * 60),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    VALIDATE_RESPONSES: bool.optional(),
    NODE_ENV: z.string().optional(),
  })
  .superRefine((env, ctx) => {
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
  /** Undefined only before boot resolves the embedded database's generated secret. */
  jwtSecret: string | undefined
  tokenTtlSeconds: number
  cookieSecure: boolean
  trustProxy: boolean
  reminderScanCron: string
  maxUploadBytes: number
  loginMaxFailures: number
  loginMaxFailuresPerIp: number
  loginWindowSeconds: number
  logLevel: LogLevel
  /** Check every success response against its schema (default: yes, except with NODE_ENV=production). */
  validateResponses: boolean
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
    jwtSecret: e.JWT_SECRET,
    tokenTtlSeconds: e.TOKEN_TTL_SECONDS,
    cookieSecure: e.COOKIE_SECURE,
    trustProxy: e.TRUST_PROXY,
    reminderScanCron: e.REMINDER_SCAN_CRON,
    maxUploadBytes: e.MAX_UPLOAD_BYTES,
    loginMaxFailures: e.LOGIN_MAX_FAILURES,
    loginMaxFailuresPerIp: e.LOGIN_MAX_FAILURES_PER_IP,
    loginWindowSeconds: e.LOGIN_WINDOW_SECONDS,
    logLevel: e.LOG_LEVEL,
    validateResponses: e.VALIDATE_RESPONSES ?? e.NODE_ENV !== 'production',
  }
}
