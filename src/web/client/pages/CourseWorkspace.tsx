import { TaskGone } from '../teaching/TaskGone.tsx'
import { useEffect, type ComponentType } from 'react'
import { Link, useParams, useSearchParams } from 'react-router'
import { useT } from '../i18n/index.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { moduleFromSlug, moduleLabel, moduleSlug, sectionId } from '../modules.ts'
import { useCourse, useLearning, useMe, useModules } from '../queries.ts'
import type { ModuleKey } from '../types.ts'
import { CourseBadge } from '../ui/CourseBadge.tsx'
import { Failure, Loaded } from '../ui/Failure.tsx'
import { Empty } from '../ui/Notice.tsx'
import { PageSkeleton, Skeleton } from '../ui/Skeleton.tsx'
import { allTasks } from '../workspace/data.ts'
import { FocusTaskProvider } from '../workspace/focus.tsx'
import { WORKSPACE } from '../workspace/messages.ts'
import { LeaveCourse } from '../roster/LeaveCourse.tsx'
import { ArchivedBanner } from '../terms/Terms.tsx'
import { ReadOnlyProvider } from '../ui/readOnly.tsx'
import { ScrollingTabs } from '../ui/ScrollingTabs.tsx'
import {
  AnnouncementsSection,
  ExperimentsSection,
  GradesSection,
  HomeworkSection,
  LearningSection,
  OverviewSection,
  QuizSection,
  ResourcesSection,
  taskHref,
  type SectionProps,
} from '../workspace/sections.tsx'

const SECTIONS: Record<ModuleKey, ComponentType<SectionProps>> = {
  OVERVIEW: OverviewSection,
  LEARNING: LearningSection,
  HOMEWORK: HomeworkSection,
  QUIZ: QuizSection,
  GRADES: GradesSection,
  EXPERIMENTS: ExperimentsSection,
  RESOURCES: ResourcesSection,
  ANNOUNCEMENTS: AnnouncementsSection,
}

/**
 * The course workspace: one view per enabled module, in the teacher's order, chosen by tabs
 * with the module in the URL (/courses/:courseId?module=homework); without one, the first
 * module (the overview). `?taskId=` alone (a reminder's link) opens the view holding the task.
 */
export default function CourseWorkspacePage() {
  const { t } = useT(WORKSPACE)
  const { courseId = '' } = useParams()
  const me = useMe().data!
  const course = useCourse(courseId)
  const modules = useModules(courseId)
  usePageTitle(course.data?.title ?? t('course'))

  if (course.isPending) return <PageSkeleton />
  if (course.error)
    return (
      <>
        <h1>{t('course')}</h1>
        <Failure error={course.error} onRetry={() => void course.refetch()} what="course" />
        <p>
          <Link to="/courses">{t('backToCourses')}</Link>
        </p>
      </>
    )
  const c = course.data
  const isTeacher = c.myRole === 'TEACHER'

  return (
    <>
      <div className="page-head">
        <div className="course-head">
          <CourseBadge id={c.id} title={c.title} size="lg" />
          <div>
            <p className="crumbs">
              <Link to="/courses">{t('myCourses')}</Link>
            </p>
            <h1>{c.title}</h1>
          </div>
        </div>
        {isTeacher && (
          <Link to={`/courses/${c.id}/manage`} className="btn">
            {t('manageCourse')}
          </Link>
        )}
        {c.myRole === 'STUDENT' && <LeaveCourse courseId={c.id} title={c.title} />}
      </div>
      <ArchivedBanner course={c} />
      <ReadOnlyProvider readOnly={Boolean(c.archived)}>
      <Loaded query={modules} skeleton={<Skeleton variant="cards" lines={3} />}>
        {(list) => {
          const enabled = list.filter((m) => m.enabled && SECTIONS[m.moduleKey]).map((m) => m.moduleKey)
          if (enabled.length === 0) return <Empty>{t('noModules')}</Empty>
          return <ModuleViews courseId={c.id} enabled={enabled} render={(key) => {
            const Section = SECTIONS[key]
            return <Section course={c} isTeacher={isTeacher} enabled={enabled} />
          }} />
        }}
      </Loaded>
      </ReadOnlyProvider>
    </>
  )
}

function ModuleViews({ courseId, enabled, render }: { courseId: string; enabled: ModuleKey[]; render: (key: ModuleKey) => React.ReactNode }) {
  const { t } = useT(WORKSPACE)
  const [params, setParams] = useSearchParams()
  const taskId = params.get('taskId')
  const asked = moduleFromSlug(params.get('module'))
  const tree = useLearning(courseId)

  // A task link without a module (reminders, copied task links), or naming a module that is off
  // now (issue 29.10: a saved quiz link broke when Quizzes was turned off): go to the view that
  // holds the task.
  const needsLookup = Boolean(taskId && (!asked || !enabled.includes(asked)))
  useEffect(() => {
    if (!needsLookup || !tree.data) return
    const task = allTasks(tree.data).find((x) => x.id === taskId)
    // A task that is gone keeps its id in the URL, so the view can say why nothing opens.
    const next = new URLSearchParams(task ? taskHref(task, enabled).slice(1) : `module=${moduleSlug(enabled[0]!)}&taskId=${taskId}`)
    // No enabled view holds it (Learning off too): the first view, never a loop back here.
    const chosen = moduleFromSlug(next.get('module'))
    if (!chosen || !enabled.includes(chosen)) next.set('module', moduleSlug(enabled[0]!))
    setParams(next, { replace: true })
  }, [needsLookup, tree.data, taskId, enabled, setParams])

  const current: ModuleKey = asked && enabled.includes(asked) ? asked : enabled[0]!

  if (needsLookup) {
    if (tree.error) return <Failure error={tree.error} onRetry={() => void tree.refetch()} />
    return <Skeleton lines={4} />
  }
  return (
    <>
      {enabled.length > 1 && (
        // Scrolls only the tab row, to its active tab (issue 56.5f: scrollIntoView also scrolled
        // the page sideways at phone width, so the row started at "erview").
        <ScrollingTabs className="tabs module-tabs" label={t('sectionsNav')} activeKey={current}>
          {enabled.map((key) => (
            <Link key={key} to={`?module=${moduleSlug(key)}`} aria-current={key === current ? 'page' : undefined} data-module={moduleSlug(key)}>
              {moduleLabel(key)}
            </Link>
          ))}
        </ScrollingTabs>
      )}
      {asked && !enabled.includes(asked) && <p className="notice notice-info">{t('moduleOff')}</p>}
      {taskId && tree.data && !allTasks(tree.data).some((x) => x.id === taskId) && <TaskGone />}
      <FocusTaskProvider taskId={taskId}>
        <section key={current} id={sectionId(current)} className="panel section" aria-labelledby={`${sectionId(current)}-title`}>
          <h2 id={`${sectionId(current)}-title`}>{moduleLabel(current)}</h2>
          {render(current)}
        </section>
      </FocusTaskProvider>
    </>
  )
}
