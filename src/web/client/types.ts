// API shapes, as fixed by ../shared/API-CONTRACT.md. Timestamps are ISO-8601 strings.

export type Role = 'STUDENT' | 'TEACHER'

export interface User {
  id: string
  username: string
  email: string
  displayName: string
  role: Role
  createdAt: string
  /** The user's language (`en`, `zh-CN`); null: not chosen, the browser decides. */
  locale?: 'en' | 'zh-CN' | null
}

export interface LoginResult {
  accessToken: string
  tokenType: 'Bearer'
  expiresAt: string
  user: User
}

export interface Page<T> {
  items: T[]
  total: number
  page: number
  pageSize: number
}

export interface PersonRef {
  id: string
  username?: string
  displayName: string
}

export interface Course {
  id: string
  title: string
  description: string
  teacher: PersonRef
  memberCount: number
  createdAt: string
  inviteCode?: string
}

export interface Member {
  userId: string
  username: string
  displayName: string
  role: Role
  joinedAt: string
}

export interface Announcement {
  id: string
  courseId: string
  title: string
  content: string
  author: { id: string; displayName: string }
  createdAt: string
}

export type ModuleKey = 'OVERVIEW' | 'LEARNING' | 'HOMEWORK' | 'QUIZ' | 'GRADES' | 'EXPERIMENTS' | 'RESOURCES' | 'ANNOUNCEMENTS'

export interface ModuleConfig {
  moduleKey: ModuleKey
  enabled: boolean
  sortOrder: number
}

export type QuestionType = 'SINGLE_CHOICE' | 'MULTIPLE_CHOICE' | 'SHORT_ANSWER'

export interface Question {
  id: string
  type: QuestionType
  stem: string
  options?: string[] | null
  /** Only ever present for the course's teacher. */
  correctOptions?: number[] | null
  points?: number | null
}

export type TaskKind = 'LEARNING' | 'HOMEWORK'
export type TaskType = 'MEDIA' | 'QUIZ'
export type MaterialType = 'FILE' | 'LINK' | 'TEXT'

export interface Task {
  id: string
  pointId: string
  courseId: string
  title: string
  taskKind: TaskKind
  taskType: TaskType
  materialType: MaterialType | null
  content: string | null
  url: string | null
  resourceId: string | null
  questions: Question[] | null
  startAt: string | null
  dueAt: string | null
  notifyOnStart: boolean
  notifyBeforeDue24h: boolean
  notifyOnDue: boolean
  sortOrder: number
  createdAt: string
}

export interface Point {
  id: string
  unitId: string
  title: string
  description: string | null
  sortOrder: number
  tasks: Task[]
}

export interface Unit {
  id: string
  courseId: string
  title: string
  description: string | null
  sortOrder: number
  points: Point[]
}

export interface LearningTree {
  units: Unit[]
}

export interface Answer {
  questionId: string
  selectedOptions?: number[] | null
  text?: string | null
}

export interface LearningSubmission {
  id: string
  taskId: string
  courseId: string
  student: PersonRef
  content: string | null
  answers: Answer[] | null
  autoScore: number | null
  score: number | null
  feedback: string | null
  status: 'SUBMITTED' | 'GRADED'
  late: boolean
  submittedAt: string
  gradedAt: string | null
}

export interface LearningOverviewRow {
  userId: string
  username: string
  displayName: string
  totalTasks: number
  submittedTasks: number
  gradedTasks: number
  averageScore: number | null
}

export type HomeworkStatus = 'NOT_STARTED' | 'IN_PROGRESS' | 'SUBMITTED' | 'OVERDUE'

export interface HomeworkItem {
  taskId: string
  courseId: string
  courseTitle: string
  title: string
  startAt: string
  dueAt: string
  status: HomeworkStatus
  submittedAt: string | null
  score: number | null
  remainingSeconds: number
  submittedCount?: number
  studentCount?: number
}

export interface HomeworkList {
  items: HomeworkItem[]
  unreadReminderCount: number
}

export interface ReminderEvent {
  id: string
  taskId: string
  targetUserId: string
  triggerType: 'START' | 'BEFORE_DUE_24H' | 'DUE'
  scheduledAt: string
  sentAt: string | null
  canceled: boolean
  state: 'PENDING' | 'SENT' | 'CANCELED'
}

export interface Notification {
  id: string
  type: 'HOMEWORK_REMINDER' | 'SUBMISSION_GRADED' | 'ANNOUNCEMENT' | string
  title: string
  content: string
  actionPath: string | null
  readAt: string | null
  deliveredAt: string
}

export interface NotificationPage extends Page<Notification> {
  unreadCount: number
}

export interface Experiment {
  id: string
  courseId: string
  title: string
  description: string
  dueAt: string
  createdAt: string
}

export interface ExperimentSubmission {
  id: string
  experimentId: string
  student: PersonRef
  fileName: string
  fileSize: number
  contentType: string
  note: string | null
  late: boolean
  submittedAt: string
  score: number | null
  feedback: string | null
  gradedAt: string | null
  fileUrl?: string | null
}

export type ResourceType = 'FILE' | 'VIDEO' | 'LINK'

export interface Resource {
  id: string
  courseId: string
  name: string
  type: ResourceType
  category: string | null
  externalUrl: string | null
  fileName: string | null
  fileSize: number | null
  contentType: string | null
  fileUrl: string | null
  createdAt: string
}

export interface GradeOverviewRow {
  userId: string
  username: string
  displayName: string
  submissionCount: number
  gradedCount: number
  averageScore: number | null
  experiments: {
    experimentId: string
    title: string
    submissionId: string | null
    submittedAt: string | null
    score: number | null
    feedback: string | null
    gradedAt: string | null
  }[]
}
