import { Link, useSearchParams } from 'react-router'
import { defineMessages, useT } from '../i18n/index.ts'
import { formatDateRange, formatDateTime, formatDayMonth, formatMonthYear, formatRelative, formatTime, formatWeekday } from '../i18n/format.ts'
import en from '../i18n/messages/en/homeworks.ts'
import zh from '../i18n/messages/zh-CN/homeworks.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { useCourses, useMe, useMyHomeworks } from '../queries.ts'
import type { HomeworkStatus } from '../types.ts'
import { Badge, StatusBadge } from '../ui/Badge.tsx'
import { CalendarFeed } from '../ui/CalendarFeed.tsx'
import { CourseBadge } from '../ui/CourseBadge.tsx'
import { Failure } from '../ui/Failure.tsx'
import { SelectField } from '../ui/form.tsx'
import { Empty } from '../ui/Notice.tsx'
import { Skeleton } from '../ui/Skeleton.tsx'
import { formatScore, Time } from '../ui/time.tsx'
import { useMyExperiments, type MyExperiment } from '../workspace/data.ts'
import { liveHomeworkStatus, useSecondNow } from '../teaching/clock.ts'
import { isLate } from '../../../lib/due.ts'

const NS = defineMessages('homeworks', en, zh)

const STATUSES: HomeworkStatus[] = ['NOT_STARTED', 'IN_PROGRESS', 'SUBMITTED', 'OVERDUE']
const VIEWS = ['list', 'week', 'month'] as const
type View = (typeof VIEWS)[number]

/** One deadline of the homework centre: a homework or an experiment. */
interface Deadline {
  key: string
  kind: 'homework' | 'experiment'
  title: string
  courseId: string
  courseTitle: string
  startAt: string | null
  dueAt: string
  status: HomeworkStatus
  submittedAt: string | null
  score: number | null
  href: string
  submittedCount?: number
  studentCount?: number
}

/** An experiment's state in the homework vocabulary (experiments have no opening time). */
const experimentStatus = (e: MyExperiment): HomeworkStatus => (e.status === 'OPEN' ? 'IN_PROGRESS' : e.status)

const pad = (n: number) => String(n).padStart(2, '0')
const dayKey = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
const parseDay = (s: string | null) => {
  const m = s && /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  const d = m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : new Date()
  return Number.isNaN(d.getTime()) ? new Date() : new Date(d.getFullYear(), d.getMonth(), d.getDate())
}
const addDays = (d: Date, n: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + n)
/** Weeks start on Monday (as in China and most of Europe). */
const startOfWeek = (d: Date) => addDays(d, -((d.getDay() + 6) % 7))

/** The homework centre: every homework and experiment deadline of every course, as a list or a calendar. */
export default function HomeworksPage() {
  const { t } = useT(NS)
  usePageTitle(t('title'))
  const me = useMe().data!
  const [params, setParams] = useSearchParams()
  const status = STATUSES.includes(params.get('status') as HomeworkStatus) ? (params.get('status') as HomeworkStatus) : undefined
  const courseId = params.get('courseId') ?? undefined
  const view: View = VIEWS.includes(params.get('view') as View) ? (params.get('view') as View) : 'list'
  const anchor = parseDay(params.get('date'))
  const courses = useCourses()
  const list = useMyHomeworks({ status, courseId })
  const experiments = useMyExperiments(courseId)
  const isTeacher = me.role === 'TEACHER'

  function setParam(key: string, value: string | undefined) {
    const next = new URLSearchParams(params)
    if (value) next.set(key, value)
    else next.delete(key)
    setParams(next, { replace: true })
  }

  const failed = list.error ?? experiments.error
  const items: Deadline[] | null =
    list.data && experiments.data
      ? [
          ...list.data.items.map((h) => ({
            key: `h-${h.taskId}`,
            kind: 'homework' as const,
            title: h.title,
            courseId: h.courseId,
            courseTitle: h.courseTitle,
            startAt: h.startAt,
            dueAt: h.dueAt,
            status: h.status,
            submittedAt: h.submittedAt,
            score: h.score,
            href: `/courses/${h.courseId}?taskId=${h.taskId}&module=homework`,
            submittedCount: h.submittedCount,
            studentCount: h.studentCount,
          })),
          ...experiments.data
            .filter((e) => !status || experimentStatus(e) === status)
            .map((e) => ({
              key: `e-${e.experimentId}`,
              kind: 'experiment' as const,
              title: e.title,
              courseId: e.courseId,
              courseTitle: e.courseTitle,
              startAt: null,
              dueAt: e.dueAt,
              status: experimentStatus(e),
              submittedAt: e.submittedAt,
              score: e.score,
              href: `/experiments/${e.experimentId}?courseId=${e.courseId}`,
              submittedCount: e.submittedCount,
              studentCount: e.studentCount,
            })),
        ].sort((a, b) => a.dueAt.localeCompare(b.dueAt))
      : null

  return (
    <>
      <div className="page-head">
        <h1>{t('title')}</h1>
        <div role="group" aria-label={t('viewLabel')} className="segmented" data-testid="view-switch">
          {VIEWS.map((v) => (
            <button key={v} type="button" aria-pressed={view === v} onClick={() => setParam('view', v === 'list' ? undefined : v)}>
              {t(`view.${v}`)}
            </button>
          ))}
        </div>
      </div>
      {list.data && list.data.unreadReminderCount > 0 && (
        <p className="notice notice-info">
          {t('unreadReminders', { count: list.data.unreadReminderCount })} <Link to="/messages">{t('readInMessages')}</Link>
        </p>
      )}
      <div className="filters">
        <div role="group" aria-label={t('filterByStatus')} className="segmented">
          <button type="button" aria-pressed={!status} onClick={() => setParam('status', undefined)}>
            {t('all')}
          </button>
          {STATUSES.map((s) => (
            <button key={s} type="button" aria-pressed={status === s} onClick={() => setParam('status', s)}>
              {/* A student's own overdue work is Missing, on its card too (issue 56.5b). */}
              {!isTeacher && s === 'OVERDUE' ? t('mark.missing') : t(`status.${s}`)}
            </button>
          ))}
        </div>
        <SelectField label={t('course')} value={courseId ?? ''} onChange={(e) => setParam('courseId', e.target.value || undefined)}>
          <option value="">{t('allCourses')}</option>
          {(courses.data ?? []).map((c) => (
            <option key={c.id} value={c.id}>
              {c.title}
            </option>
          ))}
        </SelectField>
      </div>
      {failed ? (
        <Failure
          error={failed}
          onRetry={() => {
            if (list.error) void list.refetch()
            if (experiments.error) void experiments.refetch()
          }}
        />
      ) : !items ? (
        <Skeleton variant="cards" lines={4} />
      ) : view === 'list' ? (
        items.length === 0 ? (
          <Empty>{status || courseId ? t('noneMatching') : t('none')}</Empty>
        ) : (
          <ul className="cards" data-testid="homework-list">
            {items.map((d) => (
              <DeadlineCard key={d.key} d={d} isTeacher={isTeacher} />
            ))}
          </ul>
        )
      ) : (
        <Calendar view={view} anchor={anchor} items={items} onMove={(d) => setParam('date', d ? dayKey(d) : undefined)} />
      )}
      <CalendarFeed />
    </>
  )
}

function DeadlineCard({ d, isTeacher }: { d: Deadline; isTeacher: boolean }) {
  const { t } = useT(NS)
  const now = useSecondNow()
  const status = d.status === 'SUBMITTED' ? 'SUBMITTED' : liveHomeworkStatus({ status: d.status, startAt: d.startAt, dueAt: d.dueAt }, now)
  const opensIn = status === 'NOT_STARTED' && d.startAt ? (new Date(d.startAt).getTime() - now) / 1000 : null
  const dueIn = (new Date(d.dueAt).getTime() - now) / 1000
  return (
    <li className="card homework-card" data-kind={d.kind}>
      <h2 className="h3">
        <Link to={d.href}>{d.title}</Link>
      </h2>
      <p className="meta course-line">
        <CourseBadge id={d.courseId} title={d.courseTitle} size="sm" /> {d.courseTitle}
      </p>
      <p>
        {d.kind === 'experiment' && <Badge tone="info">{t('experiment')}</Badge>}{' '}
        {/* Issue 29.6: a student's own work says Missing, Late and Not graded. */}
        <StatusBadge status={status} mine={!isTeacher} />{' '}
        {!isTeacher && d.submittedAt && isLate(Date.parse(d.submittedAt), Date.parse(d.dueAt)) && (
          <Badge tone="warn">
            <span data-status="LATE">{t('mark.late')}</span>
          </Badge>
        )}{' '}
        {!isTeacher && d.submittedAt && d.score == null && (
          <Badge tone="info">
            <span data-status="NOT_GRADED">{t('mark.notGraded')}</span>
          </Badge>
        )}{' '}
        {d.score != null && !isTeacher && <Badge tone="ok">{t('score', { score: formatScore(d.score) })}</Badge>}
        {isTeacher && d.studentCount != null && <Badge>{t('submittedOf', { n: d.submittedCount ?? 0, total: d.studentCount })}</Badge>}
      </p>
      <p className="meta">
        {opensIn != null ? (
          <span data-testid="opens-in">{t('opensIn', { relative: formatRelative(opensIn), date: formatDateTime(d.startAt) })}</span>
        ) : (
          <>
            {t('due')} <Time iso={d.dueAt} />
            {status === 'IN_PROGRESS' && dueIn > 0 && <> · {formatRelative(dueIn)}</>}
          </>
        )}
        {d.submittedAt && (
          <>
            {' '}
            · {t('submittedAt')} <Time iso={d.submittedAt} />
          </>
        )}
      </p>
    </li>
  )
}

/** A week (seven days, one under the other on a phone) or a month grid of due dates. */
function Calendar({ view, anchor, items, onMove }: { view: 'week' | 'month'; anchor: Date; items: Deadline[]; onMove: (d: Date | null) => void }) {
  const { t } = useT(NS)
  const today = dayKey(new Date())
  const first = view === 'week' ? startOfWeek(anchor) : startOfWeek(new Date(anchor.getFullYear(), anchor.getMonth(), 1))
  const monthEnd = new Date(anchor.getFullYear(), anchor.getMonth() + 1, 0)
  const days: Date[] = []
  if (view === 'week') for (let i = 0; i < 7; i++) days.push(addDays(first, i))
  else for (let d = first; d <= monthEnd || days.length % 7 !== 0; d = addDays(d, 1)) days.push(d)
  const byDay = new Map<string, Deadline[]>()
  for (const it of items) {
    const k = dayKey(new Date(it.dueAt))
    byDay.set(k, [...(byDay.get(k) ?? []), it])
  }
  const title = view === 'week' ? formatDateRange(days[0]!, days[6]!) : formatMonthYear(anchor)
  const prev = view === 'week' ? addDays(anchor, -7) : new Date(anchor.getFullYear(), anchor.getMonth() - 1, 1)
  const next = view === 'week' ? addDays(anchor, 7) : new Date(anchor.getFullYear(), anchor.getMonth() + 1, 1)
  const inRange = days.some((d) => byDay.has(dayKey(d)))
  return (
    <section className={`calendar calendar-${view}`} aria-labelledby="calendar-title" data-testid="calendar">
      <div className="calendar-head">
        <h2 id="calendar-title" aria-live="polite">
          {title}
        </h2>
        <div className="calendar-nav">
          <button type="button" className="btn btn-small" onClick={() => onMove(prev)} aria-label={t(`calendar.prev.${view}`)}>
            ‹
          </button>
          <button type="button" className="btn btn-small" onClick={() => onMove(null)}>
            {t('calendar.today')}
          </button>
          <button type="button" className="btn btn-small" onClick={() => onMove(next)} aria-label={t(`calendar.next.${view}`)}>
            ›
          </button>
        </div>
      </div>
      {!inRange && <p className="empty">{t(`calendar.empty.${view}`)}</p>}
      {view === 'month' && (
        <div className="calendar-weekdays" aria-hidden="true">
          {days.slice(0, 7).map((d) => (
            <span key={d.getDay()}>{formatWeekday(d)}</span>
          ))}
        </div>
      )}
      <ol className="calendar-days">
        {days.map((d) => {
          const k = dayKey(d)
          const list = byDay.get(k) ?? []
          const outside = view === 'month' && d.getMonth() !== anchor.getMonth()
          return (
            <li key={k} className={`calendar-day${k === today ? ' today' : ''}${outside ? ' outside' : ''}${list.length ? ' has-items' : ''}`} data-day={k}>
              <p className="calendar-date">
                <span className="calendar-weekday">{formatWeekday(d, view === 'week' ? 'long' : 'short')}</span> <span>{view === 'week' ? formatDayMonth(d) : d.getDate()}</span>
                {k === today && <span className="sr-only"> {t('calendar.todayMark')}</span>}
              </p>
              {list.length > 0 && (
                <ul className="plain calendar-items">
                  {list.map((it) => (
                    <li key={it.key} className={`calendar-item status-${it.status.toLowerCase().replace('_', '-')}`} data-kind={it.kind}>
                      <Link to={it.href}>
                        <span className="calendar-time">{formatTime(it.dueAt)}</span> <span className="calendar-title">{it.title}</span>
                      </Link>
                      <span className="sr-only">
                        {' '}
                        · {it.courseTitle} · {t(`status.${it.status}`)}
                        {it.kind === 'experiment' ? ` · ${t('experiment')}` : ''}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          )
        })}
      </ol>
    </section>
  )
}
