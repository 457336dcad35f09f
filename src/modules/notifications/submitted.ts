import type { TxSql } from '../../db/connect.ts'
import { announceAt } from './bus.ts'
import type { Channel } from './channel.ts'
import { notify } from './notify.ts'
import { DIGEST_CHANNEL } from './preferences.ts'
import { linkOf, type SubmittedParams } from './types.ts'

/**
 * A student handed something in (issue 29.10): the course's teachers (owner and co-teachers)
 * are told, in the hand-in's transaction. One place for both subjects: an answer sheet links to
 * its task, an experiment report to that student's grading page.
 *
 * A digest per task (issue 54: 39 notifications for one homework): a teacher who keeps the
 * hand-in digest on (the default, `handInDigest` in the preferences) has at most one unread
 * hand-in notification per task, counted up by each new hand-in ("12 new hand-ins for
 * Essay 3") and moved to the top of the inbox; once read, the next hand-in starts a new one. A
 * teacher who turned it off gets one per hand-in, as before. The count-up happens under a
 * transaction lock per task, so two hand-ins at once never start two digests.
 */
export async function notifySubmissionReceived(
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
  const params: SubmittedParams = {
    kind: 'SUBMISSION_RECEIVED',
    subject: s.subject,
    courseId: s.course.id,
    courseTitle: s.course.title,
    taskId: s.item.id,
    title: s.item.title,
    submissionId: s.submission.id,
    student: s.submission.studentName,
    late: s.submission.late,
  }
  const actionPath = linkOf(params, { studentId: s.submission.studentId })
  await tx`select pg_advisory_xact_lock(hashtextextended(${'hand-in digest ' + s.item.id}, 0))`
  const teachers = await tx<{ user_id: string; digest: boolean }[]>`
    with t as (select c.teacher_id as user_id from courses c where c.id = ${s.course.id}
               union
               select ct.user_id from course_teachers ct where ct.course_id = ${s.course.id})
    select t.user_id,
           coalesce((select p.enabled from notification_channel_preferences p
                      where p.user_id = t.user_id and p.channel = ${DIGEST_CHANNEL} and p.notification_type = 'SUBMISSION_RECEIVED'), true) as digest
      from t`
  const digesting = teachers.filter((t) => t.digest).map((t) => t.user_id)
  const each = teachers.filter((t) => !t.digest).map((t) => t.user_id)
  // The unread digest of this task, where a teacher has one (notifications_unread_idx): counted up.
  const counted = digesting.length
    ? await tx<{ user_id: string }[]>`
        update notifications n
           set params = n.params || jsonb_build_object('count', (n.params->>'count')::int + 1, 'submissionId', ${s.submission.id}::text,
                                                       'student', ${s.submission.studentName}::text, 'late', ${s.submission.late}::boolean),
               action_path = ${actionPath}, delivered_at = ${now}
         where n.user_id = any(${digesting}::uuid[]) and n.notification_type = 'SUBMISSION_RECEIVED' and n.read_at is null
           and n.params->>'taskId' = ${s.item.id} and n.params ? 'count'
        returning n.user_id`
    : []
  if (counted.length) await announceAt(tx, now, counted.map((r) => r.user_id))
  const bumped = new Set(counted.map((r) => r.user_id))
  const starting = digesting.filter((id) => !bumped.has(id))
  let written = 0
  if (starting.length) written += await notify(tx, starting, { actionPath, params: { ...params, count: 1 } }, { now, channels })
  if (each.length) written += await notify(tx, each, { actionPath, params }, { now, channels })
  return written + counted.length
}
