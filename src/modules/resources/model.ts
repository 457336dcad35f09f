import { uploadedFile } from '../../storage/upload.ts'
import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { plainText } from '../../http/text.ts'
import { PageQuery } from '../../http/pagination.ts'

export const ResourceType = z.enum(['FILE', 'VIDEO', 'LINK'], { message: 'must be FILE, VIDEO or LINK' })

/** Parsed with the URL parser (not a pattern): only http and https, no embedded credentials; stored normalised. */
const HttpUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2,048 characters')
  .transform((value, ctx) => {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' })
      return z.NEVER
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'only http and https URLs are accepted' })
      return z.NEVER
    }
    if (url.username || url.password) {
      ctx.addIssue({ code: 'custom', message: 'must not contain a user name or password' })
      return z.NEVER
    }
    return url.href
  })
  .meta({ format: 'uri' })

const Category = plainText({ min: 0, max: 64 })

export const ResourceForm = z
  .object({
    name: plainText({ min: 1, max: 200 }),
    type: ResourceType,
    category: Category.optional(),
    file: uploadedFile('must be a file').optional().meta({ description: 'Required for FILE, not allowed otherwise.' }),
    externalUrl: HttpUrl.optional().meta({ description: 'Required for VIDEO and LINK (http/https only), not allowed for FILE.' }),
  })
  .superRefine((f, ctx) => {
    if (f.type === 'FILE') {
      if (!f.file) ctx.addIssue({ code: 'custom', path: ['file'], message: 'a file is required when type is FILE' })
      if (f.externalUrl) ctx.addIssue({ code: 'custom', path: ['externalUrl'], message: 'not allowed when type is FILE' })
    } else {
      if (!f.externalUrl) ctx.addIssue({ code: 'custom', path: ['externalUrl'], message: `required when type is ${f.type}` })
      if (f.file) ctx.addIssue({ code: 'custom', path: ['file'], message: 'a file is only allowed when type is FILE' })
    }
  })
export type ResourceForm = z.infer<typeof ResourceForm>

export const ResourceQuery = PageQuery.extend({
  type: ResourceType.optional(),
  category: Category.optional(),
})
export type ResourceQuery = z.infer<typeof ResourceQuery>

export const ResourceParams = z.object({ resourceId: Uuid })
export const CourseResourceParams = z.object({ courseId: Uuid, resourceId: Uuid })

export const Resource = z
  .object({
    id: Uuid,
    courseId: Uuid,
    name: z.string(),
    type: ResourceType,
    category: z.string().nullable(),
    externalUrl: z.string().nullable(),
    fileName: z.string().nullable(),
    fileSize: z.number().int().nullable(),
    contentType: z.string().nullable(),
    fileUrl: z.string().nullable().meta({ description: 'FILE only: `/api/v1/resources/{id}/file`.' }),
    createdAt: IsoDateTime,
  })
  .meta({ id: 'Resource' })
