import type { Fragment, TxSql } from '../../db/connect.ts'
import type { Deps } from '../../deps.ts'

/*
 * A delivery channel besides the inbox and the live stream (e-mail today; web push or an LTI/IM
 * bridge would each be one more file implementing this in its own module, plus a line in the
 * channel list, src/channels.ts). Nothing in notifications/ knows a channel by name.
 *
 * A channel is a transactional outbox: `fanOut` is its part of the statement that writes the
 * notifications (notify.ts) — a data-modifying statement over the relation `written`
 * (id, user_id, notification_type, delivered_at) that records what this channel must deliver,
 * for the rows where `wants` (the owner's preference for this type on this channel, or the
 * type's default) is true. So a channel's deliveries commit or roll back with the notifications,
 * and whatever the fan-out, no id list passes through the process. Its own job sends them later.
 */
export interface Channel {
  /** Its key in /me/notification-preferences and in notification_channel_preferences.channel. */
  readonly name: string
  /** Whether this process delivers on it (a switch on Deps, e.g. e-mail needs SMTP_URL). */
  enabled(deps: Deps): boolean
  /** Its part of the writing statement; `wants` is a boolean expression over `w` (a row of `written`). */
  fanOut(tx: TxSql, wants: Fragment): Fragment
}
