import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { api } from '../api.ts'
import { MODULE_LABELS } from '../modules.ts'
import type { TabProps } from './types.ts'
import { keys, useModules } from '../queries.ts'
import { useT } from '../i18n/index.ts'
import { NS } from './messages.ts'
import type { ModuleConfig } from '../types.ts'
import { QueryView, Success } from '../ui/Notice.tsx'
import { MoveButtons, ReorderStatus } from './Reorder.tsx'

/** Which sections the course workspace shows, and in what order. */
export function ModulesTab({ course }: TabProps) {
  const modules = useModules(course.id)
  return <QueryView query={modules}>{(list) => <ModulesEditor courseId={course.id} initial={list} />}</QueryView>
}

function ModulesEditor({ courseId, initial }: { courseId: string; initial: ModuleConfig[] }) {
  const { t } = useT(NS)
  const queryClient = useQueryClient()
  const [rows, setRows] = useState(initial)
  const [announce, setAnnounce] = useState('')
  useEffect(() => setRows(initial), [initial])
  const save = useMutation({
    mutationFn: () =>
      api<{ modules: ModuleConfig[] }>('PUT', `/courses/${courseId}/workspace/modules`, {
        modules: rows.map((m, i) => ({ moduleKey: m.moduleKey, enabled: m.enabled, sortOrder: i + 1 })),
      }),
    onSuccess: (d) => queryClient.setQueryData(keys.modules(courseId), [...d.modules].sort((a, b) => a.sortOrder - b.sortOrder)),
  })
  function move(i: number, to: number) {
    if (to < 0 || to >= rows.length) return
    const next = [...rows]
    const [m] = next.splice(i, 1)
    next.splice(to, 0, m!)
    setRows(next)
    setAnnounce(t('modules.moved', { name: MODULE_LABELS[m!.moduleKey], n: to + 1 }))
    save.reset()
  }
  return (
    <>
      <p>{t('modules.intro')}</p>
      <ol className="module-list">
        {rows.map((m, i) => (
          <li key={m.moduleKey} className="module-row">
            <span className="check">
              <input
                id={`module-${m.moduleKey}`}
                type="checkbox"
                checked={m.enabled}
                onChange={(e) => {
                  setRows((r) => r.map((x) => (x.moduleKey === m.moduleKey ? { ...x, enabled: e.target.checked } : x)))
                  save.reset()
                }}
              />
              <label htmlFor={`module-${m.moduleKey}`}>{MODULE_LABELS[m.moduleKey]}</label>
            </span>
            <span className="task-actions">
              <MoveButtons title={MODULE_LABELS[m.moduleKey]} index={i} count={rows.length} onMove={(to) => move(i, to)} />
            </span>
          </li>
        ))}
      </ol>
      <ReorderStatus announce={announce} error={save.error} />
      <button type="button" className="btn btn-primary" onClick={() => save.mutate()} disabled={save.isPending}>
        {save.isPending ? t('common.saving') : t('modules.save')}
      </button>
      {save.isSuccess && <Success>{t('modules.saved')}</Success>}
    </>
  )
}
