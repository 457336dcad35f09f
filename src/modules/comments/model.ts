import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'

/** The most a comment may hold, in characters of HTML as sent. */
export const COMMENT_MAX = 10_000
/** Comments on a page unless `pageSize` says otherwise, and the most a page holds. */
export const PAGE_DEFAULT = 50
export const PAGE_MAX = 200

const Content = z
  .string()
  .min(1, 'must not be empty')
  .max(COMMENT_MAX, `must be at most ${COMMENT_MAX} characters`)
  .meta({ description: 'Rich text (HTML); sanitised on write against the allow-list. What is stored is what is returned.' })

export const CreateCommentBody = z.object({ content: Content }).strict()
export type CreateCommentBody = z.infer<typeof CreateCommentBody>

export const UpdateCommentBody = z
  .object({
    content: Content.optional().meta({ description: 'Its author only, within 15 minutes of writing it.' }),
    hidden: z.boolean().optional().meta({ description: "The course's teachers only, class comments only: hide it from the students (its author still sees it)." }),
  })
  .strict()
  .refine((b) => b.content !== undefined || b.hidden !== undefined, { message: 'send content, hidden or both' })
export type UpdateCommentBody = z.infer<typeof UpdateCommentBody>

export const CommentListQuery = z.object({
  after: z.string().max(200, 'is not a cursor from this list').optional().meta({ description: "The previous page's `nextCursor`." }),
  pageSize: z.coerce.number().int().min(1).max(PAGE_MAX).default(PAGE_DEFAULT),
})
export type CommentListQuery = z.infer<typeof CommentListQuery>

export const Comment = z
  .object({
    id: Uuid,
    content: z.string().meta({ description: 'Sanitised HTML.' }),
    author: z.object({ id: Uuid, username: z.string(), displayName: z.string(), role: z.enum(['TEACHER', 'STUDENT']) }),
    createdAt: IsoDateTime,
    editedAt: IsoDateTime.nullable().meta({ description: 'Null until its author edits it.' }),
    hidden: z.boolean().meta({ description: 'Hidden by a teacher: shown only to the teachers and to its author.' }),
  })
  .meta({ id: 'Comment' })

export const CommentPage = z
  .object({
    items: z.array(Comment).meta({ description: 'Oldest first.' }),
    nextCursor: z.string().nullable().meta({ description: 'Pass as `after` for the next page; null on the last page.' }),
  })
  .meta({ id: 'CommentPage' })

export const CommentParams = z.object({ commentId: Uuid })
