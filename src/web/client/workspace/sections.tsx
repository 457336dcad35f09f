import { useRef, useState } from 'react'
import { Link } from 'react-router'
import { API_BASE } from '../api.ts'
import { formatDateTime, formatRelative } from '../i18n/format.ts'
import { useT } from '../i18n/index.ts'
import { moduleLabel, moduleSlug } from '../modules.ts'
import { useAnnouncements, useCourseHomeworks, useExperimentLatest, useExperiments, useLearning, useLearningOverview, useResources, useTaskSubmissions } from '../queries.ts'
import type { Course, Experiment, HomeworkItem, ModuleKey, Task } from '../types.ts'
import { Badge, StatusBadge } from '../ui/Badge.tsx'
import { CopyButton } from '../ui/CopyButton.tsx'
import { Failure, Loaded } from '../ui/Failure.tsx'
import { FilePreview } from '../ui/FilePreview.tsx'
import { TableWrap } from '../ui/form.tsx'
import { Empty } from '../ui/Notice.tsx'
import { ClassComments } from '../comments/Blocks.tsx'
import { RichText } from '../ui/RichText.tsx'
import { Skeleton } from '../ui/Skeleton.tsx'
import { Countdown, formatBytes, formatScore, Time } from '../ui/time.tsx'
import { allTasks, isSubmittable, useMyExperiments, useNow } from './data.ts'
import { liveExperimentStatus, liveHomeworkStatus, useSecondNow } from '../teaching/clock.ts'
import { OverdueCard } from '../teaching/OverdueCard.tsx'
import { useTaskDisclosure } from './focus.tsx'
import { useReadOnly } from '../ui/readOnly.tsx'
import { WORKSPACE } from './messages.ts'
import { isHttpUrl, SubmissionSummary, TaskBody, TaskCard } from './TaskCard.tsx'

export { allTasks }

export interface SectionProps {
  course: Course
  isTeacher: boolean
  /** The modules the course shows, so links go to the view that holds a task. */
  enabled?: ModuleKey[]
}

/** The link to a task in the view that shows it (homework and quizzes have their own views). */
export function taskHref(task: Pick<Task, 'id' | 'taskKind' | 'taskType'>, enabled: ModuleKey[] = []) {
  const module: ModuleKey =
    task.taskKind === 'HOMEWORK' && enabled.includes('HOMEWORK') ? 'HOMEWORK' : task.taskType === 'QUIZ' && task.taskKind !== 'HOMEWORK' && enabled.includes('QUIZ') ? 'QUIZ' : 'LEARNING'
  return `?taskId=${task.id}&module=${moduleSlug(module)}`
}

export function OverviewSection({ course, isTeacher, enabled }: SectionProps) {
  const { t } = useT(WORKSPACE)
  const announcements = useAnnouncements(course.id)
  return (
    <div className="overview">
      <div>
        {course.description && <p>{course.description}</p>}
        <p className="meta">
          {t('overview.teacher', { name: course.teacher?.displayName || course.teacher?.username })} · {t('overview.members', { count: course.memberCount })}
        </p>
        {isTeacher && course.inviteCode && (
          <p className="invite">
            {t('overview.inviteCode')} <code>{course.inviteCode}</code> <CopyButton value={course.inviteCode} label={t('overview.copyCode')} />
          </p>
        )}
      </div>
      {!isTeacher && !course.archived && <NextUp course={course} enabled={enabled ?? []} />}
      <h3>{t('overview.latestAnnouncements')}</h3>
      <Loaded query={announcements} skeleton={<Skeleton lines={2} />}>
        {(all) => {
          // The course page shows what students see: a teacher's drafts stay in Manage (issue 56.4).
          const list = all.filter((a) => a.state === 'PUBLISHED')
          return list.length === 0 ? (
            <Empty>{t('announcements.none')}</Empty>
          ) : (
            <ul className="plain">
              {list.slice(0, 3).map((a) => (
                <li key={a.id}>
                  <strong>{a.title}</strong> <span className="meta">· <Time iso={a.publishedAt ?? a.createdAt} /></span>
                </li>
              ))}
            </ul>
          )
        }}
      </Loaded>
    </div>
  )
}

/** "What do I do next": the nearest deadline, what opens soon, what was graded recently. */
function NextUp({ course, enabled }: { course: Course; enabled: ModuleKey[] }) {
  const { t } = useT(WORKSPACE)
  const homeworks = useCourseHomeworks(course.id)
  const experiments = useMyExperiments(course.id)
  const now = useSecondNow()
  if (homeworks.isPending || experiments.isPending) return <Skeleton variant="cards" lines={3} />
  if (homeworks.error || experiments.error)
    return (
      <Failure
        error={homeworks.error ?? experiments.error}
        onRetry={() => {
          if (homeworks.error) void homeworks.refetch()
          if (experiments.error) void experiments.refetch()
        }}
      />
    )
  const hw = homeworks.data.items
  const hwLink = (h: HomeworkItem) => taskHref({ id: h.taskId, taskKind: 'HOMEWORK', taskType: 'MEDIA' }, enabled)
  // Statuses at this second (the lists were fetched earlier): a deadline that passes while the
  // page is open moves its work from "Due next" to "Overdue" at once.
  const expLink = (e: { experimentId: string }) => `/experiments/${e.experimentId}?courseId=${course.id}`
  const due = [
    ...hw.filter((h) => liveHomeworkStatus(h, now) === 'IN_PROGRESS').map((h) => ({ key: h.taskId, title: h.title, at: h.dueAt, to: hwLink(h) })),
    ...experiments.data.filter((e) => liveExperimentStatus(e, now) === 'OPEN').map((e) => ({ key: e.experimentId, title: e.title, at: e.dueAt, to: expLink(e) })),
  ].sort((a, b) => a.at.localeCompare(b.at))
  const overdue = [
    ...hw.filter((h) => liveHomeworkStatus(h, now) === 'OVERDUE').map((h) => ({ key: h.taskId, title: h.title, at: h.dueAt, to: hwLink(h) })),
    ...experiments.data.filter((e) => liveExperimentStatus(e, now) === 'OVERDUE').map((e) => ({ key: e.experimentId, title: e.title, at: e.dueAt, to: expLink(e) })),
  ].sort((a, b) => b.at.localeCompare(a.at))
  const opening = hw.filter((h) => liveHomeworkStatus(h, now) === 'NOT_STARTED').sort((a, b) => a.startAt.localeCompare(b.startAt))
  const graded = [
    ...hw.filter((h) => h.score != null).map((h) => ({ key: h.taskId, title: h.title, at: h.submittedAt ?? '', score: h.score!, to: hwLink(h) })),
    ...experiments.data.filter((e) => e.score != null).map((e) => ({ key: e.experimentId, title: e.title, at: e.submittedAt ?? '', score: e.score!, to: `/experiments/${e.experimentId}?courseId=${course.id}` })),
  ]
    .sort((a, b) => b.at.localeCompare(a.at))
    .slice(0, 3)
  const next = due[0]
  return (
    <section className="next-up" aria-labelledby="next-up-title" data-testid="next-up">
      <h3 id="next-up-title">{t('next.title')}</h3>
      <div className="next-grid">
        <div className="next-card next-due">
          <p className="label">{t('next.dueNext')}</p>
          {next ? (
            <>
              <p className="next-main">
                <Link to={next.to}>{next.title}</Link>
              </p>
              <p className="meta">
                {t('next.dueAt', { relative: formatRelative((new Date(next.at).getTime() - now) / 1000), date: formatDateTime(next.at) })}
              </p>
              {due.length > 1 && <p className="meta">{t('next.andMore', { count: due.length - 1 })}</p>}
            </>
          ) : (
            <p className="empty">{t('next.nothingDue')}</p>
          )}
        </div>
        {overdue.length > 0 && <OverdueCard items={overdue} now={now} />}
        <div className="next-card">
          <p className="label">{t('next.opensSoon')}</p>
          {opening.length ? (
            <ul className="plain">
              {opening.slice(0, 3).map((h) => (
                <li key={h.taskId}>
                  <Link to={hwLink(h)}>{h.title}</Link>{' '}
                  <span className="meta">{t('next.opens', { relative: formatRelative((new Date(h.startAt).getTime() - now) / 1000) })}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="empty">{t('next.nothingOpening')}</p>
          )}
        </div>
        <div className="next-card">
          <p className="label">{t('next.gradedRecently')}</p>
          {graded.length ? (
            <ul className="plain">
              {graded.map((g) => (
                <li key={g.key}>
                  <Link to={g.to}>{g.title}</Link> <Badge tone="ok">{t('score', { score: formatScore(g.score) })}</Badge>
                </li>
              ))}
            </ul>
          ) : (
            <p className="empty">{t('next.nothingGraded')}</p>
          )}
        </div>
      </div>
    </section>
  )
}

export function AnnouncementsSection({ course, isTeacher }: SectionProps) {
  const { t } = useT(WORKSPACE)
  const q = useAnnouncements(course.id)
  return (
    <Loaded query={q}>
      {(all) => {
        const list = all.filter((a) => a.state === 'PUBLISHED')
        return list.length === 0 ? (
          <Empty>{t('announcements.none')}</Empty>
        ) : (
          <ul className="plain stack">
            {list.map((a) => (
              <li key={a.id} className="announcement">
                <h3>{a.title}</h3>
                <p className="meta">
                  {a.author?.displayName} · <Time iso={a.publishedAt ?? a.createdAt} />
                </p>
                <RichText html={a.content} />
                <ClassComments courseId={course.id} isTeacher={isTeacher} on={{ announcementId: a.id }} />
              </li>
            ))}
          </ul>
        )
      }}
    </Loaded>
  )
}

export function LearningSection({ course, isTeacher, enabled = [] }: SectionProps) {
  const { t } = useT(WORKSPACE)
  const q = useLearning(course.id)
  return (
    <Loaded query={q} skeleton={<Skeleton lines={5} />}>
      {(tree) =>
        tree.units.length === 0 ? (
          <Empty>
            {t('learning.none')}
            {isTeacher && (
              <>
                {' '}
                <Link to={`/courses/${course.id}/manage?tab=learning`}>{t('learning.addInManage')}</Link>
              </>
            )}
          </Empty>
        ) : (
          <ol className="tree">
            {tree.units.map((u) => (
              <li key={u.id} className="unit">
                <h3>{u.title}</h3>
                {u.description && <p className="meta">{u.description}</p>}
                <ol className="points">
                  {u.points.map((p) => (
                    <li key={p.id} className="point">
                      <h4>{p.title}</h4>
                      {p.description && <p className="meta">{p.description}</p>}
                      {p.tasks.length === 0 ? (
                        <Empty>{t('learning.noTasks')}</Empty>
                      ) : (
                        <ul className="plain tasks">
                          {p.tasks.map((task) => {
                            // Homework and quizzes live in their own views: here a link, so each appears once.
                            const elsewhere = taskHref(task, enabled)
                            return (
                              <li key={task.id}>
                                {!elsewhere.endsWith('module=learning') ? (
                                  <Link className="task task-link" to={elsewhere}>
                                    <span className="task-title">{task.title}</span>
                                    <span className="task-tags">
                                      <Badge tone="warn">{task.taskKind === 'HOMEWORK' ? t('type.homework') : t('type.quiz')}</Badge>
                                    </span>
                                  </Link>
                                ) : (
                                  <TaskCard task={task} courseId={course.id} isTeacher={isTeacher} />
                                )}
                              </li>
                            )
                          })}
                        </ul>
                      )}
                    </li>
                  ))}
                </ol>
              </li>
            ))}
          </ol>
        )
      }
    </Loaded>
  )
}

export function QuizSection({ course, isTeacher }: SectionProps) {
  const { t } = useT(WORKSPACE)
  const q = useLearning(course.id)
  return (
    <Loaded query={q}>
      {(tree) => {
        // Homework quizzes are under Homework.
        const quizzes = allTasks(tree).filter((task) => task.taskType === 'QUIZ' && task.taskKind !== 'HOMEWORK')
        return quizzes.length === 0 ? (
          <Empty>{t('quiz.none')}</Empty>
        ) : (
          <ul className="plain tasks">
            {quizzes.map((task) => (
              <li key={task.id}>
                <TaskCard task={task} courseId={course.id} isTeacher={isTeacher} />
              </li>
            ))}
          </ul>
        )
      }}
    </Loaded>
  )
}

export function HomeworkSection({ course, isTeacher }: SectionProps) {
  const { t } = useT(WORKSPACE)
  const q = useCourseHomeworks(course.id)
  return (
    <Loaded query={q}>
      {(list) =>
        list.items.length === 0 ? (
          <Empty>{t('homework.none')}</Empty>
        ) : (
          <ul className="plain tasks" data-testid="course-homework">
            {list.items.map((h) => (
              <li key={h.taskId}>
                <HomeworkRow item={h} courseId={course.id} isTeacher={isTeacher} />
              </li>
            ))}
          </ul>
        )
      }
    </Loaded>
  )
}

function HomeworkRow({ item, courseId, isTeacher }: { item: HomeworkItem; courseId: string; isTeacher: boolean }) {
  const { t } = useT(WORKSPACE)
  const ref = useRef<HTMLDetailsElement>(null)
  const [open, setOpen] = useTaskDisclosure(item.taskId, ref)
  const now = useSecondNow()
  const status = liveHomeworkStatus(item, now)
  const notStarted = status === 'NOT_STARTED'
  // An archived course's homework is closed, not "in progress" (issue 56.3).
  const closed = useReadOnly()
  return (
    <details ref={ref} className="task" data-task-id={item.taskId} open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span className="task-title">{item.title}</span>
        <span className="task-tags">
          {closed ? (
            <span className="badge badge-neutral">
              <span data-status="CLOSED">{t('homework.closed')}</span>
            </span>
          ) : (
            <StatusBadge status={status} mine={!isTeacher} />
          )}
          <span className="meta">
            {notStarted && !closed ? (
              t('next.opens', { relative: formatRelative((new Date(item.startAt).getTime() - now) / 1000) })
            ) : (
              <>
                {t('task.due')} <Time iso={item.dueAt} />
                {status === 'IN_PROGRESS' && !closed && (
                  <>
                    {' '}
                    (<Countdown dueAt={item.dueAt} />)
                  </>
                )}
              </>
            )}
          </span>
          {isTeacher && item.studentCount != null && <span className="meta">{t('homework.submittedOf', { n: item.submittedCount ?? 0, total: item.studentCount })}</span>}
          {!isTeacher && item.score != null && <Badge tone="ok">{t('score', { score: formatScore(item.score) })}</Badge>}
        </span>
      </summary>
      {open && <HomeworkBody taskId={item.taskId} courseId={courseId} isTeacher={isTeacher} status={status} />}
    </details>
  )
}

/** The task behind a homework row comes from the learning tree; its failure is shown, with a retry. */
function HomeworkBody({ taskId, courseId, isTeacher, status }: { taskId: string; courseId: string; isTeacher: boolean; status: HomeworkItem['status'] }) {
  const { t } = useT(WORKSPACE)
  const tree = useLearning(courseId)
  return (
    <Loaded query={tree} skeleton={<div className="task-body"><Skeleton lines={3} /></div>}>
      {(data) => {
        const task = allTasks(data).find((x) => x.id === taskId)
        return task ? (
          <TaskBody task={task} courseId={courseId} isTeacher={isTeacher} status={status} />
        ) : (
          <div className="task-body">
            <Empty>{t('homework.gone')}</Empty>
          </div>
        )
      }}
    </Loaded>
  )
}

export function GradesSection({ course, isTeacher }: SectionProps) {
  const { t } = useT(WORKSPACE)
  const overview = useLearningOverview(course.id)
  const homeworks = useCourseHomeworks(course.id)
  const tree = useLearning(course.id)
  const experiments = useExperiments(course.id)
  if (isTeacher) {
    return (
      <>
        <p>
          <Link to={`/courses/${course.id}/manage?tab=grades`}>{t('grades.fullOverview')}</Link>
        </p>
        <Loaded query={overview}>{(rows) => <LearningOverviewTable rows={rows} />}</Loaded>
      </>
    )
  }
  const mine = overview.data?.[0]
  return (
    <>
      <Loaded query={tree} skeleton={<Skeleton lines={2} />}>
        {(data) => {
          const graded = allTasks(data).filter(isSubmittable)
          return (
            <>
              {/* Progress counts only what can be handed in: reading and video materials cannot. */}
              <dl className="stats" data-testid="progress">
                <div>
                  <dt>{t('grades.toHandIn')}</dt>
                  {/* The gradebook's total (homework, quizzes and experiments), so the numbers agree. */}
                  <dd>{mine ? mine.totalTasks : '…'}</dd>
                </div>
                <div>
                  <dt>{t('grades.submitted')}</dt>
                  <dd>{mine ? mine.submittedTasks : '…'}</dd>
                </div>
                <div>
                  <dt>{t('grades.graded')}</dt>
                  <dd>{mine ? mine.gradedTasks : '…'}</dd>
                </div>
                <div>
                  <dt>{t('grades.average')}</dt>
                  <dd>{mine ? formatScore(mine.averageScore) : '…'}</dd>
                </div>
              </dl>
              {overview.error && <Failure error={overview.error} onRetry={() => void overview.refetch()} />}
              <h3>{t('grades.homeworkAndQuizzes')}</h3>
              {graded.length === 0 ? (
                <Empty>{t('grades.nothingToHandIn')}</Empty>
              ) : (
                <ul className="plain tasks">
                  {graded.map((task) => (
                    <li key={task.id}>
                      <FeedbackRow task={task} courseId={course.id} score={homeworks.data?.items.find((h) => h.taskId === task.id)?.score ?? null} />
                    </li>
                  ))}
                </ul>
              )}
            </>
          )
        }}
      </Loaded>
      <h3>{moduleLabel('EXPERIMENTS')}</h3>
      <Loaded query={experiments}>
        {(list) =>
          list.length === 0 ? (
            <Empty>{t('experiments.none')}</Empty>
          ) : (
            <TableWrap label={t('grades.experimentTable')}>
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('grades.experiment')}</th>
                    <th scope="col">{t('grades.submitted')}</th>
                    <th scope="col">{t('submission.score')}</th>
                    <th scope="col">{t('grades.feedback')}</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((e) => (
                    <ExperimentGradeRow key={e.id} experiment={e} />
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Loaded>
    </>
  )
}

function FeedbackRow({ task, courseId, score: homeworkScore }: { task: Task; courseId: string; score: number | null }) {
  const { t } = useT(WORKSPACE)
  const [open, setOpen] = useState(false)
  // A quiz is no homework: its score is its newest sheet's (issue 56.1: the row showed nothing).
  const homework = task.taskKind === 'HOMEWORK'
  const sheets = useTaskSubmissions(courseId, task.id, { enabled: !homework })
  const score = homework ? homeworkScore : (sheets.data?.[0]?.score ?? null)
  return (
    <details className="task" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span className="task-title">{task.title}</span>
        <span className="task-tags">{score != null && <Badge tone="ok">{t('score', { score: formatScore(score) })}</Badge>}</span>
      </summary>
      {open && <FeedbackBody task={task} courseId={courseId} />}
    </details>
  )
}

function FeedbackBody({ task, courseId }: { task: Task; courseId: string }) {
  const { t } = useT(WORKSPACE)
  const subs = useTaskSubmissions(courseId, task.id)
  return (
    <div className="task-body">
      <Loaded query={subs}>
        {(list) => (list[0] ? <SubmissionSummary submission={list[0]} questions={task.questions ?? []} attempts={list.length} /> : <Empty>{t('grades.notSubmitted')}</Empty>)}
      </Loaded>
    </div>
  )
}

function ExperimentGradeRow({ experiment }: { experiment: Experiment }) {
  const { t } = useT(WORKSPACE)
  const latest = useExperimentLatest(experiment.id)
  const s = latest.data
  return (
    <tr>
      <th scope="row">
        <Link to={`/experiments/${experiment.id}?courseId=${experiment.courseId}`}>{experiment.title}</Link>
      </th>
      <td>{latest.isPending ? '…' : latest.error ? t('grades.unavailable') : s ? <Time iso={s.submittedAt} /> : t('grades.notYet')}</td>
      <td>{s?.score != null ? formatScore(s.score) : '—'}</td>
      <td>{s?.feedback ? <RichText html={s.feedback} /> : '—'}</td>
    </tr>
  )
}

export function LearningOverviewTable({ rows }: { rows: { userId: string; username: string; displayName: string; totalTasks: number; submittedTasks: number; gradedTasks: number; averageScore: number | null }[] }) {
  const { t } = useT(WORKSPACE)
  if (rows.length === 0) return <Empty>{t('grades.noStudents')}</Empty>
  return (
    <TableWrap label={t('grades.progressTable')}>
      <table>
        <thead>
          <tr>
            <th scope="col">{t('grades.student')}</th>
            <th scope="col">{t('grades.tasks')}</th>
            <th scope="col">{t('grades.submitted')}</th>
            <th scope="col">{t('grades.graded')}</th>
            <th scope="col">{t('grades.average')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.userId}>
              <th scope="row">
                {r.displayName || r.username} <span className="meta">@{r.username}</span>
              </th>
              <td>{r.totalTasks}</td>
              <td>{r.submittedTasks}</td>
              <td>{r.gradedTasks}</td>
              <td>{formatScore(r.averageScore)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  )
}

export function ExperimentsSection({ course }: SectionProps) {
  const { t } = useT(WORKSPACE)
  const q = useExperiments(course.id)
  return (
    <Loaded query={q}>
      {(list) =>
        list.length === 0 ? (
          <Empty>{t('experiments.none')}</Empty>
        ) : (
          <ul className="plain stack">
            {list.map((e) => (
              <li key={e.id} className="row-item">
                <Link to={`/experiments/${e.id}?courseId=${course.id}`}>{e.title}</Link>{' '}
                <span className="meta">
                  {t('task.due')} <Time iso={e.dueAt} />
                </span>
              </li>
            ))}
          </ul>
        )
      }
    </Loaded>
  )
}

export function ResourcesSection({ course }: SectionProps) {
  const { t } = useT(WORKSPACE)
  const q = useResources(course.id)
  return (
    <Loaded query={q}>
      {(list) =>
        list.length === 0 ? (
          <Empty>{t('resources.none')}</Empty>
        ) : (
          <TableWrap label={t('resources.table')}>
            <table className="resources">
              <thead>
                <tr>
                  <th scope="col">{t('resources.name')}</th>
                  <th scope="col">{t('resources.type')}</th>
                  <th scope="col">{t('resources.category')}</th>
                  <th scope="col">{t('resources.size')}</th>
                </tr>
              </thead>
              <tbody>
                {list.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      {r.type === 'FILE' ? (
                        <FilePreview url={`${API_BASE}/resources/${r.id}/file`} name={r.name} contentType={r.contentType} />
                      ) : isHttpUrl(r.externalUrl) ? (
                        <a href={r.externalUrl} target="_blank" rel="noopener noreferrer">
                          {r.name} <span className="sr-only">{t('newTab')}</span>
                        </a>
                      ) : (
                        r.name
                      )}
                    </th>
                    <td>{t(`resources.kind.${r.type}`)}</td>
                    <td>{r.category || '—'}</td>
                    <td>{r.type === 'FILE' ? formatBytes(r.fileSize) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )
      }
    </Loaded>
  )
}
