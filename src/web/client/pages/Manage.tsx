import type { ComponentType } from 'react'
import { Link, useParams, useSearchParams } from 'react-router'
import { useT } from '../i18n/index.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { AnnouncementsTab } from '../manage/Announcements.tsx'
import { ExperimentsTab } from '../manage/Experiments.tsx'
import { ChartsTab } from '../manage/Charts.tsx'
import { GradesTab } from '../manage/Grades.tsx'
import { GradingTab } from '../manage/Grading.tsx'
import { LearningTab } from '../manage/Learning.tsx'
import { NS } from '../manage/messages.ts'
import { ModulesTab } from '../manage/Modules.tsx'
import { ResourcesTab } from '../manage/Resources.tsx'
import { SettingsTab } from '../manage/Settings.tsx'
import { ClassListTab } from '../roster/ClassList.tsx'
import type { TabProps } from '../manage/types.ts'
import { useCourse, useMe } from '../queries.ts'
import { CopyButton } from '../ui/CopyButton.tsx'
import { ErrorNotice, Loading } from '../ui/Notice.tsx'
import { ScrollingTabs } from '../ui/ScrollingTabs.tsx'
import { ArchivedBanner } from '../terms/Terms.tsx'
import { ReadOnlyProvider, ReadOnlyScope } from '../ui/readOnly.tsx'

const TABS: { key: string; Component: ComponentType<TabProps> }[] = [
  { key: 'learning', Component: LearningTab },
  { key: 'announcements', Component: AnnouncementsTab },
  { key: 'experiments', Component: ExperimentsTab },
  { key: 'resources', Component: ResourcesTab },
  { key: 'modules', Component: ModulesTab },
  { key: 'grading', Component: GradingTab },
  { key: 'grades', Component: GradesTab },
  { key: 'charts', Component: ChartsTab },
  { key: 'classList', Component: ClassListTab },
  { key: 'settings', Component: SettingsTab },
]

/** Teacher publishing for one course, one tab at a time (the tab is in the URL). */
export default function ManagePage() {
  const { t } = useT(NS)
  const { courseId = '' } = useParams()
  const [params] = useSearchParams()
  const me = useMe().data!
  const course = useCourse(courseId)
  usePageTitle(course.data ? t('page.title', { title: course.data.title }) : t('page.fallbackTitle'))
  const active = TABS.find((x) => x.key === params.get('tab')) ?? TABS[0]!
  const label = (key: string) => t(`page.tabs.${key}`)

  if (course.isPending) return <Loading label={t('page.loading')} />
  if (course.error)
    return (
      <>
        <h1>{t('page.fallbackTitle')}</h1>
        <ErrorNotice error={course.error} onRetry={() => void course.refetch()} />
      </>
    )
  const c = course.data
  if (c.myRole !== 'TEACHER')
    return (
      <>
        <h1>{t('page.title', { title: c.title })}</h1>
        <div className="notice notice-error" role="alert">
          <p className="notice-title">{t('page.onlyTeacher')}</p>
          <p>
            <Link to={`/courses/${c.id}`}>{t('page.useWorkspace')}</Link>
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
            <Link to="/courses">{t('page.myCourses')}</Link> › <Link to={`/courses/${c.id}`}>{c.title}</Link>
          </p>
          <h1>{t('page.title', { title: c.title })}</h1>
        </div>
        {c.inviteCode && (
          <p className="invite">
            {t('page.inviteCode')} <code>{c.inviteCode}</code> <CopyButton value={c.inviteCode} label={t('page.copyCode')} />
          </p>
        )}
      </div>
      <ArchivedBanner course={c} />
      <ScrollingTabs className="tabs" label={t('page.sections')} activeKey={active.key}>
        {TABS.map((x) => (
          <Link key={x.key} to={`?tab=${x.key}`} aria-current={x.key === active.key ? 'page' : undefined} replace>
            {label(x.key)}
          </Link>
        ))}
      </ScrollingTabs>
      <section className="panel" aria-labelledby="tab-title">
        <h2 id="tab-title">{label(active.key)}</h2>
        {/* Archived (issue 56.3): every form is disabled; Settings keeps its unarchive button. */}
        <ReadOnlyProvider readOnly={Boolean(c.archived)}>
          {active.key === 'settings' ? (
            <Component course={c} />
          ) : (
            <ReadOnlyScope>
              <Component course={c} />
            </ReadOnlyScope>
          )}
        </ReadOnlyProvider>
      </section>
    </>
  )
}
