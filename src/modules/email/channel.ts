import type { Fragment, TxSql } from '../../db/connect.ts'
import type { Deps } from '../../deps.ts'
import type { Channel } from '../notifications/channel.ts'

/**
 * E-mail as a notification channel: one outbox row per written notification whose owner wants
 * its type by e-mail, in the notification's statement (sender.ts sends them later, exactly once).
 * Only to a verified address: a notification carries text other users chose (course and
 * homework titles), and an address nobody proved to own must never receive it. On only when the
 * process has an SMTP server (Deps.emailEnabled).
 */
export const emailChannel: Channel = {
  name: 'email',
  enabled: (deps: Deps) => deps.emailEnabled === true,
  // No ON CONFLICT (a speculative insertion per row): each row is for a notification this
  // statement has just written, whose id nothing else can hold yet. References checked per statement by triggers, not foreign keys (src/db/dropped-foreign-keys.ts).
  fanOut: (tx: TxSql, wants: Fragment) => tx`
    insert into email_outbox (id, notification_id, user_id, created_at, next_attempt_at)
    select w.id, w.id, w.user_id, w.delivered_at, w.delivered_at
      from written w
      -- A keyed probe per row: the planner cannot size \`written\` and hashed all users per batch.
      cross join lateral (select 1 from users u where u.id = w.user_id and u.email_verified limit 1) u
     where ${wants}`,
}
