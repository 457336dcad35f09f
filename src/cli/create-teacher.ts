/**
 * Creates a TEACHER account (the way to make teachers when TEACHER_REGISTRATION=closed) and
 * prints a one-time link where the teacher chooses a password:
 *
 *   bun run src/cli/create-teacher.ts <username> <e-mail> [display name]
 *
 * The account starts with a random password nobody knows; opening the link (valid
 * EMAIL_TOKEN_TTL_SECONDS) sets the password and verifies the address. A lost link: run
 * src/cli/reset-link.ts. Same database settings as the service.
 */
import { randomBytes } from 'node:crypto'
import { ConfigError, loadConfig, type Config } from '../config.ts'
import { connectDatabase, type Sql } from '../db/connect.ts'
import { migrate } from '../db/migrate.ts'
import { newId } from '../lib/ids.ts'
import { issueLink } from '../modules/links/links.ts'
import { RegisterBody } from '../modules/auth/model.ts'
import { insertUser } from '../modules/auth/queries.ts'
import { linkOf } from '../modules/email/account-mail.ts'
import { linkBase } from './reset-link.ts'

export async function createTeacher(
  sql: Sql,
  input: { username: string; email: string; displayName?: string },
  config: Pick<Config, 'publicUrl' | 'port' | 'emailTokenTtlSeconds'>,
  now = new Date(),
) {
  const parsed = RegisterBody.safeParse({ ...input, password: randomBytes(24).toString('base64url'), role: 'TEACHER' })
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '))
  const body = parsed.data
  const passwordHash = await Bun.password.hash(body.password, { algorithm: 'argon2id' })
  return sql.begin(async (tx) => {
    const user = await insertUser(tx, {
      id: newId(),
      username: body.username,
      email: body.email,
      passwordHash,
      displayName: body.displayName ?? body.username,
      role: 'TEACHER',
      now,
      locale: null,
    })
    if (!user) throw new Error('that username or e-mail is already registered')
    const token = await issueLink(tx, { userId: user.id, purpose: 'RESET_PASSWORD', email: user.email, ttlSeconds: config.emailTokenTtlSeconds, now })
    return { user, link: linkOf(linkBase(config), 'RESET_PASSWORD', token) }
  })
}

if (import.meta.main) {
  const [username, email, ...name] = process.argv.slice(2)
  if (!username || !email) {
    console.error('usage: bun run src/cli/create-teacher.ts <username> <e-mail> [display name]')
    process.exit(2)
  }
  try {
    const config = loadConfig()
    const db = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 1 })
    await migrate(db.sql)
    const result = await createTeacher(db.sql, { username, email, displayName: name.join(' ') || undefined }, config).finally(() => db.close())
    console.log(`Teacher ${result.user.username} <${result.user.email}> created. To choose a password, open within ${Math.round(config.emailTokenTtlSeconds / 3600)} hours:`)
    console.log(result.link)
  } catch (e) {
    console.error(e instanceof ConfigError ? e.message : `create-teacher failed: ${(e as Error)?.message ?? e}`)
    process.exit(1)
  }
}
