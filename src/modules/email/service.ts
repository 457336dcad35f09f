import type { Sql } from '../../db/connect.ts'
import { badRequest } from '../../http/errors.ts'
import type { NotificationPreferences, PutNotificationPreferences } from './model.ts'
import * as q from './queries.ts'
import { verifyUnsubscribeToken } from './tokens.ts'

const toPreferences = (r: q.PreferenceRow | null): NotificationPreferences => ({
  email: {
    HOMEWORK_REMINDER: r?.email_homework_reminder ?? true,
    SUBMISSION_GRADED: r?.email_submission_graded ?? true,
    ANNOUNCEMENT: r?.email_announcement ?? false,
  },
})

export async function preferences(sql: Sql, userId: string) {
  return toPreferences(await q.preferencesOf(sql, userId))
}

export async function savePreferences(sql: Sql, userId: string, body: PutNotificationPreferences, now: Date) {
  return toPreferences(await q.savePreferences(sql, userId, body.email ?? {}, now))
}

/** RFC 8058 one-click: the signed token names the user and the type; no login. */
export async function unsubscribe(sql: Sql, secret: string, token: string, now: Date) {
  const t = verifyUnsubscribeToken(secret, token)
  if (!t) throw badRequest('This unsubscribe link is not valid.')
  const [user] = await sql`select 1 from users where id = ${t.userId}`
  if (!user) throw badRequest('This unsubscribe link is not valid.')
  await q.savePreferences(sql, t.userId, { [t.type]: false }, now)
  return { type: t.type, email: false as const }
}
