/**
 * Prints a one-time password reset link for an account, for operators of a server without
 * e-mail (SMTP_URL unset; POST /auth/password/forgot then answers 409 40905):
 *
 *   bun run src/cli/reset-link.ts <username or e-mail>
 *
 * The link is valid PASSWORD_RESET_TTL_SECONDS, works once, replaces older links, and using it
 * verifies the address and ends every session of the account. It uses the same database
 * settings as the service (DATABASE_URL, or the embedded database in DATA_DIR, which must not
 * be open in a running service at the same time).
 */
import { ConfigError, loadConfig, type Config } from '../config.ts'
import { connectDatabase, type Sql } from '../db/connect.ts'
import { migrate } from '../db/migrate.ts'
import { linkOf } from '../modules/email/account-mail.ts'
import { operatorResetToken } from '../modules/accounts/service.ts'

/** The base of links the operator hands out: PUBLIC_URL, else this machine's service port. */
export const linkBase = (config: Pick<Config, 'publicUrl' | 'port'>) => config.publicUrl ?? `http://localhost:${config.port}`

export async function resetLink(sql: Sql, identifier: string, config: Pick<Config, 'publicUrl' | 'port' | 'passwordResetTtlSeconds'>, now = new Date()) {
  const issued = await operatorResetToken(sql, identifier, config.passwordResetTtlSeconds, now)
  return issued ? { link: linkOf(linkBase(config), 'RESET_PASSWORD', issued.token), user: issued.user } : null
}

if (import.meta.main) {
  const identifier = process.argv[2]?.trim()
  if (!identifier) {
    console.error('usage: bun run src/cli/reset-link.ts <username or e-mail>')
    process.exit(2)
  }
  try {
    const config = loadConfig()
    const db = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 1 })
    await migrate(db.sql)
    const result = await resetLink(db.sql, identifier, config)
    await db.close()
    if (!result) {
      console.error(`no account with the username or e-mail "${identifier}"`)
      process.exit(1)
    }
    console.log(`One-time password reset link for ${result.user.username} (valid ${Math.round(config.passwordResetTtlSeconds / 60)} minutes):`)
    console.log(result.link)
  } catch (e) {
    console.error(e instanceof ConfigError ? e.message : `reset-link failed: ${(e as Error)?.message ?? e}`)
    process.exit(1)
  }
}
