import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'

const password = z.string().min(8, 'must be 8-128 characters').max(128, 'must be 8-128 characters')
// Any string up to a bound: a token of the wrong shape is an invalid link (40002), not a validation error.
const token = z.string().max(512)

export const TokenBody = z.object({ token })
export type TokenBody = z.infer<typeof TokenBody>

// Checked here, not after the answer: the account is looked up in the background, where a NUL
// (which PostgreSQL cannot take in text) was an error in the log behind a 202.
export const ForgotBody = z.object({
  identifier: z
    .string()
    .trim()
    .min(1, 'enter your username or email')
    .max(254)
    .refine((s) => !/[\u0000-\u001F\u007F]/.test(s), 'must not contain control characters'),
})
export type ForgotBody = z.infer<typeof ForgotBody>

export const ResetBody = z.object({ token, newPassword: password })
export type ResetBody = z.infer<typeof ResetBody>

export const ChangePasswordBody = z.object({
  currentPassword: z.string().min(1, 'enter your password').max(128),
  newPassword: password,
})
export type ChangePasswordBody = z.infer<typeof ChangePasswordBody>

export const ChangeEmailBody = z.object({
  newEmail: z.string().trim().max(254).pipe(z.email('must be a valid email address')),
  currentPassword: z.string().min(1, 'enter your password').max(128),
})
export type ChangeEmailBody = z.infer<typeof ChangeEmailBody>

export const SessionParams = z.object({ sessionId: Uuid })

export const SessionItem = z
  .object({
    id: Uuid,
    createdAt: IsoDateTime,
    lastUsedAt: IsoDateTime.meta({ description: 'Recorded at most once a minute, so it may lag by up to a minute.' }),
    userAgent: z.string().nullable(),
    address: z.string().nullable().meta({ description: 'The client address the session was created from.' }),
    current: z.boolean().meta({ description: 'The session this request came with.' }),
  })
  .meta({ id: 'Session' })
