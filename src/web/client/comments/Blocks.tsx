import { useT } from '../i18n/index.ts'
import { useCourse } from '../queries.ts'
import { CommentThread, threadPath } from './Thread.tsx'
import { COMMENTS } from './messages.ts'

/** Who may write in a course's class threads, and why not. */
function useClassWriting(courseId: string, isTeacher: boolean) {
  const { t } = useT(COMMENTS)
  const course = useCourse(courseId).data
  if (course?.archived) return { canWrite: false, reason: t('archived') }
  if (!isTeacher && course && !course.studentComments) return { canWrite: false, reason: t('off') }
  return { canWrite: Boolean(course), reason: undefined }
}

/** The class thread under an announcement or a task, folded until opened. */
export function ClassComments({ courseId, isTeacher, on }: { courseId: string; isTeacher: boolean; on: { announcementId: string } | { taskId: string } }) {
  const { t } = useT(COMMENTS)
  const w = useClassWriting(courseId, isTeacher)
  const path = 'announcementId' in on ? threadPath.announcement(courseId, on.announcementId) : threadPath.task(courseId, on.taskId)
  return (
    <details className="comments-block" data-comments="class">
      <summary>{t('classHeading')}</summary>
      <CommentThread path={path} isTeacher={isTeacher} canWrite={w.canWrite} readOnlyReason={w.reason} />
    </details>
  )
}

/** A student's private thread on a task: under the task for the student, beside their work in grading for the teachers. */
export function PrivateComments({ courseId, taskId, studentId, studentName, isTeacher, open = false }: { courseId: string; taskId: string; studentId: string; studentName?: string; isTeacher: boolean; open?: boolean }) {
  const { t } = useT(COMMENTS)
  const course = useCourse(courseId).data
  return (
    <details className="comments-block" data-comments="private" open={open}>
      <summary>{t('privateHeading')}</summary>
      <p className="meta">{isTeacher && studentName ? t('privateHintTeacher', { name: studentName }) : t('privateHint')}</p>
      <CommentThread
        path={threadPath.private(courseId, taskId, studentId)}
        isTeacher={isTeacher}
        canWrite={Boolean(course) && !course?.archived}
        readOnlyReason={course?.archived ? t('archived') : undefined}
        private
        placeholder={t('placeholderPrivate')}
      />
    </details>
  )
}
