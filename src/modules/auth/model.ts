import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { plainText } from '../../http/text.ts'
import { LOCALES } from '../../i18n/locale.ts'

export const RoleSchema = z.enum(['STUDENT', 'TEACHER'])

/** The language a user reads the service in; null: not chosen, the browser's Accept-Language decides. */
export const LocaleSchema = z
  .enum(LOCALES, { message: 'must be "en", "zh-CN" or null' })
  .nullable()
  .meta({ description: 'The language the user reads the service in (`en`, `zh-CN`); null follows the browser (Accept-Language).' })

export const RegisterBody = z.object({
  username: z
    .string()
    .trim()
    .min(3, 'must be 3-32 characters')
    .max(32, 'must be 3-32 characters')
    .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, "_", "." and "-"'),
  email: z.string().trim().max(254).pipe(z.email('must be a valid email address')),
  password: z.string().min(8, 'must be 8-128 characters').max(128, 'must be 8-128 characters'),
  displayName: plainText({ min: 1, max: 64 }).optional(),
  role: RoleSchema.optional(),
  locale: LocaleSchema.optional(),
})
export type RegisterBody = z.infer<typeof RegisterBody>

export const LoginBody = z.object({
  identifier: z.string().trim().min(1, 'enter your username or email').max(254),
  password: z.string().min(1, 'enter your password').max(128),
})
export type LoginBody = z.infer<typeof LoginBody>

export const User = z
  .object({
    id: Uuid,
    username: z.string(),
    email: z.string(),
    displayName: z.string(),
    role: RoleSchema,
    createdAt: IsoDateTime,
    locale: LocaleSchema,
    emailVerified: z.boolean().meta({ description: 'Whether the user proved they receive mail at `email`; notification e-mails go only to verified addresses.' }),
  })
  .meta({ id: 'User' })

/** The user as `/auth/me` and registration show it to themselves. */
export const Me = User.extend({
  pendingCourseInvitations: z.number().int().meta({
    description:
      'Courses whose class list (roster import) invited this address and that this account joins once its address is verified (0 for verified or teacher accounts). The web app can say "confirm your e-mail address to join N course(s)".',
  }),
}).meta({ id: 'Me' })

export const UpdateMeBody = z
  .object({
    locale: LocaleSchema.optional(),
    displayName: plainText({ min: 1, max: 64 }).optional(),
  })
  .refine((b) => b.locale !== undefined || b.displayName !== undefined, { message: 'send at least one of locale, displayName' })
export type UpdateMeBody = z.infer<typeof UpdateMeBody>

export const LoginResult = z
  .object({
    accessToken: z.string(),
    tokenType: z.literal('Bearer'),
    expiresAt: IsoDateTime,
    user: User,
  })
  .meta({ id: 'LoginResult' })
