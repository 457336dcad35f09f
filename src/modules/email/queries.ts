import type { Sql, TxSql } from '../../db/connect.ts'
import type { NotificationParams } from '../notifications/texts.ts'
import type { EmailType } from './model.ts'

export interface PreferenceRow {
  email_homework_reminder: boolean
  email_submission_graded: boolean
  email_announcement: boolean
}

export async function preferencesOf(sql: Sql, userId: string) {
  const [row] = await sql<PreferenceRow[]>`
    select email_homework_reminder, email_submission_graded, email_announcement
      from notification_preferences where user_id = ${userId}`
  return row ?? null
}

const COLUMN: Record<EmailType, string> = {
  HOMEWORK_REMINDER: 'email_homework_reminder',
  SUBMISSION_GRADED: 'email_submission_graded',
  ANNOUNCEMENT: 'email_announcement',
}

/** Sets the given switches (the others keep their value or default) and returns the row. */
export async function savePreferences(sql: Sql, userId: string, set: Partial<Record<EmailType, boolean>>, now: Date) {
  const v = (t: EmailType) => (set[t] === undefined ? null : set[t])
  const [row] = await sql<PreferenceRow[]>`
    insert into notification_preferences as p (user_id, email_homework_reminder, email_submission_graded, email_announcement, updated_at)
    values (${userId}, coalesce(${v('HOMEWORK_REMINDER')}::boolean, true), coalesce(${v('SUBMISSION_GRADED')}::boolean, true),
            coalesce(${v('ANNOUNCEMENT')}::boolean, false), ${now})
    on conflict (user_id) do update
       set email_homework_reminder = coalesce(${v('HOMEWORK_REMINDER')}::boolean, p.email_homework_reminder),
           email_submission_graded = coalesce(${v('SUBMISSION_GRADED')}::boolean, p.email_submission_graded),
           email_announcement = coalesce(${v('ANNOUNCEMENT')}::boolean, p.email_announcement),
           updated_at = ${now}
    returning email_homework_reminder, email_submission_graded, email_announcement`
  return row!
}
export { COLUMN as PREFERENCE_COLUMN }

/**
 * Queues one outbox row per written notification whose type its owner wants by e-mail, in the
 * notification's transaction (one INSERT … SELECT whatever the fan-out).
 */
export async function queueEmails(tx: Sql | TxSql, ids: string[]) {
  const res = await tx`
    insert into email_outbox (notification_id, user_id, created_at, next_attempt_at)
    select n.id, n.user_id, n.delivered_at, n.delivered_at
      from notifications n
      left join notification_preferences p on p.user_id = n.user_id
     where n.id = any(${ids}::uuid[])
       and case n.notification_type
             when 'HOMEWORK_REMINDER' then coalesce(p.email_homework_reminder, true)
             when 'SUBMISSION_GRADED' then coalesce(p.email_submission_graded, true)
             when 'ANNOUNCEMENT' then coalesce(p.email_announcement, false)
             else false
           end
    on conflict (notification_id) do nothing`
  return res.count
}

export interface OutboxItem {
  notification_id: string
  user_id: string
  attempts: number
  created_at: Date
  email: string
  locale: string | null
  notification_type: EmailType
  title: string
  content: string
  action_path: string | null
  params: NotificationParams | null
}

/**
 * Claims up to `limit` due rows for `leaseMs`: rows another sender is claiming right now are
 * skipped (SKIP LOCKED), rows leased by a live sender are not due. The claim commits at once,
 * so no transaction stays open while the SMTP server answers.
 */
export async function claimDue(sql: Sql, now: Date, limit: number, leaseMs: number) {
  return sql<OutboxItem[]>`
    with due as (
      select notification_id
        from email_outbox
       where sent_at is null and failed_at is null and next_attempt_at <= ${now}
         and (lease_until is null or lease_until <= ${now})
       order by next_attempt_at
       limit ${limit}
         for update skip locked
    ), claimed as (
      update email_outbox o
         set lease_until = ${new Date(now.getTime() + leaseMs)}, attempts = o.attempts + 1
        from due
       where o.notification_id = due.notification_id
      returning o.notification_id, o.user_id, o.attempts, o.created_at
    )
    select c.notification_id, c.user_id, c.attempts, c.created_at, u.email, u.locale,
           n.notification_type, n.title, n.content, n.action_path, n.params
      from claimed c
      join users u on u.id = c.user_id
      join notifications n on n.id = c.notification_id`
}

/** Marks the mails the server accepted, a whole batch in one statement. */
export async function markSent(sql: Sql, ids: string[], now: Date) {
  await sql`update email_outbox set sent_at = ${now}, lease_until = null, last_error = null where notification_id = any(${ids}::uuid[])`
}

export async function markRetry(sql: Sql, id: string, next: Date, error: string) {
  await sql`update email_outbox set next_attempt_at = ${next}, lease_until = null, last_error = ${error.slice(0, 500)} where notification_id = ${id}`
}

export async function markFailed(sql: Sql, id: string, now: Date, error: string) {
  await sql`update email_outbox set failed_at = ${now}, lease_until = null, last_error = ${error.slice(0, 500)} where notification_id = ${id}`
}
