import type { Sql, TxSql } from '../../db/connect.ts'
import type { NotificationParams } from '../notifications/texts.ts'
import type { NotificationType } from '../notifications/types.ts'

export type AccountMailKind = 'VERIFY_EMAIL' | 'CHANGE_EMAIL' | 'RESET_PASSWORD' | 'EMAIL_CHANGED' | 'ROSTER_INVITATION'

/** An account mail (not a notification) to a fixed address, in the notification outbox. */
export async function queueAccountMail(
  tx: Sql | TxSql,
  m: { id: string; kind: AccountMailKind; userId: string; to: string; locale: string; secret: Uint8Array | null; params: Record<string, string> | null; now: Date },
) {
  // References checked per statement by triggers, not foreign keys (src/db/dropped-foreign-keys.ts).
  await tx`
    insert into email_outbox (id, kind, user_id, to_address, locale, secret, params, created_at, next_attempt_at)
    values (${m.id}, ${m.kind}, ${m.userId}, ${m.to}, ${m.locale}, ${m.secret ? Buffer.from(m.secret) : null}, ${m.params ? tx.json(m.params) : null}, ${m.now}, ${m.now})`
}

interface OutboxCommon {
  id: string
  /** Null for a roster invitation (the address has no account). */
  user_id: string | null
  attempts: number
  created_at: Date
  /** The account's address and language now (null / false without an account). */
  email: string | null
  email_verified: boolean
  locale: string | null
}

export interface NotificationOutboxItem extends OutboxCommon {
  kind: 'NOTIFICATION'
  /** A notification always has its account (sql/038). */
  user_id: string
  email: string
  notification_id: string
  notification_type: NotificationType
  title: string
  content: string
  action_path: string | null
  params: NotificationParams | null
}

export interface AccountOutboxItem extends OutboxCommon {
  kind: AccountMailKind
  to_address: string
  mail_locale: string | null
  secret: Uint8Array | null
  mail_params: Record<string, string> | null
  /** A roster invitation's mail: whether the invitation (same id) is still pending and the address has no account yet. */
  still_invited: boolean
}

export type OutboxRow = NotificationOutboxItem | AccountOutboxItem
/** A notification's mail (the only kind before account mails). */
export type OutboxItem = NotificationOutboxItem

/**
 * Claims up to `limit` due rows for `leaseMs`: rows another sender is claiming right now are
 * skipped (SKIP LOCKED), rows leased by a live sender are not due. The claim commits at once,
 * so no transaction stays open while the SMTP server answers.
 */
export async function claimDue(sql: Sql, now: Date, limit: number, leaseMs: number) {
  return sql<OutboxRow[]>`
    with due as (
      select id
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
       where o.id = due.id
      returning o.id, o.kind, o.notification_id, o.user_id, o.attempts, o.created_at, o.to_address,
                o.locale as mail_locale, o.secret, o.params as mail_params
    )
    select c.id, c.kind, c.notification_id, c.user_id, c.attempts, c.created_at, c.to_address, c.mail_locale,
           c.secret, c.mail_params, u.email, coalesce(u.email_verified, false) as email_verified, u.locale,
           -- An invitation's mail: the invitation still pending and the address still without an account.
           (c.kind <> 'ROSTER_INVITATION' or (exists (select 1 from course_invitations i where i.id = c.id)
                                               and not exists (select 1 from users x where lower(x.email) = lower(c.to_address)))) as still_invited,
           n.notification_type, n.title, n.content, n.action_path, n.params
      from claimed c
      left join users u on u.id = c.user_id
      left join notifications n on n.id = c.notification_id`
}

/**
 * Marks the mails the server accepted, a whole batch in one statement. An account mail's
 * encrypted link token is erased once the row is done with.
 */
export async function markSent(sql: Sql, ids: string[], now: Date) {
  await sql`update email_outbox set sent_at = ${now}, lease_until = null, last_error = null, secret = null where id = any(${ids}::uuid[])`
}

/** Temporary failures of a batch, one statement: each row due again at its own time. */
export async function markRetry(sql: Sql, rows: { id: string; next: Date; error: string }[]) {
  if (!rows.length) return
  await sql`
    update email_outbox o set next_attempt_at = r.next::timestamptz, lease_until = null, last_error = r.error
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.next.toISOString())}::text[], ${rows.map((r) => r.error.slice(0, 500))}::text[]) as r(id, next, error)
     where o.id = r.id`
}

/** Rows given up (or not to be sent), one statement; the link token is erased. */
export async function markFailed(sql: Sql, rows: { id: string; error: string }[], now: Date) {
  if (!rows.length) return
  await sql`
    update email_outbox o set failed_at = ${now}, lease_until = null, last_error = r.error, secret = null
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.error.slice(0, 500))}::text[]) as r(id, error)
     where o.id = r.id`
}
