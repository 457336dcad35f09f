import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { NS } from '../manage/messages.ts'
import type { GradesReleased } from '../types.ts'
import { ErrorNotice } from '../ui/Notice.tsx'

/**
 * MANUAL release (issue 54), for a task or an experiment: how many students' grades are held,
 * and "Release grades", which makes them the students' in one request; the answer's counts are shown.
 */
export function ReleaseGrades({ path, held, invalidate }: { path: string; held: number; invalidate: readonly (readonly unknown[])[] }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const release = useMutation({
    mutationFn: () => api<GradesReleased>('POST', path),
    onSuccess: () => {
      for (const queryKey of invalidate) void queryClient.invalidateQueries({ queryKey })
    },
  })
  const done = release.data
  return (
    <div className="release-bar" data-testid="release-bar">
      <p className="hint">{held > 0 ? t('grading.releaseHint', { count: held }) : t('grading.releaseNone')}</p>
      <button type="button" className="btn btn-primary" disabled={release.isPending} onClick={() => release.mutate()}>
        {release.isPending ? t('grading.releasing') : t('grading.release')}
      </button>{' '}
      {done && (
        <span className="saved" role="status" data-testid="released">
          {done.released > 0 ? t('grading.released', { count: done.released, notified: done.notified }) : t('grading.releasedNothing')}
        </span>
      )}
      {release.error != null && <ErrorNotice error={release.error} />}
    </div>
  )
}
