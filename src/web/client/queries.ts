import { useQuery, type UseQueryOptions } from '@tanstack/react-query'
import { get, listOf } from './api.ts'
import type {
  Announcement,
  Course,
  Experiment,
  ExperimentSubmission,
  GradeOverview,
  HomeworkList,
  LearningOverviewRow,
  LearningSubmission,
  LearningTree,
  Member,
  ModuleConfig,
  NotificationPage,
  Page,
  ReminderEvent,
  Resource,
  User,
} from './types.ts'

/** Query keys in one place, so mutations invalidate exactly what they change. */
export const keys = {
  me: ['me'] as const,
  courses: ['courses'] as const,
  course: (id: string) => ['course', id] as const,
  members: (id: string) => ['members', id] as const,
  modules: (id: string) => ['modules', id] as const,
  announcements: (id: string) => ['announcements', id] as const,
  learning: (id: string) => ['learning', id] as const,
  learningOverview: (id: string) => ['learning-overview', id] as const,
  courseHomeworks: (id: string) => ['homeworks', 'course', id] as const,
  myHomeworks: (p: { status?: string; courseId?: string } = {}) => ['homeworks', 'mine', p] as const,
  homeworks: ['homeworks'] as const,
  taskSubmissions: (courseId: string, taskId: string) => ['task-submissions', courseId, taskId] as const,
  experiments: (courseId: string) => ['experiments', courseId] as const,
  experiment: (courseId: string, id: string) => ['experiment', courseId, id] as const,
  experimentSubmissions: (id: string) => ['experiment-submissions', id] as const,
  experimentLatest: (id: string) => ['experiment-latest', id] as const,
  resources: (courseId: string) => ['resources', courseId] as const,
  grades: (courseId: string) => ['grades', courseId] as const,
  reminders: (courseId: string, taskId: string) => ['reminders', courseId, taskId] as const,
  notifications: ['notifications'] as const,
  notificationPage: (p: { unreadOnly: boolean; page: number }) => ['notifications', 'list', p] as const,
  unreadCount: ['notifications', 'unread-count'] as const,
  /** Every comment thread; one thread by its API path. */
  comments: ['comments'] as const,
  commentThread: (path: string) => ['comments', path] as const,
}

type Opts<T> = Omit<UseQueryOptions<T, Error, T, readonly unknown[]>, 'queryKey' | 'queryFn'>

const enc = encodeURIComponent

export const useMe = () => useQuery({ queryKey: keys.me, queryFn: () => get<User>('/auth/me'), staleTime: 60_000 })

export const useCourses = () => useQuery({ queryKey: keys.courses, queryFn: () => get<Course[] | Page<Course>>('/courses').then(listOf) })

export const useCourse = (id: string) => useQuery({ queryKey: keys.course(id), queryFn: () => get<Course>(`/courses/${enc(id)}`) })

export const useMembers = (id: string, opts: Opts<Member[]> = {}) =>
  useQuery({ queryKey: keys.members(id), queryFn: () => get<Member[] | Page<Member>>(`/courses/${enc(id)}/members?pageSize=200`).then(listOf), ...opts })

export const useModules = (id: string) =>
  useQuery({
    queryKey: keys.modules(id),
    queryFn: () => get<{ modules: ModuleConfig[] }>(`/courses/${enc(id)}/workspace/modules`).then((d) => [...d.modules].sort((a, b) => a.sortOrder - b.sortOrder)),
  })

export const useAnnouncements = (id: string) =>
  useQuery({
    queryKey: keys.announcements(id),
    queryFn: () => get<Announcement[] | Page<Announcement>>(`/courses/${enc(id)}/announcements?pageSize=50`).then(listOf),
  })

export const useLearning = (id: string) =>
  useQuery({ queryKey: keys.learning(id), queryFn: () => get<LearningTree>(`/courses/${enc(id)}/learning`) })

export const useLearningOverview = (id: string, opts: Opts<LearningOverviewRow[]> = {}) =>
  useQuery({
    queryKey: keys.learningOverview(id),
    queryFn: () => get<{ students: LearningOverviewRow[] }>(`/courses/${enc(id)}/learning/overview`).then((d) => d.students),
    ...opts,
  })

export const useCourseHomeworks = (id: string) =>
  useQuery({ queryKey: keys.courseHomeworks(id), queryFn: () => get<HomeworkList>(`/courses/${enc(id)}/homeworks`) })

export function useMyHomeworks(p: { status?: string; courseId?: string } = {}, opts: Opts<HomeworkList> = {}) {
  const q = new URLSearchParams()
  if (p.status) q.set('status', p.status)
  if (p.courseId) q.set('courseId', p.courseId)
  const qs = q.toString()
  return useQuery({ queryKey: keys.myHomeworks(p), queryFn: () => get<HomeworkList>(`/homeworks/mine${qs ? `?${qs}` : ''}`), ...opts })
}

export const useTaskSubmissions = (courseId: string, taskId: string, opts: Opts<LearningSubmission[]> = {}) =>
  useQuery({
    queryKey: keys.taskSubmissions(courseId, taskId),
    queryFn: () =>
      get<LearningSubmission[] | Page<LearningSubmission>>(`/courses/${enc(courseId)}/learning/tasks/${enc(taskId)}/submissions?pageSize=200`)
        .then(listOf)
        .then((rows) => [...rows].sort((a, b) => b.submittedAt.localeCompare(a.submittedAt))),
    ...opts,
  })

export const useExperiments = (courseId: string) =>
  useQuery({
    queryKey: keys.experiments(courseId),
    queryFn: () => get<Experiment[] | Page<Experiment>>(`/courses/${enc(courseId)}/experiments?pageSize=200`).then(listOf),
  })

export const useExperiment = (courseId: string, id: string) =>
  useQuery({ queryKey: keys.experiment(courseId, id), queryFn: () => get<Experiment>(`/courses/${enc(courseId)}/experiments/${enc(id)}`) })

export const useExperimentSubmissions = (id: string, opts: Opts<ExperimentSubmission[]> = {}) =>
  useQuery({
    queryKey: keys.experimentSubmissions(id),
    queryFn: () =>
      get<ExperimentSubmission[] | Page<ExperimentSubmission>>(`/experiments/${enc(id)}/submissions?pageSize=200`)
        .then(listOf)
        .then((rows) => [...rows].sort((a, b) => b.submittedAt.localeCompare(a.submittedAt))),
    ...opts,
  })

export const useExperimentLatest = (id: string, opts: Opts<ExperimentSubmission | null> = {}) =>
  useQuery({ queryKey: keys.experimentLatest(id), queryFn: () => get<ExperimentSubmission | null>(`/experiments/${enc(id)}/submissions/latest`), ...opts })

export const useResources = (courseId: string) =>
  useQuery({
    queryKey: keys.resources(courseId),
    queryFn: () => get<Resource[] | Page<Resource>>(`/courses/${enc(courseId)}/resources?pageSize=200`).then(listOf),
  })

export const useGrades = (courseId: string) =>
  useQuery({
    queryKey: keys.grades(courseId),
    queryFn: () => get<GradeOverview>(`/courses/${enc(courseId)}/grades/overview`),
  })

export const useReminders = (courseId: string, taskId: string) =>
  useQuery({
    queryKey: keys.reminders(courseId, taskId),
    queryFn: () => get<ReminderEvent[] | Page<ReminderEvent>>(`/courses/${enc(courseId)}/homeworks/${enc(taskId)}/reminders`).then(listOf),
  })

export const useNotifications = (p: { unreadOnly: boolean; page: number }) =>
  useQuery({
    queryKey: keys.notificationPage(p),
    queryFn: () => get<NotificationPage>(`/notifications?unreadOnly=${p.unreadOnly}&page=${p.page}&pageSize=20`),
  })

/** The inbox badge and the homework red dot refresh on their own, so reminders show up without a reload. */
export const useUnreadCount = (opts: Opts<number> = {}) =>
  useQuery({
    queryKey: keys.unreadCount,
    queryFn: () => get<NotificationPage>('/notifications?unreadOnly=true&pageSize=1').then((d) => d.unreadCount),
    refetchInterval: 60_000,
    ...opts,
  })
