import { Link, useSearchParams } from 'react-router'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { useCourses, useMe, useMyHomeworks } from '../queries.ts'
import type { HomeworkStatus } from '../types.ts'
import { Badge, StatusBadge, statusLabel } from '../ui/Badge.tsx'
import { SelectField } from '../ui/form.tsx'
import { Empty, QueryView } from '../ui/Notice.tsx'
import { Countdown, formatScore, Time } from '../ui/time.tsx'

const STATUSES: HomeworkStatus[] = ['NOT_STARTED', 'IN_PROGRESS', 'SUBMITTED', 'OVERDUE']

/** The homework centre: every homework of every course, filtered by status and course. */
export default function HomeworksPage() {
  usePageTitle('Homework')
  const me = useMe().data!
  const [params, setParams] = useSearchParams()
  const status = STATUSES.includes(params.get('status') as HomeworkStatus) ? (params.get('status') as HomeworkStatus) : undefined
  const courseId = params.get('courseId') ?? undefined
  const courses = useCourses()
  const list = useMyHomeworks({ status, courseId })
  const isTeacher = me.role === 'TEACHER'

  function setFilter(key: 'status' | 'courseId', value: string | undefined) {
    const next = new URLSearchParams(params)
    if (value) next.set(key, value)
    else next.delete(key)
    setParams(next, { replace: true })
  }

  return (
    <>
      <div className="page-head">
        <h1>Homework</h1>
      </div>
      {list.data && list.data.unreadReminderCount > 0 && (
        <p className="notice notice-info">
          You have {list.data.unreadReminderCount} unread {list.data.unreadReminderCount === 1 ? 'reminder' : 'reminders'}.{' '}
          <Link to="/messages">Read them in Messages</Link>
        </p>
      )}
      <div className="filters">
        <div role="group" aria-label="Filter by status" className="segmented">
          <button type="button" aria-pressed={!status} onClick={() => setFilter('status', undefined)}>
            All
          </button>
          {STATUSES.map((s) => (
            <button key={s} type="button" aria-pressed={status === s} onClick={() => setFilter('status', s)}>
              {statusLabel(s)}
            </button>
          ))}
        </div>
        <SelectField label="Course" value={courseId ?? ''} onChange={(e) => setFilter('courseId', e.target.value || undefined)}>
          <option value="">All courses</option>
          {(courses.data ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              {c.title}
            </option>
          ))}
        </SelectField>
      </div>
      <QueryView query={list} loading="Loading homework…">
        {(data) =>
          data.items.length === 0 ? (
            <Empty>{status || courseId ? 'No homework matches these filters.' : 'No homework yet.'}</Empty>
          ) : (
            <ul className="cards" data-testid="homework-list">
              {data.items.map((h) => (
                <li key={`${h.courseId}-${h.taskId}`} className="card homework-card">
                  <h2 className="h3">
                    <Link to={`/courses/${h.courseId}?taskId=${h.taskId}`}>{h.title}</Link>
                  </h2>
                  <p className="meta">{h.courseTitle}</p>
                  <p>
                    <StatusBadge status={h.status} />{' '}
                    {h.score != null && !isTeacher && <Badge tone="ok">Score {formatScore(h.score)}</Badge>}
                    {isTeacher && h.studentCount != null && (
                      <Badge>
                        {h.submittedCount ?? 0}/{h.studentCount} submitted
                      </Badge>
                    )}
                  </p>
                  <p className="meta">
                    Due <Time iso={h.dueAt} />
                    {(h.status === 'IN_PROGRESS' || h.status === 'NOT_STARTED') && (
                      <>
                        {' '}
                        · <Countdown seconds={h.remainingSeconds} since={list.dataUpdatedAt} />
                      </>
                    )}
                    {h.submittedAt && (
                      <>
                        {' '}
                        · submitted <Time iso={h.submittedAt} />
                      </>
                    )}
                  </p>
                </li>
              ))}
            </ul>
          )
        }
      </QueryView>
    </>
  )
}
