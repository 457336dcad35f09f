import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState, type DragEvent, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api, fieldErrors } from '../api.ts'
import type { TabProps } from './types.ts'
import { keys, useLearning, useMembers, useReminders } from '../queries.ts'
import type { EditedTask, LearningTree, Point, Task, Unit } from '../types.ts'
import { RegradeNotice } from '../teaching/QuizEditNotices.tsx'
import { Badge } from '../ui/Badge.tsx'
import { TableWrap, TextArea, TextField, SubmitButton } from '../ui/form.tsx'
import { Empty, ErrorNotice, QueryView } from '../ui/Notice.tsx'
import { Time } from '../ui/time.tsx'
import { useT } from '../i18n/index.ts'
import { NS } from './messages.ts'
import { DeleteButton } from './DeleteButton.tsx'
import { taskTypeLabel } from '../workspace/TaskCard.tsx'
import { isGradable } from './Grading.tsx'
import { TaskForm } from './TaskForm.tsx'
import { LtiPicker } from '../lti/Lti.tsx'
import { PublishBadge, PublishButton } from '../publishing/Publishing.tsx'
import { MoveButtons, ReorderStatus } from './Reorder.tsx'

/** Units → knowledge points → tasks, with create/edit forms and task reordering. */
export function LearningTab({ course }: TabProps) {
  const { t: tr } = useT(NS)
  const tree = useLearning(course.id)
  return (
    <>
      <QueryView query={tree} loading={tr('learning.loading')}>
        {(t) =>
          t.units.length === 0 ? (
            <Empty>{tr('learning.empty')}</Empty>
          ) : (
            <ol className="tree manage-tree">
              {t.units.map((u, i) => (
                <li key={u.id} className="unit">
                  <UnitEditor unit={u} index={i} courseId={course.id} />
                </li>
              ))}
            </ol>
          )
        }
      </QueryView>
      <TitleForm
        legend={tr('learning.addUnit')}
        submitLabel={tr('learning.addUnitButton')}
        path={`/courses/${course.id}/learning/units`}
        courseId={course.id}
        titleLabel={tr('learning.unitTitle')}
      />
    </>
  )
}

function useInvalidateTree(courseId: string) {
  const queryClient = useQueryClient()
  return () => {
    void queryClient.invalidateQueries({ queryKey: keys.learning(courseId) })
    void queryClient.invalidateQueries({ queryKey: keys.homeworks })
  }
}

/** Creates (POST `path`) or edits (PATCH `path`) a unit or a point: a title and a description. */
function TitleForm({
  legend,
  submitLabel,
  path,
  method = 'POST',
  courseId,
  titleLabel,
  initial,
  onDone,
}: {
  legend: string
  submitLabel: string
  path: string
  method?: 'POST' | 'PATCH'
  courseId: string
  titleLabel: string
  initial?: { title: string; description: string | null }
  onDone?: () => void
}) {
  const { t } = useT(NS)
  const invalidate = useInvalidateTree(courseId)
  const [title, setTitle] = useState(initial?.title ?? '')
  const [description, setDescription] = useState(initial?.description ?? '')
  const [error, setError] = useState<string>()
  const save = useMutation({
    mutationFn: () => api<unknown>(method, path, { title: title.trim(), description: description.trim() }),
    onSuccess: () => {
      invalidate()
      if (method === 'POST') {
        setTitle('')
        setDescription('')
      }
      onDone?.()
    },
    onError: (e) => setError(fieldErrors(e).title),
  })
  function submit(e: FormEvent) {
    e.preventDefault()
    if (!title.trim()) return setError(t('learning.titleRequired'))
    setError(undefined)
    save.mutate()
  }
  return (
    <form className="inline-form" onSubmit={submit} noValidate aria-label={legend}>
      <fieldset>
        <legend>{legend}</legend>
        <TextField label={titleLabel} value={title} onChange={(e) => setTitle(e.target.value)} error={error} maxLength={200} required />
        <TextArea label={t('learning.description')} rows={2} value={description} onChange={(e) => setDescription(e.target.value)} hint={t('learning.optional')} />
        {save.error && !error && <ErrorNotice error={save.error} />}
        <div className="actions">
          <SubmitButton className="btn btn-primary btn-small" pending={save.isPending} pendingLabel={t('learning.saving')} label={submitLabel} />
          {onDone && (
            <button type="button" className="btn btn-small btn-ghost" onClick={onDone}>
              {t('learning.cancel')}
            </button>
          )}
        </div>
      </fieldset>
    </form>
  )
}

function UnitEditor({ unit, index, courseId }: { unit: Unit; index: number; courseId: string }) {
  const { t } = useT(NS)
  const invalidate = useInvalidateTree(courseId)
  const [editing, setEditing] = useState(false)
  return (
    <>
      <div className="item-head">
        <h3>{t('learning.unitHeading', { n: index + 1, title: unit.title })}</h3>
        <button aria-label={t('learning.editUnit', { title: unit.title })} type="button" className="btn btn-small btn-ghost" onClick={() => setEditing((x) => !x)} aria-expanded={editing}>
          {t('learning.edit')}
        </button>
        <DeleteButton
          label={t('learning.deleteUnit', { title: unit.title })}
          confirm={t('learning.confirmDeleteUnit', { title: unit.title })}
          path={`/courses/${courseId}/learning/units/${unit.id}`}
          onDeleted={invalidate}
        />
      </div>
      {unit.description && <p className="meta">{unit.description}</p>}
      {editing && (
        <TitleForm
          legend={t('learning.editUnit', { title: unit.title })}
          submitLabel={t('learning.saveUnit')}
          method="PATCH"
          path={`/courses/${courseId}/learning/units/${unit.id}`}
          courseId={courseId}
          titleLabel={t('learning.unitTitle')}
          initial={unit}
          onDone={() => setEditing(false)}
        />
      )}
      <ol className="points">
        {unit.points.map((p) => (
          <li key={p.id} className="point">
            <PointEditor point={p} courseId={courseId} />
          </li>
        ))}
      </ol>
      <TitleForm
        legend={t('learning.addPoint', { title: unit.title })}
        submitLabel={t('learning.addPointButton')}
        path={`/courses/${courseId}/learning/units/${unit.id}/points`}
        courseId={courseId}
        titleLabel={t('learning.pointTitle')}
      />
    </>
  )
}

function PointEditor({ point, courseId }: { point: Point; courseId: string }) {
  const { t } = useT(NS)
  const [editing, setEditing] = useState(false)
  const [adding, setAdding] = useState(false)
  const invalidate = useInvalidateTree(courseId)
  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<Task>('POST', `/courses/${courseId}/learning/points/${point.id}/tasks`, body),
    onSuccess: () => {
      invalidate()
      setAdding(false)
    },
  })
  return (
    <>
      <div className="item-head">
        <h4>{point.title}</h4>
        <button aria-label={t('learning.editPoint', { title: point.title })} type="button" className="btn btn-small btn-ghost" onClick={() => setEditing((x) => !x)} aria-expanded={editing}>
          {t('learning.edit')}
        </button>
        <DeleteButton
          label={t('learning.deletePoint', { title: point.title })}
          confirm={t('learning.confirmDeletePoint', { title: point.title })}
          path={`/courses/${courseId}/learning/points/${point.id}`}
          onDeleted={invalidate}
        />
      </div>
      {point.description && <p className="meta">{point.description}</p>}
      {editing && (
        <TitleForm
          legend={t('learning.editPoint', { title: point.title })}
          submitLabel={t('learning.savePoint')}
          method="PATCH"
          path={`/courses/${courseId}/learning/points/${point.id}`}
          courseId={courseId}
          titleLabel={t('learning.pointTitle')}
          initial={point}
          onDone={() => setEditing(false)}
        />
      )}
      <TaskList point={point} courseId={courseId} />
      {adding ? (
        <TaskForm courseId={courseId} onSubmit={(b) => create.mutate(b)} onCancel={() => setAdding(false)} pending={create.isPending} error={create.error} />
      ) : (
        <button aria-label={t('learning.addTaskTo', { title: point.title })} type="button" className="btn btn-small" onClick={() => {
            create.reset()
            setAdding(true)
          }}>
          {t('learning.addTask')}
        </button>
      )}{' '}
      {!adding && <LtiPicker courseId={courseId} pointId={point.id} pointTitle={point.title} />}
    </>
  )
}

/**
 * The tasks of one point in order. Reorder by dragging (HTML5 drag and drop) or with the
 * Move up / Move down buttons (keyboard); each change is saved with PATCH …/tasks/order.
 */
function TaskList({ point, courseId }: { point: Point; courseId: string }) {
  const { t: tr } = useT(NS)
  const queryClient = useQueryClient()
  const [order, setOrder] = useState(() => point.tasks.map((t) => t.id))
  const [dragging, setDragging] = useState<string | null>(null)
  const [over, setOver] = useState<string | null>(null)
  const [announce, setAnnounce] = useState('')
  const serverOrder = point.tasks.map((t) => t.id).join(',')
  useEffect(() => setOrder(serverOrder ? serverOrder.split(',') : []), [serverOrder])

  const save = useMutation({
    mutationFn: (ids: string[]) => api<unknown>('PATCH', `/courses/${courseId}/learning/points/${point.id}/tasks/order`, { orderedTaskIds: ids }),
    onMutate: (ids) => {
      // Optimistic: the tree shows the new order at once; an error restores the server's.
      queryClient.setQueryData<LearningTree>(keys.learning(courseId), (tree) =>
        tree && {
          units: tree.units.map((u) => ({
            ...u,
            points: u.points.map((p) => (p.id !== point.id ? p : { ...p, tasks: ids.map((id, i) => ({ ...p.tasks.find((t) => t.id === id)!, sortOrder: i + 1 })) })),
          })),
        },
      )
    },
    onError: () => setOrder(serverOrder.split(',')),
    onSettled: () => void queryClient.invalidateQueries({ queryKey: keys.learning(courseId) }),
  })

  const byId = new Map(point.tasks.map((t) => [t.id, t]))
  const tasks = order.map((id) => byId.get(id)).filter((t): t is Task => Boolean(t))

  function move(from: number, to: number) {
    if (to < 0 || to >= order.length || from === to) return
    const next = [...order]
    const [id] = next.splice(from, 1)
    next.splice(to, 0, id!)
    setOrder(next)
    setAnnounce(tr('learning.moved', { title: byId.get(id!)?.title, n: to + 1, total: next.length }))
    save.mutate(next)
  }

  const onDragStart = (id: string) => (e: DragEvent) => {
    setDragging(id)
    e.dataTransfer.effectAllowed = 'move'
    e.dataTransfer.setData('text/plain', id)
  }
  const onDragOver = (id: string) => (e: DragEvent) => {
    if (!dragging) return
    e.preventDefault()
    e.dataTransfer.dropEffect = 'move'
    setOver(id)
  }
  const onDrop = (id: string) => (e: DragEvent) => {
    e.preventDefault()
    const from = order.indexOf(dragging ?? e.dataTransfer.getData('text/plain'))
    const to = order.indexOf(id)
    setDragging(null)
    setOver(null)
    if (from >= 0 && to >= 0) move(from, to)
  }

  if (tasks.length === 0) return <Empty>{tr('learning.noTasks')}</Empty>
  return (
    <>
      <p className="hint">{tr('learning.dragHint')}</p>
      <ol className="task-order" data-testid={`task-order-${point.id}`}>
        {tasks.map((t, i) => (
          <li
            key={t.id}
            draggable
            onDragStart={onDragStart(t.id)}
            onDragOver={onDragOver(t.id)}
            onDragLeave={() => setOver((o) => (o === t.id ? null : o))}
            onDrop={onDrop(t.id)}
            onDragEnd={() => {
              setDragging(null)
              setOver(null)
            }}
            className={`task-row${dragging === t.id ? ' dragging' : ''}${over === t.id && dragging !== t.id ? ' drop-target' : ''}`}
            data-task-id={t.id}
            data-publish-state={t.state}
          >
            <TaskRow task={t} courseId={courseId} index={i} count={tasks.length} onMove={(to) => move(i, to)} />
          </li>
        ))}
      </ol>
      <ReorderStatus announce={announce} error={save.error} />
    </>
  )
}

function TaskRow({ task, courseId, index, count, onMove }: { task: Task; courseId: string; index: number; count: number; onMove: (to: number) => void }) {
  const { t } = useT(NS)
  const [panel, setPanel] = useState<'edit' | 'reminders' | null>(null)
  const [regrade, setRegrade] = useState<EditedTask['regrade']>(null)
  const invalidate = useInvalidateTree(courseId)
  const queryClient = useQueryClient()
  const update = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<EditedTask>('PATCH', `/courses/${courseId}/learning/tasks/${task.id}`, body),
    onSuccess: (edited) => {
      setRegrade(edited.regrade)
      // The sheets' scores changed with the key: grading lists and gradebooks refetch.
      if (edited.regrade) void queryClient.invalidateQueries()
      invalidate()
      void queryClient.invalidateQueries({ queryKey: keys.reminders(courseId, task.id) })
      setPanel(null)
    },
  })
  const toggle = (p: 'edit' | 'reminders') => setPanel((x) => (x === p ? null : p))
  return (
    <>
      <div className="task-row-head">
        <span className="drag-handle" aria-hidden="true">
          ⋮⋮
        </span>
        <span className="task-title">{task.title}</span>
        <span className="task-tags">
          <PublishBadge task={task} />
          {task.taskKind === 'HOMEWORK' && <Badge tone="warn">{t('learning.homework')}</Badge>}
          <Badge>{taskTypeLabel(task)}</Badge>
          {task.taskKind === 'HOMEWORK' && (
            <span className="meta">
              {t('learning.due')} <Time iso={task.dueAt} />
            </span>
          )}
        </span>
        <span className="task-actions">
          <MoveButtons title={task.title} index={index} count={count} onMove={onMove} />
          <PublishButton task={task} courseId={courseId} onDone={invalidate} />
          <button aria-label={t('learning.editTask', { title: task.title })} type="button" className="btn btn-small" aria-expanded={panel === 'edit'} onClick={() => toggle('edit')}>
            {t('learning.edit')}
          </button>
          {task.taskKind === 'HOMEWORK' && (
            <button aria-label={t('learning.remindersOf', { title: task.title })} type="button" className="btn btn-small" aria-expanded={panel === 'reminders'} onClick={() => toggle('reminders')}>
              {t('learning.reminders')}
            </button>
          )}
          {isGradable(task) && (
            <Link aria-label={t('learning.submissionsOf', { title: task.title })} className="btn btn-small" to={`?tab=grading&taskId=${task.id}`}>
              {t('learning.submissions')}
            </Link>
          )}
          <DeleteButton
            label={t('learning.deleteTask', { title: task.title })}
            confirm={t('learning.confirmDeleteTask', { title: task.title })}
            path={`/courses/${courseId}/learning/tasks/${task.id}`}
            onDeleted={invalidate}
          />
        </span>
      </div>
      {panel === 'edit' && (
        <TaskForm courseId={courseId} task={task} onSubmit={(b) => update.mutate(b)} onCancel={() => setPanel(null)} pending={update.isPending} error={update.error} />
      )}
      {panel === 'reminders' && <ReminderSchedule courseId={courseId} task={task} />}
      {regrade && panel === null && <RegradeNotice regrade={regrade} />}
    </>
  )
}

/** The reminder events of one homework: who gets which reminder when, and whether it went out. */
export function ReminderSchedule({ courseId, task }: { courseId: string; task: Task }) {
  const { t } = useT(NS)
  const events = useReminders(courseId, task.id)
  const members = useMembers(courseId)
  const names = new Map((members.data ?? []).map((m) => [m.userId, m.displayName || m.username]))
  return (
    <div className="reminders">
      <h5>{t('reminders.heading', { title: task.title })}</h5>
      <QueryView query={events} loading={t('reminders.loading')}>
        {(list) =>
          list.length === 0 ? (
            <Empty>{t('reminders.empty')}</Empty>
          ) : (
            <TableWrap label={t('reminders.table', { title: task.title })}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('reminders.student')}</th>
                    <th scope="col">{t('reminders.reminder')}</th>
                    <th scope="col">{t('reminders.scheduled')}</th>
                    <th scope="col">{t('reminders.state')}</th>
                  </tr>
                </thead>
                <tbody>
                  {[...list]
                    .sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt))
                    .map((e) => (
                      <tr key={e.id}>
                        <td>{names.get(e.targetUserId) ?? e.targetUserId.slice(0, 8)}</td>
                        <td>{t(`reminders.trigger.${e.triggerType}`)}</td>
                        <td>
                          <Time iso={e.scheduledAt} />
                        </td>
                        <td>
                          <Badge tone={e.state === 'SENT' ? 'ok' : e.state === 'CANCELED' ? 'neutral' : 'info'}>
                            {t(`reminders.stateName.${e.state}`)}
                          </Badge>
                          {e.sentAt && (
                            <span className="meta">
                              {' '}
                              <Time iso={e.sentAt} />
                            </span>
                          )}
                        </td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </QueryView>
    </div>
  )
}
