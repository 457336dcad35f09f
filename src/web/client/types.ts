// API shapes, derived from the server's own zod models (src/modules/*/model.ts) with
// `import type` + z.output: the compiler checks the client against what the routes validate
// and document, and nothing of zod or the server reaches the bundle. Timestamps are ISO-8601
// strings. The export names are the ones the pages have always used.
import type { z } from 'zod'
import type * as announcements from '../../modules/announcements/model.ts'
import type * as analytics from '../../modules/analytics/model.ts'
import type * as comments from '../../modules/comments/model.ts'
import type * as auth from '../../modules/auth/model.ts'
import type * as courses from '../../modules/courses/model.ts'
import type * as experiments from '../../modules/experiments/model.ts'
import type * as grades from '../../modules/grades/model.ts'
import type * as homework from '../../modules/homework/model.ts'
import type * as learning from '../../modules/learning/model.ts'
import type * as notifications from '../../modules/notifications/model.ts'
import type * as reminders from '../../modules/reminders/model.ts'
import type * as resources from '../../modules/resources/model.ts'
import type * as sso from '../../modules/sso/model.ts'
import type * as workspace from '../../modules/workspace/model.ts'

type Out<T extends z.ZodType> = z.output<T>

export type Role = Out<typeof auth.RoleSchema>
export type User = Out<typeof auth.User>
export type LoginResult = Out<typeof auth.LoginResult>
export type LoginProviders = Out<typeof sso.Providers>

/** The paging envelope of list routes (src/http/pagination.ts). */
export interface Page<T> {
  items: T[]
  total: number
  page: number
  pageSize: number
}

export type Course = Out<typeof courses.Course>
export type PersonRef = Course['teacher']
export type Member = Out<typeof courses.Member>
export type CourseRole = Out<typeof courses.CourseRole>

export type Announcement = Out<typeof announcements.Announcement>

export type Comment = Out<typeof comments.Comment>
export type CommentPage = Out<typeof comments.CommentPage>

export type ModuleKey = Out<typeof workspace.ModuleKeySchema>
export type ModuleConfig = Out<typeof workspace.WorkspaceModule>

export type QuestionType = Out<typeof learning.QuestionType>
export type Question = Out<typeof learning.Question>
export type TaskKind = Out<typeof learning.TaskKind>
export type TaskType = Out<typeof learning.TaskType>
export type MaterialType = Out<typeof learning.MaterialType>
export type Task = Out<typeof learning.Task>
export type GradeRelease = Out<typeof learning.GradeRelease>
export type GradesReleased = Out<typeof learning.Released>
export type EditedTask = Out<typeof learning.EditedTask>
export type LearningTree = Out<typeof learning.LearningTree>
export type Unit = LearningTree['units'][number]
export type Point = Unit['points'][number]
/** A stored answer (on a submission) or one being sent (the submit body): both read the same way. */
export type Answer = Out<typeof learning.Answer> | z.input<typeof learning.AnswerInput>
export type QuestionScore = Out<typeof learning.QuestionScore>
export type LearningSubmission = Out<typeof learning.Submission>
export type LearningGradeBody = z.input<typeof learning.LearningGradeBody>
export type LearningOverviewRow = Out<typeof learning.Overview>['students'][number]

export type HomeworkStatus = Out<typeof homework.HomeworkStatusSchema>
export type HomeworkItem = Out<typeof homework.HomeworkItem>
export type HomeworkList = Out<typeof homework.HomeworkList>

export type ReminderEvent = Out<typeof reminders.ReminderEvent>

export type Notification = Out<typeof notifications.Notification>
export type NotificationPage = Out<typeof notifications.NotificationPage>

export type Experiment = Out<typeof experiments.Experiment>
export type ExperimentSubmission = Out<typeof experiments.Submission>

export type ResourceType = Out<typeof resources.ResourceType>
export type Resource = Out<typeof resources.Resource>

export type GradeOverview = Out<typeof grades.GradeOverview>
export type GradeColumn = Out<typeof grades.GradeColumn>
export type GradeOverviewRow = GradeOverview['students'][number]

export type ScoreDistribution = Out<typeof analytics.ScoreDistribution>
export type HandInTimeline = Out<typeof analytics.HandInTimeline>
export type QuestionCorrectness = Out<typeof analytics.QuestionCorrectness>
export type TotalsDistribution = Out<typeof analytics.TotalsDistribution>
