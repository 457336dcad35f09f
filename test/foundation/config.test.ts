import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../src/config.ts'

describe('configuration', () => {
  test('defaults', () => {
    const c = loadConfig({})
    expect(c.port).toBe(8080)
    expect(c.databaseUrl).toBeUndefined()
    expect(c.dataDir).toBe('./data')
    expect(c.maxUploadBytes).toBe(20 * 1024 * 1024)
    expect(c.reminderScanCron).toBe('* * * * *')
    expect(c.cookieSecure).toBe(false)
    expect(c.logLevel).toBe('info')
  })

  test('reads and converts values', () => {
    const c = loadConfig({
      PORT: '9000',
      DATABASE_URL: 'postgres://u@h:5432/db',
      JWT_SECRET: 'x'.repeat(40),
      COOKIE_SECURE: 'true',
      REMINDER_SCAN_CRON: '*/5 * * * * *',
      MAX_UPLOAD_BYTES: '2048',
      LOG_LEVEL: 'warn',
    })
    expect(c).toMatchObject({ port: 9000, cookieSecure: true, reminderScanCron: '*/5 * * * * *', maxUploadBytes: 2048, logLevel: 'warn' })
    expect(loadConfig({ REMINDER_SCAN_CRON: 'off' }).reminderScanCron).toBe('off')
  })

  test.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ COOKIE_SECURE: 'maybe' }, 'COOKIE_SECURE'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://u@h/db' }, 'JWT_SECRET'],
    [{ JWT_SECRET: 'short' }, 'JWT_SECRET'],
    [{ REMINDER_SCAN_CRON: 'every minute' }, 'REMINDER_SCAN_CRON'],
    [{ MAX_UPLOAD_BYTES: '-1' }, 'MAX_UPLOAD_BYTES'],
  ])('rejects %p naming %s', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError)
    try {
      loadConfig(env)
    } catch (e) {
      expect((e as Error).message).toContain(name)
    }
  })
})
