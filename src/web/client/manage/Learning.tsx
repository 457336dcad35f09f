import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState, type DragEvent, type FormEvent } from 'react'
import { Link } from 'react-router'
import { api, fieldErrors } from '../api.ts'
import type { TabProps } from './types.ts'
import { keys, useLearning, useMembers, useReminders } from '../queries.ts'
import type { LearningTree, Point, Task, Unit } from '../types.ts'
import { Badge } from '../ui/Badge.tsx'
import { TableWrap, TextArea, TextField } from '../ui/form.tsx'
import { Empty, ErrorNotice, QueryView } from '../ui/Notice.tsx'
import { Time } from '../ui/time.tsx'
import { taskTypeLabel } from '../workspace/TaskCard.tsx'
import { TaskForm } from './TaskForm.tsx'

/** Units → knowledge points → tasks, with create/edit forms and task reordering. */
export function LearningTab({ course }: TabProps) {
  const tree = useLearning(course.id)
  return (
    <>
      <QueryView query={tree} loading="Loading the learning structure…">
        {(t) =>
          t.units.length === 0 ? (
            <Empty>No units yet. Start with a unit (a chapter or a week), then add knowledge points and tasks to it.</Empty>
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
        legend="Add a unit"
        submitLabel="Add unit"
        path={`/courses/${course.id}/learning/units`}
        courseId={course.id}
        titleLabel="Unit title"
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
    if (!title.trim()) return setError('Enter a title.')
    setError(undefined)
    save.mutate()
  }
  return (
    <form className="inline-form" onSubmit={submit} noValidate aria-label={legend}>
      <fieldset>
        <legend>{legend}</legend>
        <TextField label={titleLabel} value={title} onChange={(e) => setTitle(e.target.value)} error={error} maxLength={200} required />
        <TextArea label="Description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} hint="Optional." />
        {save.error && !error && <ErrorNotice error={save.error} />}
        <div className="actions">
          <button type="submit" className="btn btn-primary btn-small" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : submitLabel}
          </button>
          {onDone && (
            <button type="button" className="btn btn-small btn-ghost" onClick={onDone}>
              Cancel
            </button>
          )}
        </div>
      </fieldset>
    </form>
  )
}

function UnitEditor({ unit, index, courseId }: { unit: Unit; index: number; courseId: string }) {
  const [editing, setEditing] = useState(false)
  return (
    <>
      <div className="item-head">
        <h3>
          Unit {index + 1}: {unit.title}
        </h3>
        <button aria-label={`Edit unit ${unit.title}`} type="button" className="btn btn-small btn-ghost" onClick={() => setEditing((x) => !x)} aria-expanded={editing}>
          Edit
        </button>
      </div>
      {unit.description && <p className="meta">{unit.description}</p>}
      {editing && (
        <TitleForm
          legend={`Edit unit ${unit.title}`}
          submitLabel="Save unit"
          method="PATCH"
          path={`/courses/${courseId}/learning/units/${unit.id}`}
          courseId={courseId}
          titleLabel="Unit title"
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
        legend={`Add a knowledge point to ${unit.title}`}
        submitLabel="Add knowledge point"
        path={`/courses/${courseId}/learning/units/${unit.id}/points`}
        courseId={courseId}
        titleLabel="Knowledge point title"
      />
    </>
  )
}

function PointEditor({ point, courseId }: { point: Point; courseId: string }) {
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
        <button aria-label={`Edit knowledge point ${point.title}`} type="button" className="btn btn-small btn-ghost" onClick={() => setEditing((x) => !x)} aria-expanded={editing}>
          Edit
        </button>
      </div>
      {point.description && <p className="meta">{point.description}</p>}
      {editing && (
        <TitleForm
          legend={`Edit knowledge point ${point.title}`}
          submitLabel="Save knowledge point"
          method="PATCH"
          path={`/courses/${courseId}/learning/points/${point.id}`}
          courseId={courseId}
          titleLabel="Knowledge point title"
          initial={point}
          onDone={() => setEditing(false)}
        />
      )}
      <TaskList point={point} courseId={courseId} />
      {adding ? (
        <TaskForm courseId={courseId} onSubmit={(b) => create.mutate(b)} onCancel={() => setAdding(false)} pending={create.isPending} error={create.error} />
      ) : (
        <button aria-label={`Add task to ${point.title}`} type="button" className="btn btn-small" onClick={() => {
            create.reset()
            setAdding(true)
          }}>
          Add task
        </button>
      )}
    </>
  )
}

/**
 * The tasks of one point in order. Reorder by dragging (HTML5 drag and drop) or with the
 * Move up / Move down buttons (keyboard); each change is saved with PATCH …/tasks/order.
 */
function TaskList({ point, courseId }: { point: Point; courseId: string }) {
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
    setAnnounce(`Moved ${byId.get(id!)?.title} to position ${to + 1} of ${next.length}.`)
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

  if (tasks.length === 0) return <Empty>No tasks in this knowledge point yet.</Empty>
  return (
    <>
      <p className="hint">Drag tasks to reorder them, or use the Move buttons.</p>
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
          >
            <TaskRow task={t} courseId={courseId} index={i} count={tasks.length} onMove={(to) => move(i, to)} />
          </li>
        ))}
      </ol>
      <p className="sr-only" role="status">
        {announce}
      </p>
      {save.error && <ErrorNotice error={save.error} />}
    </>
  )
}

function TaskRow({ task, courseId, index, count, onMove }: { task: Task; courseId: string; index: number; count: number; onMove: (to: number) => void }) {
  const [panel, setPanel] = useState<'edit' | 'reminders' | null>(null)
  const invalidate = useInvalidateTree(courseId)
  const queryClient = useQueryClient()
  const update = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<Task>('PATCH', `/courses/${courseId}/learning/tasks/${task.id}`, body),
    onSuccess: () => {
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
          {task.taskKind === 'HOMEWORK' && <Badge tone="warn">Homework</Badge>}
          <Badge>{taskTypeLabel(task)}</Badge>
          {task.taskKind === 'HOMEWORK' && (
            <span className="meta">
              due <Time iso={task.dueAt} />
            </span>
          )}
        </span>
        <span className="task-actions">
          <button aria-label={`Move up: ${task.title}`} type="button" className="btn btn-small btn-ghost" disabled={index === 0} onClick={() => onMove(index - 1)}>
            Move up
          </button>
          <button aria-label={`Move down: ${task.title}`} type="button" className="btn btn-small btn-ghost" disabled={index === count - 1} onClick={() => onMove(index + 1)}>
            Move down
          </button>
          <button aria-label={`Edit: ${task.title}`} type="button" className="btn btn-small" aria-expanded={panel === 'edit'} onClick={() => toggle('edit')}>
            Edit
          </button>
          {task.taskKind === 'HOMEWORK' && (
            <button aria-label={`Reminders: ${task.title}`} type="button" className="btn btn-small" aria-expanded={panel === 'reminders'} onClick={() => toggle('reminders')}>
              Reminders
            </button>
          )}
          <Link aria-label={`Submissions: ${task.title}`} className="btn btn-small" to={`?tab=grading&taskId=${task.id}`}>
            Submissions
          </Link>
        </span>
      </div>
      {panel === 'edit' && (
        <TaskForm courseId={courseId} task={task} onSubmit={(b) => update.mutate(b)} onCancel={() => setPanel(null)} pending={update.isPending} error={update.error} />
      )}
      {panel === 'reminders' && <ReminderSchedule courseId={courseId} task={task} />}
    </>
  )
}

const TRIGGER_LABEL = { START: 'When it opens', BEFORE_DUE_24H: '24 hours before due', DUE: 'When due' } as const

/** The reminder events of one homework: who gets which reminder when, and whether it went out. */
export function ReminderSchedule({ courseId, task }: { courseId: string; task: Task }) {
  const events = useReminders(courseId, task.id)
  const members = useMembers(courseId)
  const names = new Map((members.data ?? []).map((m) => [m.userId, m.displayName || m.username]))
  return (
    <div className="reminders">
      <h5>Reminder schedule of {task.title}</h5>
      <QueryView query={events} loading="Loading reminders…">
        {(list) =>
          list.length === 0 ? (
            <Empty>No reminders are scheduled (no students yet, the switches are off, or the times have passed).</Empty>
          ) : (
            <TableWrap label={`Reminders of ${task.title}`}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Student</th>
                    <th scope="col">Reminder</th>
                    <th scope="col">Scheduled</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {[...list]
                    .sort((a, b) => a.scheduledAt.localeCompare(b.scheduledAt))
                    .map((e) => (
                      <tr key={e.id}>
                        <td>{names.get(e.targetUserId) ?? e.targetUserId.slice(0, 8)}</td>
                        <td>{TRIGGER_LABEL[e.triggerType] ?? e.triggerType}</td>
                        <td>
                          <Time iso={e.scheduledAt} />
                        </td>
                        <td>
                          <Badge tone={e.state === 'SENT' ? 'ok' : e.state === 'CANCELED' ? 'neutral' : 'info'}>
                            {e.state === 'SENT' ? 'Sent' : e.state === 'CANCELED' ? 'Canceled' : 'Pending'}
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
