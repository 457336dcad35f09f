/*
 * The background fan-out's interface (the runner is src/fanout.ts): what the services and the
 * reminder hooks need from it, in a file of its own so that modules depend on this, not on the
 * runner that depends on them.
 */

/** What the hooks need to decide: inline or queued. */
export interface FanoutPolicy {
  /** Courses of more students are fanned out in the background (FANOUT_INLINE_STUDENTS). */
  inlineStudents: number
  /** A job is queued in this many parts of the course's students, written at once (FANOUT_WORKERS). */
  parts: number
}

export interface Fanout extends FanoutPolicy {
  /** Starts the runner (after a commit that queued work); returns at once. */
  kick(): void
  /** Works the queue until it is empty (the cron job, tests); the number of chunks done. */
  drain(): Promise<number>
  /** Shutting down: no chunk starts after the current one, which this waits for. */
  stop(): Promise<void>
}
