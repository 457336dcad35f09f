import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { plainText } from '../../http/text.ts'

export const TITLE_MAX = 200
/** Raw input limit, before sanitising (about 100 KB of HTML). */
export const CONTENT_MAX = 100_000

const Title = plainText({ min: 1, max: TITLE_MAX })
const Content = z
  .string()
  .min(1, 'must not be empty')
  .max(CONTENT_MAX, `must be at most ${CONTENT_MAX} characters`)
  .meta({ description: 'Rich text (HTML); sanitised on write against the allow-list. What is stored is what is returned.' })

export const CreateAnnouncementBody = z.object({ title: Title, content: Content })
export type CreateAnnouncementBody = z.infer<typeof CreateAnnouncementBody>

export const UpdateAnnouncementBody = z
  .object({ title: Title.optional(), content: Content.optional() })
  .refine((b) => b.title !== undefined || b.content !== undefined, { message: 'send title, content or both' })
export type UpdateAnnouncementBody = z.infer<typeof UpdateAnnouncementBody>

export const Announcement = z
  .object({
    id: Uuid,
    courseId: Uuid,
    title: z.string(),
    content: z.string().meta({ description: 'Sanitised HTML.' }),
    author: z.object({ id: Uuid, displayName: z.string() }),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime.meta({ description: 'Equal to createdAt until the announcement is edited.' }),
  })
  .meta({ id: 'Announcement' })
