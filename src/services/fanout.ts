import type { Deps } from '../deps.ts'
import type { Fanout } from '../lib/fanout.ts'
import { announcementChunk } from '../modules/announcements/fanout.ts'
import { reminderChunk } from '../modules/reminders/fanout.ts'

export type { Fanout, FanoutPolicy } from '../lib/fanout.ts'

/*
 * The background fan-out (issue 26). A homework or an announcement in a course of more than
 * FANOUT_INLINE_STUDENTS students is committed with a queue row (sql/045) instead of its
 * 300,000 reminder events or 100,000 notifications, in FANOUT_WORKERS parts of the course's
 * students (sql/050); `kick` after the commit starts this process's runner, which works the
 * queue with FANOUT_WORKERS workers at once in chunks of FANOUT_CHUNK_STUDENTS students, one
 * transaction each (the rows and the part's cursor together), until it is empty. The queue rows
 * are claimed FOR UPDATE SKIP LOCKED, so the workers, and runners on several instances, share
 * the work (one homework's parts are written at once) and no chunk is done twice; FANOUT_CRON
 * runs the same loop to pick up what a stopped instance left.
 *
 * Courses up to the limit are written inline, in the request's transaction, as before.
 */

/**
 * The app's fan-out runner, built once by the composition root (src/services/index.ts
 * `withServices`, called by server.ts and the test harness) and passed as `Deps.fanout`: the
 * routes that queue work reach it there, never through an import of this file (issue 50: it
 * was found through a WeakMap keyed by Deps, and announcements ↔ fanout was a folder cycle).
 */
export function createFanout(deps: Deps): Fanout {
  const size = deps.config.fanoutChunkStudents
  let running: Promise<void> | null = null
  let again = false
  let stopped = false

  // Chunks written at once: a job's parts (sql/050) each take a connection.
  const workers = Math.max(1, Math.min(deps.config.fanoutWorkers, deps.db.maxConnections))

  /** Chunks until both queues are empty (or held by other runners and edits). */
  async function worker(): Promise<number> {
    let chunks = 0
    while (!stopped) {
      const reminders = await reminderChunk(deps.sql, size)
      const announcements = await announcementChunk(deps.sql, size, deps.clock.now(), deps.channels)
      if (!reminders && !announcements) return chunks
      chunks += Number(reminders) + Number(announcements)
    }
    return chunks
  }

  /** `workers` of them at once, each claiming what the others do not hold; the chunks done. */
  async function work(): Promise<number> {
    const done = await Promise.all(Array.from({ length: workers }, worker))
    return done.reduce((a, b) => a + b, 0)
  }

  return {
    inlineStudents: deps.config.fanoutInlineStudents,
    parts: deps.config.fanoutWorkers,
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
