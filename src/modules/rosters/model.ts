import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { pageOf } from '../../http/pagination.ts'

/** The largest roster one import takes (rows of the list or CSV, header not counted). */
export const ROSTER_MAX_ROWS = 5000

export const AddTeacherBody = z.object({
  identifier: z.string().trim().min(1, 'enter a username or e-mail').max(254, 'must be at most 254 characters'),
})
export type AddTeacherBody = z.infer<typeof AddTeacherBody>

/** The JSON form of a roster; CSV bodies are parsed into the same list of values. */
export const RosterJson = z.object({
  emails: z
    .array(z.string().max(320, 'must be at most 320 characters'))
    .min(1, 'send at least one address')
    .max(ROSTER_MAX_ROWS, `at most ${ROSTER_MAX_ROWS} rows`),
})

export const InvalidReason = z.enum(['MALFORMED', 'DUPLICATE', 'TEACHER_ACCOUNT'])
export type InvalidReason = z.infer<typeof InvalidReason>

export const RosterReport = z
  .object({
    enrolled: z.number().int().meta({ description: 'Student accounts enrolled by this import.' }),
    alreadyMembers: z.number().int().meta({ description: 'Student accounts that were already in the course.' }),
    invited: z.number().int().meta({
      description:
        'Addresses with a pending invitation (new or from an earlier import): no account yet, or (on a server that sends e-mail) a student account whose address is not verified — it joins when it verifies.',
    }),
    awaitingVerification: z.number().int().meta({ description: 'Of `invited`: student accounts with an unverified address (enrolled once they verify it; not mailed).' }),
    invalid: z.array(
      z.object({
        row: z.number().int().meta({ description: 'JSON: the position in `emails` (1-based). CSV: the line number in the file (the header is line 1).' }),
        value: z.string(),
        reason: InvalidReason.meta({ description: 'MALFORMED address, DUPLICATE of an earlier row, or the address of a TEACHER_ACCOUNT.' }),
      }),
    ),
    mailWaiting: z
      .array(
        z.object({
          row: z.number().int(),
          value: z.string(),
          reason: z.enum(['TEACHER_UNVERIFIED', 'DAILY_LIMIT']).meta({
            description:
              'TEACHER_UNVERIFIED: invitations are mailed once your own address is verified. DAILY_LIMIT: past INVITATION_MAILS_PER_DAY mails in 24 hours; the rest go out on the next day, by themselves.',
          }),
        }),
      )
      .meta({ description: 'Invitations of this list whose mail has not gone out yet (the invitation itself stands). Empty on a server without e-mail.' }),
  })
  .meta({ id: 'RosterReport' })
export type RosterReport = z.infer<typeof RosterReport>

export const Invitation = z
  .object({ id: Uuid, email: z.string(), invitedAt: IsoDateTime })
  .meta({ id: 'RosterInvitation' })
export const InvitationPage = pageOf(Invitation)
