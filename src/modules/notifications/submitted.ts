import type { TxSql } from '../../db/connect.ts'
import type { Channel } from './channel.ts'
import { notify } from './notify.ts'

/**
 * A student handed something in (issue 29.10): the course's teachers (owner and co-teachers)
 * are told, in the hand-in's transaction. One place for both subjects: an answer sheet links to
 * its task, an experiment report to that student's grading page.
 */
export function notifySubmissionReceived(
  tx: TxSql,
  s: {
    course: { id: string; title: string }
    subject: 'TASK' | 'EXPERIMENT'
    /** The task or experiment. */
    item: { id: string; title: string }
    submission: { id: string; studentId: string; studentName: string; late: boolean }
  },
  now: Date,
  channels: readonly Channel[],
) {
  const actionPath =
    s.subject === 'TASK'
      ? `/courses/${s.course.id}?taskId=${s.item.id}`
      : `/courses/${s.course.id}/manage?tab=grading&experimentId=${s.item.id}&student=${s.submission.studentId}`
  return notify(
    tx,
    { courseTeachers: s.course.id },
    {
      actionPath,
      params: {
        kind: 'SUBMISSION_RECEIVED',
        subject: s.subject,
        courseId: s.course.id,
        courseTitle: s.course.title,
        taskId: s.item.id,
        title: s.item.title,
        submissionId: s.submission.id,
        student: s.submission.studentName,
        late: s.submission.late,
      },
    },
    { now, channels },
  )
}
