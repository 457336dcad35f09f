import type { Sql } from '../../db/connect.ts'
import { conflict, invalidField } from '../../http/errors.ts'
import { homeworkScheduleChanged, homeworkUnpublished } from '../reminders/hooks.ts'
import type { TriggerType } from '../reminders/queries.ts'
import type { Fanout, FanoutPolicy } from '../../lib/fanout.ts'
import type { PublishState } from './model.ts'
import type { TaskRow } from './rows.ts'
import { publishDueTasks, type PublishValues } from './structure-queries.ts'

/**
 * Drafts and retiring work (issue 29.9). A task is DRAFT, SCHEDULED (published at `publishAt`
 * by the task-publisher job), PUBLISHED or UNPUBLISHED; students see PUBLISHED tasks only.
 * Reminders (and with them the "new homework" notification, a START event) exist only while a
 * task is published: publishing generates them as creating a homework always did, unpublishing
 * cancels the pending ones, and sql/042 drops any event another path writes for a hidden task.
 */

type Stored = Pick<TaskRow, 'publish_state' | 'publish_at' | 'published_at'>

/**
 * What a create (`before` null) or patch asks for → the stored publishing values. Left out:
 * a new task is PUBLISHED (clients that never heard of drafts are unchanged), an edit keeps the
 * state; `publishAt` alone schedules.
 */
export function nextPublication(before: Stored | null, state: PublishState | undefined, publishAt: string | null | undefined, now: Date): PublishValues {
  const wanted: PublishState = state ?? (publishAt ? 'SCHEDULED' : (before?.publish_state ?? 'PUBLISHED'))
  let at: Date | null = null
  if (wanted === 'SCHEDULED') {
    if (publishAt) {
      at = new Date(publishAt)
      if (at.getTime() <= now.getTime()) throw invalidField('publishAt', 'must be in the future')
    } else if (publishAt === undefined && before?.publish_state === 'SCHEDULED') {
      at = before.publish_at // an edit of a scheduled task keeps its time
    } else {
      throw invalidField('publishAt', 'is required to schedule a task')
    }
  } else if (publishAt) {
    throw invalidField('publishAt', 'only SCHEDULED tasks have a publish time')
  }
  // Rows written before sql/042 by other means (fixtures, old copies) may lack published_at.
  const everPublished = before != null && (before.published_at != null || before.publish_state === 'PUBLISHED' || before.publish_state === 'UNPUBLISHED')
  if (wanted === 'UNPUBLISHED' && !before) throw invalidField('state', 'a new task is DRAFT, SCHEDULED or PUBLISHED')
  if (wanted === 'UNPUBLISHED' && !everPublished) {
    throw conflict('CONFLICT', 'This task was never published, so it cannot be unpublished. Keep it as a draft (state DRAFT).')
  }
  if (wanted === 'DRAFT' && everPublished) {
    throw conflict('CONFLICT', 'This task was published before, so it cannot become a draft again. Unpublish it instead (state UNPUBLISHED).')
  }
  if (wanted === 'SCHEDULED' && before?.publish_state === 'PUBLISHED') {
    throw conflict('CONFLICT', 'This task is published. Unpublish it first to publish it again later.')
  }
  const publishing = wanted === 'PUBLISHED' && before?.publish_state !== 'PUBLISHED'
  return {
    state: wanted,
    publishAt: at,
    publishedAt: publishing ? now : (before?.published_at ?? null),
  }
}

export const isVisible = (state: PublishState) => state === 'PUBLISHED'

/**
 * After an edit wrote the task: what its reminders need. Becoming visible publishes (events as a
 * new homework gets, START at `now` when it is already open); becoming hidden cancels the pending
 * ones; a visible homework whose times changed is rescheduled; a hidden one has nothing to do.
 */
export async function afterEdit(
  tx: Parameters<typeof homeworkScheduleChanged>[0],
  taskId: string,
  before: { visible: boolean; wasHomework: boolean },
  after: { visible: boolean; isHomework: boolean },
  scheduleChanged: boolean,
  now: Date,
  /** The triggers whose time or switch changed (task-input `changedTriggers`); default all. */
  triggers?: readonly TriggerType[],
  fanout?: FanoutPolicy,
): Promise<boolean> {
  if (before.visible && !after.visible) {
    if (before.wasHomework) await homeworkUnpublished(tx, taskId)
    return false
  }
  if (!after.visible) return false
  if (!before.visible) return after.isHomework ? homeworkScheduleChanged(tx, taskId, now, { published: true }, fanout) : false
  if (scheduleChanged) return homeworkScheduleChanged(tx, taskId, now, { published: !before.wasHomework && after.isHomework, triggers }, fanout)
  return false
}

/**
 * The task-publisher job: publishes every scheduled task whose time has come, in batches of
 * `batch` (one transaction each: the state and the reminders together). Safe on several
 * instances at once (SKIP LOCKED) and driven by `now`, so tests call it directly.
 */
export async function publishScheduledTasks(sql: Sql, now: Date, batch = 100, fanout?: Fanout) {
  let published = 0
  let queued = false
  for (;;) {
    const n = await sql.begin(async (tx) => {
      const rows = await publishDueTasks(tx, now, batch)
      // One fan-out statement per homework (a batch is the few tasks scheduled for this minute).
      for (const r of rows) {
        if (r.task_kind === 'HOMEWORK' && (await homeworkScheduleChanged(tx, r.id, now, { published: true }, fanout))) queued = true
      }
      return rows.length
    })
    published += n
    if (n < batch) break
  }
  if (queued) fanout!.kick()
  return { published }
}
