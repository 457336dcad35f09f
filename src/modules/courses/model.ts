import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { PageQuery, pageOf } from '../../http/pagination.ts'
import { plainText } from '../../http/text.ts'

export const TITLE_MAX = 120
export const DESCRIPTION_MAX = 5000

const Title = plainText({ min: 1, max: TITLE_MAX })
const Description = plainText({ min: 0, max: DESCRIPTION_MAX, multiline: true })

export const CreateCourseBody = z.object({ title: Title, description: Description })
export type CreateCourseBody = z.infer<typeof CreateCourseBody>

export const UpdateCourseBody = z
  .object({
    title: Title.optional(),
    description: Description.optional(),
    joiningOpen: z.boolean().optional(),
    archived: z.boolean().optional().meta({ description: 'true archives the course (read-only), false makes it active again.' }),
    studentComments: z.boolean().optional().meta({ description: "false turns class comments off for the course's students (they still read them)." }),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), {
    message: 'send at least one of title, description, joiningOpen, archived, studentComments',
  })
export type UpdateCourseBody = z.infer<typeof UpdateCourseBody>

export const JoinBody = z.object({
  // Long enough for pasted codes with spaces around them, short enough to refuse junk early.
  inviteCode: z.string().trim().min(1, 'enter the invite code').max(64, 'is not an invite code'),
})
export type JoinBody = z.infer<typeof JoinBody>

export const CourseRole = z.enum(['TEACHER', 'STUDENT'])

export const Course = z
  .object({
    id: Uuid,
    title: z.string(),
    description: z.string(),
    teacher: z.object({ id: Uuid, username: z.string(), displayName: z.string() }),
    memberCount: z.number().int().meta({ description: 'Everyone in the member list: the teacher plus the joined students.' }),
    studentCount: z.number().int().meta({ description: 'The joined students only (whom an announcement notifies); co-teachers are not counted.' }),
    createdAt: IsoDateTime,
    inviteCode: z.string().optional().meta({ description: "Only for the course's teacher." }),
    joiningOpen: z.boolean().optional().meta({ description: "Only for the course's teacher. When false, the invite code is refused." }),
    myRole: CourseRole.meta({ description: "The caller's role in this course." }),
    archived: z.boolean().meta({ description: 'An archived course is read-only: every write in it answers 409 (40908).' }),
    studentComments: z.boolean().meta({ description: 'Whether students may write class comments (under announcements and tasks); teachers always may.' }),
  })
  .meta({ id: 'Course' })

export const CourseListQuery = z.object({
  archived: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: '`true`: the archived courses instead of the active ones.' }),
})

export const Member = z
  .object({
    userId: Uuid,
    username: z.string(),
    displayName: z.string(),
    role: CourseRole.meta({ description: 'TEACHER for the owner and the co-teachers.' }),
    owner: z.boolean().meta({ description: "The course's owner (who created it); co-teachers and students: false." }),
    joinedAt: IsoDateTime.meta({ description: "For the owner: the course's creation time; for a co-teacher: when they were added." }),
  })
  .meta({ id: 'CourseMember' })

export const MembersQuery = PageQuery.extend({
  q: z.string().trim().max(100, 'must be at most 100 characters').optional().meta({ description: 'Keep members whose name or username contains this (case-insensitive).' }),
  after: z.string().max(500, 'is not a cursor from this list').optional().meta({
    description: "The previous page's `nextCursor`: the next students after it, in constant time whatever the page (teachers come on the first page only).",
  }),
})
export type MembersQuery = z.infer<typeof MembersQuery>

export const MemberPage = pageOf(Member).extend({
  nextCursor: z.string().nullable().meta({ description: 'Pass as `after` for the next students; null on the last page.' }),
})
