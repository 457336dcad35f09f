import type { ComponentType } from 'react'
import { Link, useParams, useSearchParams } from 'react-router'
import { usePageTitle } from '../layout/usePageTitle.ts'
import { MODULE_LABELS, sectionId } from '../modules.ts'
import { useCourse, useMe, useModules } from '../queries.ts'
import type { ModuleKey } from '../types.ts'
import { ErrorNotice, Loading } from '../ui/Notice.tsx'
import { FocusTaskProvider } from '../workspace/focus.tsx'
import {
  AnnouncementsSection,
  ExperimentsSection,
  GradesSection,
  HomeworkSection,
  LearningSection,
  OverviewSection,
  QuizSection,
  ResourcesSection,
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

/** The course workspace: the enabled modules as sections, in the teacher's order. */
export default function CourseWorkspacePage() {
  const { courseId = '' } = useParams()
  const [params] = useSearchParams()
  const me = useMe().data!
  const course = useCourse(courseId)
  const modules = useModules(courseId)
  usePageTitle(course.data?.title ?? 'Course')

  if (course.isPending) return <Loading label="Loading the course…" />
  if (course.error)
    return (
      <>
        <h1>Course</h1>
        <ErrorNotice error={course.error} onRetry={() => void course.refetch()} />
        <p>
          <Link to="/courses">Back to my courses</Link>
        </p>
      </>
    )
  const c = course.data
  const isTeacher = c.teacher?.id === me.id
  const enabled = (modules.data ?? []).filter((m) => m.enabled && SECTIONS[m.moduleKey])

  return (
    <>
      <div className="page-head">
        <div>
          <p className="crumbs">
            <Link to="/courses">My courses</Link>
          </p>
          <h1>{c.title}</h1>
        </div>
        {isTeacher && (
          <Link to={`/courses/${c.id}/manage`} className="btn">
            Manage course
          </Link>
        )}
      </div>
      {modules.isPending && <Loading label="Loading the workspace…" />}
      {modules.error && <ErrorNotice error={modules.error} onRetry={() => void modules.refetch()} />}
      {enabled.length > 1 && (
        <nav className="section-nav" aria-label="Sections of this course">
          {enabled.map((m) => (
            <a key={m.moduleKey} href={`#${sectionId(m.moduleKey)}`}>
              {MODULE_LABELS[m.moduleKey]}
            </a>
          ))}
        </nav>
      )}
      {modules.data && enabled.length === 0 && <p className="empty">The teacher has not enabled any sections for this course yet.</p>}
      <FocusTaskProvider taskId={params.get('taskId')}>
        {enabled.map((m) => {
          const Section = SECTIONS[m.moduleKey]
          return (
            <section key={m.moduleKey} id={sectionId(m.moduleKey)} className="panel section" aria-labelledby={`${sectionId(m.moduleKey)}-title`}>
              <h2 id={`${sectionId(m.moduleKey)}-title`}>{MODULE_LABELS[m.moduleKey]}</h2>
              <Section course={c} isTeacher={isTeacher} />
            </section>
          )
        })}
      </FocusTaskProvider>
    </>
  )
}
