import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useNavigate } from 'react-router'
import { api } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { keys } from '../queries.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { NS } from './messages.ts'

/** "Leave course" for a student, after a confirmation that says what is kept. */
export function LeaveCourse({ courseId, title }: { courseId: string; title: string }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const leave = useMutation({
    mutationFn: () => api<null>('POST', `/courses/${encodeURIComponent(courseId)}/leave`),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: keys.course(courseId) })
      void queryClient.invalidateQueries({ queryKey: keys.courses })
      void navigate('/courses')
    },
  })
  return (
    <>
      <button
        type="button"
        className="btn btn-ghost btn-danger"
        disabled={leave.isPending}
        onClick={() => {
          if (window.confirm(t('leave.confirm', { title }))) leave.mutate()
        }}
      >
        {leave.isPending ? t('leave.leaving') : t('leave.button')}
      </button>
      {leave.error != null && <ErrorNotice error={leave.error} />}
    </>
  )
}
