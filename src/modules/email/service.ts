import type { Sql } from '../../db/connect.ts'
import { badRequest } from '../../http/errors.ts'
import { savePreferences } from '../notifications/preferences.ts'
import { emailChannel } from './channel.ts'
import { verifyUnsubscribeToken } from './tokens.ts'

/** RFC 8058 one-click: the signed token names the user and the type; no login. */
export async function unsubscribe(sql: Sql, secret: string, token: string, now: Date) {
  const t = verifyUnsubscribeToken(secret, token)
  if (!t) throw badRequest('This unsubscribe link is not valid.')
  const [user] = await sql`select 1 from users where id = ${t.userId}`
  if (!user) throw badRequest('This unsubscribe link is not valid.')
  await savePreferences(sql, t.userId, { [emailChannel.name]: { [t.type]: false } }, now)
  return { type: t.type, email: false as const }
}
