import type { Channel, Deps } from '../deps.ts'
import { emailChannel } from '../modules/email/channel.ts'

/**
 * THE channel list: every way a notification leaves the service besides the inbox and the live
 * stream. A new channel is a file in its own module implementing `Channel` plus a line here;
 * notify (src/modules/notifications/notify.ts) fans out to the ones on in this process, and
 * /me/notification-preferences offers a switch per type for each one listed.
 */
export const CHANNELS: readonly Channel[] = [emailChannel]

/** The channels this process delivers on (their switches are on Deps): `Deps.channels`, set by `withServices`. */
export const channelsOn = (deps: Deps, all: readonly Channel[] = CHANNELS): Channel[] => all.filter((c) => c.enabled(deps))
