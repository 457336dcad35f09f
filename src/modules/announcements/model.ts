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

export const AnnouncementState = z.enum(['DRAFT', 'SCHEDULED', 'PUBLISHED'])
export type AnnouncementState = z.infer<typeof AnnouncementState>

const State = AnnouncementState.optional().meta({
  description:
    'DRAFT (students do not see it, nobody is notified), SCHEDULED (published by the service at publishAt) or PUBLISHED (students see it and are notified, once). Left out on create: PUBLISHED at once (or SCHEDULED when publishAt is given); left out on edit: unchanged. A published announcement stays published (delete it to retract it).',
})
const PublishAt = z.iso
  .datetime({ offset: true, message: 'must be an ISO-8601 date-time with an offset' })
  .nullable()
  .optional()
  .meta({ description: 'When a SCHEDULED announcement is published; must be in the future. Given alone, it schedules.' })

export const CreateAnnouncementBody = z.object({ title: Title, content: Content, state: State, publishAt: PublishAt })
export type CreateAnnouncementBody = z.infer<typeof CreateAnnouncementBody>

export const UpdateAnnouncementBody = z
  .object({ title: Title.optional(), content: Content.optional(), state: State, publishAt: PublishAt })
  .refine((b) => b.title !== undefined || b.content !== undefined || b.state !== undefined || b.publishAt !== undefined, {
    message: 'send title, content, state or publishAt',
  })
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
    state: AnnouncementState.meta({ description: 'Students only ever see PUBLISHED announcements.' }),
    publishAt: IsoDateTime.nullable().meta({ description: 'Set while SCHEDULED.' }),
    publishedAt: IsoDateTime.nullable().meta({ description: 'When students were notified (null until published).' }),
  })
  .meta({ id: 'Announcement' })
