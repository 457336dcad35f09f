/*
 * A delivery channel besides the inbox and the live stream (e-mail today; web push or an LTI/IM
 * bridge would each be one more file implementing this in its own module, plus a line in the
 * channel list, src/services/channels.ts). Nothing in notifications/ knows a channel by name.
 * The interface is declared in src/deps.ts (`Deps.channels` holds the ones this process delivers
 * on) and re-exported here.
 *
 * A channel is a transactional outbox: `fanOut` is its part of the statement that writes the
 * notifications (notify.ts) — a data-modifying statement over the relation `written`
 * (id, user_id, notification_type, delivered_at) that records what this channel must deliver,
 * for the rows where `wants` (the owner's preference for this type on this channel, or the
 * type's default) is true. So a channel's deliveries commit or roll back with the notifications,
 * and whatever the fan-out, no id list passes through the process. Its own job sends them later.
 */
export type { Channel } from '../../deps.ts'
