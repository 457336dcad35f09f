import { channelsOn } from './channels.ts'
import type { Deps } from './deps.ts'
import type { Fanout } from './lib/fanout.ts'
import { announcementChunk } from './modules/announcements/fanout.ts'
import { reminderChunk } from './modules/reminders/fanout.ts'

export type { Fanout, FanoutPolicy } from './lib/fanout.ts'

/*
 * The background fan-out (issue 26). A homework or an announcement in a course of more than
 * FANOUT_INLINE_STUDENTS students is committed with a queue row (sql/045) instead of its
 * 300,000 reminder events or 100,000 notifications; `kick` after the commit starts this
 * process's runner, which works the queue in chunks of FANOUT_CHUNK_STUDENTS students, one
 * transaction each (the rows and the cursor together), until it is empty. The queue rows are
 * claimed FOR UPDATE SKIP LOCKED, so runners on several instances share the work and no chunk is
 * done twice; FANOUT_CRON runs the same loop to pick up what a stopped instance left.
 *
 * Courses up to the limit are written inline, in the request's transaction, as before.
 */

const runners = new WeakMap<Deps, Fanout>()

/** The app's fan-out (one per Deps, like its stream hub and overview cache). */
export function fanoutOf(deps: Deps): Fanout {
  let f = runners.get(deps)
  if (!f) {
    f = createFanout(deps)
    runners.set(deps, f)
  }
  return f
}

function createFanout(deps: Deps): Fanout {
  const size = deps.config.fanoutChunkStudents
  let running: Promise<void> | null = null
  let again = false
  let stopped = false

  /** Chunks until both queues are empty (or held by other runners and edits). */
  async function work(): Promise<number> {
    let chunks = 0
    while (!stopped) {
      const reminders = await reminderChunk(deps.sql, size)
      const announcements = await announcementChunk(deps.sql, size, deps.clock.now(), channelsOn(deps))
      if (!reminders && !announcements) return chunks
      chunks += Number(reminders) + Number(announcements)
    }
    return chunks
  }

  return {
    inlineStudents: deps.config.fanoutInlineStudents,
    kick() {
      if (stopped) return
      if (running) {
        again = true
        return
      }
      running = (async () => {
        do {
          again = false
          await work()
        } while (again)
      })()
        .catch((e) => deps.log.warn('background fan-out stopped; FANOUT_CRON resumes it', { error: String(e) }))
        .finally(() => {
          running = null
        })
    },
    async drain() {
      while (running) await running
      return work()
    },
    async stop() {
      stopped = true
      while (running) await running
    },
  }
}
