import type { Sql } from '../../db/connect.ts'
import { AppError, notFound } from '../../http/errors.ts'
import type { CourseAccess } from '../../http/guards.ts'
import type { Channel } from '../notifications/channel.ts'
import { notifyEventsWith } from '../notifications/notify.ts'
import { findTask } from './structure-queries.ts'
import { releaseHeld } from './submission-queries.ts'
import { linkOf } from '../notifications/types.ts'

/*
 * Releasing a task's grades (issue 54, Canvas' "post grades", Classroom's "return"). Under
 * MANUAL release a grade waits in the sheet's held_* columns (sql/058); the release moves every
 * held grade of the task into the sheets and tells each student once, in one statement: the
 * update is the CTE the notifications are written from, so a student with several released
 * sheets gets one notification (their newest sheet's score) and a second release of the same
 * task finds nothing held and tells nobody.
 */

export const gradesHeld = () =>
  new AppError('GRADES_HELD', 'Grades here are waiting for release. Release them before switching to automatic release.')

export interface Released {
  /** Sheets whose grade was released. */
  released: number
  /** Students told (one notification each). */
  notified: number
}

export async function releaseTask(sql: Sql, course: CourseAccess, taskId: string, now: Date, channels: readonly Channel[]): Promise<Released> {
  return sql.begin(async (tx) => {
    const task = await findTask(tx, course.id, taskId)
    if (!task) throw notFound('TASK_NOT_FOUND', 'This learning task does not exist in this course.')
    const params = tx`jsonb_build_object('kind', 'SUBMISSION_GRADED', 'subject', 'TASK', 'courseId', ${course.id}::text,
                        'courseTitle', (select title from courses where id = ${course.id}), 'title', ${task.title}::text, 'score', r.score::float8)`
    const { written, extra } = await notifyEventsWith<{ released: number }>(
      tx,
      {
        ctes: tx`released as (${releaseHeld(tx, course.id, taskId)}),
                 newest as (select distinct on (student_id) student_id, score from released order by student_id, submitted_at desc, id desc)`,
        source: tx`select r.student_id as user_id, ${params} as params, ${linkOf({ kind: 'SUBMISSION_GRADED', subject: 'TASK', courseId: course.id }, { itemId: taskId })}::text as action_path,
                          null::uuid as event_id
                     from newest r`,
        summary: tx`jsonb_build_object('released', (select count(*) from released))`,
        arbitrate: 'none',
      },
      { now, channels },
    )
    return { released: Number(extra.released), notified: written }
  })
}
