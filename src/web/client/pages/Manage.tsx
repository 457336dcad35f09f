import type { ComponentType } from 'react'
import { Link, useParams, useSearchParams } from 'react-router'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { AnnouncementsTab } from '../manage/Announcements.tsx'
import { ExperimentsTab } from '../manage/Experiments.tsx'
import { GradesTab } from '../manage/Grades.tsx'
import { GradingTab } from '../manage/Grading.tsx'
import { LearningTab } from '../manage/Learning.tsx'
import { ModulesTab } from '../manage/Modules.tsx'
import { ResourcesTab } from '../manage/Resources.tsx'
import type { TabProps } from '../manage/types.ts'
import { useCourse, useMe } from '../queries.ts'
import { CopyButton } from '../ui/CopyButton.tsx'
import { ErrorNotice, Loading } from '../ui/Notice.tsx'

const TABS: { key: string; label: string; Component: ComponentType<TabProps> }[] = [
  { key: 'learning', label: 'Learning structure', Component: LearningTab },
  { key: 'announcements', label: 'Announcements', Component: AnnouncementsTab },
  { key: 'experiments', label: 'Experiments', Component: ExperimentsTab },
  { key: 'resources', label: 'Resources', Component: ResourcesTab },
  { key: 'modules', label: 'Workspace modules', Component: ModulesTab },
  { key: 'grading', label: 'Grading', Component: GradingTab },
  { key: 'grades', label: 'Grade overview', Component: GradesTab },
]

/** Teacher publishing for one course, one tab at a time (the tab is in the URL). */
export default function ManagePage() {
  const { courseId = '' } = useParams()
  const [params] = useSearchParams()
  const me = useMe().data!
  const course = useCourse(courseId)
  usePageTitle(course.data ? `Manage ${course.data.title}` : 'Manage course')
  const active = TABS.find((t) => t.key === params.get('tab')) ?? TABS[0]!

  if (course.isPending) return <Loading label="Loading the course…" />
  if (course.error)
    return (
      <>
        <h1>Manage course</h1>
        <ErrorNotice error={course.error} onRetry={() => void course.refetch()} />
      </>
    )
  const c = course.data
  if (c.teacher?.id !== me.id)
    return (
      <>
        <h1>Manage {c.title}</h1>
        <div className="notice notice-error" role="alert">
          <p className="notice-title">Only the course's teacher can manage it.</p>
          <p>
            You can still use the <Link to={`/courses/${c.id}`}>course workspace</Link>.
          </p>
        </div>
      </>
    )

  const { Component } = active
  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/courses">My courses</Link> › <Link to={`/courses/${c.id}`}>{c.title}</Link>
          </p>
          <h1>Manage {c.title}</h1>
        </div>
        {c.inviteCode && (
          <p className="invite">
            Invite code: <code>{c.inviteCode}</code> <CopyButton value={c.inviteCode} label="Copy code" />
          </p>
        )}
      </div>
      <nav className="tabs" aria-label="Management sections">
        {TABS.map((t) => (
          <Link key={t.key} to={`?tab=${t.key}`} aria-current={t.key === active.key ? 'page' : undefined} replace>
            {t.label}
          </Link>
        ))}
      </nav>
      <section className="panel" aria-labelledby="tab-title">
        <h2 id="tab-title">{active.label}</h2>
        <Component course={c} />
      </section>
    </>
  )
}
