import { useMutation } from '@tanstack/react-query'
import { api } from '../api.ts'
import { useT } from '../i18n/index.ts'
import { ErrorNotice } from '../ui/Notice.tsx'
import { NS } from './messages.ts'

/**
 * Delete with a confirmation that names what goes. A refusal (409: students already submitted
 * work) is shown next to the button, in the server's words.
 */
export function DeleteButton({ label, confirm, path, onDeleted }: { label: string; confirm: string; path: string; onDeleted: () => void }) {
  const { t } = useT(NS)
  const remove = useMutation({ mutationFn: () => api<unknown>('DELETE', path), onSuccess: onDeleted })
  return (
    <>
      <button
        type="button"
        className="btn btn-small btn-ghost btn-danger"
        aria-label={label}
        disabled={remove.isPending}
        onClick={() => {
          if (window.confirm(confirm)) remove.mutate()
        }}
      >
        {remove.isPending ? t('common.deleting') : t('common.delete')}
      </button>
      {remove.error != null && <ErrorNotice error={remove.error} />}
    </>
  )
}
