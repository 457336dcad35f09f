import { useRef, useState } from 'react'
import { Link } from 'react-router'
import { API_BASE } from '../api.ts'
import {
  useAnnouncements,
  useCourseHomeworks,
  useExperimentLatest,
  useExperiments,
  useLearning,
  useLearningOverview,
  useResources,
  useTaskSubmissions,
} from '../queries.ts'
import type { Course, Experiment, HomeworkItem, LearningTree, Task } from '../types.ts'
import { Badge, StatusBadge } from '../ui/Badge.tsx'
import { CopyButton } from '../ui/CopyButton.tsx'
import { TableWrap } from '../ui/form.tsx'
import { Empty, Loading, QueryView } from '../ui/Notice.tsx'
import { RichText } from '../ui/RichText.tsx'
import { Countdown, formatBytes, formatScore, Time } from '../ui/time.tsx'
import { useTaskDisclosure } from './focus.tsx'
import { isHttpUrl, SubmissionSummary, TaskBody, TaskCard } from './TaskCard.tsx'

export interface SectionProps {
  course: Course
  isTeacher: boolean
}

export const allTasks = (tree: LearningTree | undefined): Task[] => tree?.units.flatMap((u) => u.points.flatMap((p) => p.tasks)) ?? []

export function OverviewSection({ course, isTeacher }: SectionProps) {
  const announcements = useAnnouncements(course.id)
  const homeworks = useCourseHomeworks(course.id)
  const upcoming = (homeworks.data?.items ?? []).filter((h) => h.status === 'IN_PROGRESS' || h.status === 'NOT_STARTED').slice(0, 3)
  return (
    <div className="overview">
      <div>
        {course.description && <p>{course.description}</p>}
        <p className="meta">
          Teacher: {course.teacher?.displayName || course.teacher?.username} · {course.memberCount} {course.memberCount === 1 ? 'member' : 'members'}
        </p>
        {isTeacher && course.inviteCode && (
          <p className="invite">
            Invite code: <code>{course.inviteCode}</code> <CopyButton value={course.inviteCode} label="Copy code" />
          </p>
        )}
      </div>
      <div className="grid-2">
        <div>
          <h3>Due next</h3>
          {homeworks.isPending ? (
            <Loading />
          ) : homeworks.error ? (
            <Empty>Homework is not available right now.</Empty>
          ) : upcoming.length === 0 ? (
            <Empty>Nothing due. Well done.</Empty>
          ) : (
            <ul className="plain">
              {upcoming.map((h) => (
                <li key={h.taskId}>
                  <Link to={`?taskId=${h.taskId}`}>{h.title}</Link> <StatusBadge status={h.status} />{' '}
                  <span className="meta">
                    due <Time iso={h.dueAt} /> (<Countdown seconds={h.remainingSeconds} since={homeworks.dataUpdatedAt} />)
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h3>Latest announcements</h3>
          {announcements.isPending ? (
            <Loading />
          ) : announcements.error ? (
            <Empty>Announcements are not available right now.</Empty>
          ) : announcements.data.length === 0 ? (
            <Empty>No announcements yet.</Empty>
          ) : (
            <ul className="plain">
              {announcements.data.slice(0, 3).map((a) => (
                <li key={a.id}>
                  <strong>{a.title}</strong> <span className="meta">· <Time iso={a.createdAt} /></span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </div>
  )
}

export function AnnouncementsSection({ course }: SectionProps) {
  const q = useAnnouncements(course.id)
  return (
    <QueryView query={q}>
      {(list) =>
        list.length === 0 ? (
          <Empty>No announcements yet.</Empty>
        ) : (
          <ul className="plain stack">
            {list.map((a) => (
              <li key={a.id} className="announcement">
                <h3>{a.title}</h3>
                <p className="meta">
                  {a.author?.displayName} · <Time iso={a.createdAt} />
                </p>
                <RichText html={a.content} />
              </li>
            ))}
          </ul>
        )
      }
    </QueryView>
  )
}

export function LearningSection({ course, isTeacher }: SectionProps) {
  const q = useLearning(course.id)
  return (
    <QueryView query={q}>
      {(tree) =>
        tree.units.length === 0 ? (
          <Empty>No learning content yet.{isTeacher && <> Add units in <Link to={`/courses/${course.id}/manage?tab=learning`}>Manage</Link>.</>}</Empty>
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
                        <Empty>No tasks yet.</Empty>
                      ) : (
                        <ul className="plain tasks">
                          {p.tasks.map((t) => (
                            <li key={t.id}>
                              <TaskCard task={t} courseId={course.id} isTeacher={isTeacher} />
                            </li>
                          ))}
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
    </QueryView>
  )
}

export function QuizSection({ course, isTeacher }: SectionProps) {
  const q = useLearning(course.id)
  return (
    <QueryView query={q}>
      {(tree) => {
        const quizzes = allTasks(tree).filter((t) => t.taskType === 'QUIZ')
        return quizzes.length === 0 ? (
          <Empty>No quizzes yet.</Empty>
        ) : (
          <ul className="plain tasks">
            {quizzes.map((t) => (
              <li key={t.id}>
                <TaskCard task={t} courseId={course.id} isTeacher={isTeacher} />
              </li>
            ))}
          </ul>
        )
      }}
    </QueryView>
  )
}

export function HomeworkSection({ course, isTeacher }: SectionProps) {
  const q = useCourseHomeworks(course.id)
  const tree = useLearning(course.id)
  const tasks = new Map(allTasks(tree.data).map((t) => [t.id, t]))
  return (
    <QueryView query={q}>
      {(list) =>
        list.items.length === 0 ? (
          <Empty>No homework yet.</Empty>
        ) : (
          <ul className="plain tasks" data-testid="course-homework">
            {list.items.map((h) => (
              <li key={h.taskId}>
                <HomeworkRow item={h} task={tasks.get(h.taskId)} courseId={course.id} isTeacher={isTeacher} since={q.dataUpdatedAt} />
              </li>
            ))}
          </ul>
        )
      }
    </QueryView>
  )
}

function HomeworkRow({ item, task, courseId, isTeacher, since }: { item: HomeworkItem; task?: Task; courseId: string; isTeacher: boolean; since: number }) {
  const ref = useRef<HTMLDetailsElement>(null)
  const [open, setOpen] = useTaskDisclosure(item.taskId, ref)
  return (
    <details ref={ref} className="task" data-task-id={item.taskId} open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span className="task-title">{item.title}</span>
        <span className="task-tags">
          <StatusBadge status={item.status} />
          <span className="meta">
            due <Time iso={item.dueAt} />
            {item.status !== 'SUBMITTED' && item.status !== 'OVERDUE' && (
              <>
                {' '}
                (<Countdown seconds={item.remainingSeconds} since={since} />)
              </>
            )}
          </span>
          {isTeacher && item.studentCount != null && (
            <span className="meta">
              {item.submittedCount ?? 0}/{item.studentCount} submitted
            </span>
          )}
          {!isTeacher && item.score != null && <Badge tone="ok">Score {formatScore(item.score)}</Badge>}
        </span>
      </summary>
      {open &&
        (task ? (
          <TaskBody task={task} courseId={courseId} isTeacher={isTeacher} />
        ) : (
          <div className="task-body">
            <Loading label="Loading the task…" />
          </div>
        ))}
    </details>
  )
}

export function GradesSection({ course, isTeacher }: SectionProps) {
  const overview = useLearningOverview(course.id)
  const homeworks = useCourseHomeworks(course.id)
  const tree = useLearning(course.id)
  const experiments = useExperiments(course.id)
  if (isTeacher) {
    return (
      <>
        <p>
          <Link to={`/courses/${course.id}/manage?tab=grades`}>Open the full grade overview (with CSV download)</Link>
        </p>
        <QueryView query={overview}>{(rows) => <LearningOverviewTable rows={rows} />}</QueryView>
      </>
    )
  }
  const mine = overview.data?.[0]
  const graded = allTasks(tree.data).filter((t) => t.taskKind === 'HOMEWORK' || t.taskType === 'QUIZ')
  return (
    <>
      {mine && (
        <dl className="stats">
          <div>
            <dt>Tasks</dt>
            <dd>{mine.totalTasks}</dd>
          </div>
          <div>
            <dt>Submitted</dt>
            <dd>{mine.submittedTasks}</dd>
          </div>
          <div>
            <dt>Graded</dt>
            <dd>{mine.gradedTasks}</dd>
          </div>
          <div>
            <dt>Average score</dt>
            <dd>{formatScore(mine.averageScore)}</dd>
          </div>
        </dl>
      )}
      <h3>Homework and quizzes</h3>
      {tree.isPending ? (
        <Loading />
      ) : graded.length === 0 ? (
        <Empty>No graded work yet.</Empty>
      ) : (
        <ul className="plain tasks">
          {graded.map((t) => (
            <li key={t.id}>
              <FeedbackRow task={t} courseId={course.id} score={homeworks.data?.items.find((h) => h.taskId === t.id)?.score ?? null} />
            </li>
          ))}
        </ul>
      )}
      <h3>Experiments</h3>
      <QueryView query={experiments}>
        {(list) =>
          list.length === 0 ? (
            <Empty>No experiments.</Empty>
          ) : (
            <TableWrap label="My experiment grades">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Experiment</th>
                    <th scope="col">Submitted</th>
                    <th scope="col">Score</th>
                    <th scope="col">Feedback</th>
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
      </QueryView>
    </>
  )
}

function FeedbackRow({ task, courseId, score }: { task: Task; courseId: string; score: number | null }) {
  const [open, setOpen] = useState(false)
  return (
    <details className="task" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span className="task-title">{task.title}</span>
        <span className="task-tags">{score != null && <Badge tone="ok">Score {formatScore(score)}</Badge>}</span>
      </summary>
      {open && <FeedbackBody task={task} courseId={courseId} />}
    </details>
  )
}

function FeedbackBody({ task, courseId }: { task: Task; courseId: string }) {
  const subs = useTaskSubmissions(courseId, task.id)
  return (
    <div className="task-body">
      <QueryView query={subs}>
        {(list) =>
          list[0] ? <SubmissionSummary submission={list[0]} questions={task.questions ?? []} attempts={list.length} /> : <Empty>You have not submitted this yet.</Empty>
        }
      </QueryView>
    </div>
  )
}

function ExperimentGradeRow({ experiment }: { experiment: Experiment }) {
  const latest = useExperimentLatest(experiment.id)
  const s = latest.data
  return (
    <tr>
      <th scope="row">
        <Link to={`/experiments/${experiment.id}?courseId=${experiment.courseId}`}>{experiment.title}</Link>
      </th>
      <td>{latest.isPending ? '…' : s ? <Time iso={s.submittedAt} /> : 'not yet'}</td>
      <td>{s?.score != null ? formatScore(s.score) : '—'}</td>
      <td>{s?.feedback ? <RichText html={s.feedback} /> : '—'}</td>
    </tr>
  )
}

export function LearningOverviewTable({ rows }: { rows: { userId: string; username: string; displayName: string; totalTasks: number; submittedTasks: number; gradedTasks: number; averageScore: number | null }[] }) {
  if (rows.length === 0) return <Empty>No students yet.</Empty>
  return (
    <TableWrap label="Learning progress per student">
      <table>
        <thead>
          <tr>
            <th scope="col">Student</th>
            <th scope="col">Tasks</th>
            <th scope="col">Submitted</th>
            <th scope="col">Graded</th>
            <th scope="col">Average</th>
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
  const q = useExperiments(course.id)
  return (
    <QueryView query={q}>
      {(list) =>
        list.length === 0 ? (
          <Empty>No experiments yet.</Empty>
        ) : (
          <ul className="plain stack">
            {list.map((e) => (
              <li key={e.id} className="row-item">
                <Link to={`/experiments/${e.id}?courseId=${course.id}`}>{e.title}</Link>{' '}
                <span className="meta">
                  due <Time iso={e.dueAt} />
                </span>
              </li>
            ))}
          </ul>
        )
      }
    </QueryView>
  )
}

export function ResourcesSection({ course }: SectionProps) {
  const q = useResources(course.id)
  return (
    <QueryView query={q}>
      {(list) =>
        list.length === 0 ? (
          <Empty>No resources yet.</Empty>
        ) : (
          <TableWrap label="Course resources">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Category</th>
                  <th scope="col">Size</th>
                </tr>
              </thead>
              <tbody>
                {list.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">
                      {r.type === 'FILE' ? (
                        <a href={r.fileUrl ?? `${API_BASE}/resources/${r.id}/file`} download>
                          {r.name}
                        </a>
                      ) : isHttpUrl(r.externalUrl) ? (
                        <a href={r.externalUrl} target="_blank" rel="noopener noreferrer">
                          {r.name} <span className="sr-only">(opens in a new tab)</span>
                        </a>
                      ) : (
                        r.name
                      )}
                    </th>
                    <td>{r.type === 'FILE' ? 'File' : r.type === 'VIDEO' ? 'Video' : 'Link'}</td>
                    <td>{r.category || '—'}</td>
                    <td>{r.type === 'FILE' ? formatBytes(r.fileSize) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
        )
      }
    </QueryView>
  )
}
