import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { plainText } from '../../http/text.ts'
import { httpUrl } from '../learning/model.ts'

/** The LTI Advantage scopes a tool may be granted (all of them unless the registration narrows them). */
export const SCOPES = {
  lineitem: 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem',
  lineitemRead: 'https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly',
  resultRead: 'https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly',
  score: 'https://purl.imsglobal.org/spec/lti-ags/scope/score',
  members: 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
} as const
export const ALL_SCOPES = Object.values(SCOPES)

export const CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/'
export const ROLE = {
  Instructor: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor',
  Learner: 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner',
} as const

const Url = z
  .string()
  .trim()
  .max(2000, 'must be at most 2000 characters')
  .refine((u) => httpUrl(u) !== null, { message: 'must be an http or https URL' })

export const ToolBody = z.object({
  name: plainText({ min: 1, max: 200 }),
  loginUrl: Url.meta({ description: 'The tool\'s OIDC login initiation URL (third-party-initiated login).' }),
  launchUrl: Url.meta({ description: 'The default target link URI.' }),
  jwksUrl: Url.meta({ description: 'The tool\'s public keys (client assertions of the token endpoint).' }),
  redirectUris: z.array(Url).min(1).max(20, 'at most 20 redirect URIs').optional()
    .meta({ description: 'Where the authorization endpoint may post the ID token; default: launchUrl (and deepLinkingUrl).' }),
  deepLinkingUrl: Url.optional(),
  sendName: z.boolean().default(true).meta({ description: 'Privacy: the member\'s name goes into the launch.' }),
  sendEmail: z.boolean().default(false).meta({ description: 'Privacy: the member\'s e-mail goes into the launch.' }),
  scopes: z.array(z.enum(ALL_SCOPES as [string, ...string[]])).max(10).optional()
    .meta({ description: 'The AGS/NRPS scopes the tool may ask tokens for; default: all five.' }),
})
export type ToolBody = z.infer<typeof ToolBody>

export const Platform = z.object({ issuer: z.string(), authorizationUrl: z.string(), tokenUrl: z.string(), jwksUrl: z.string() })

export const Tool = z
  .object({
    id: Uuid,
    courseId: Uuid.nullable().meta({ description: 'null: registered by the operator for every course.' }),
    name: z.string(),
    clientId: z.string(),
    deploymentId: z.string(),
    loginUrl: z.string(),
    launchUrl: z.string(),
    jwksUrl: z.string(),
    redirectUris: z.array(z.string()),
    deepLinkingUrl: z.string().nullable(),
    sendName: z.boolean(),
    sendEmail: z.boolean(),
    scopes: z.array(z.string()),
    createdAt: IsoDateTime,
    platform: Platform,
  })
  .meta({ id: 'LtiTool' })

export const ToolParams = z.object({ courseId: Uuid, toolId: Uuid })
export const TaskParams = z.object({ courseId: Uuid, taskId: Uuid })

export const RegistrationBody = z.object({
  registrationUrl: Url.meta({ description: 'The tool\'s dynamic registration URL (its "initiate registration" page).' }),
})
export const Registration = z.object({ openUrl: z.string().meta({ description: 'Open in a new window or an iframe: the tool\'s URL with `openid_configuration` and `registration_token`.' }) }).meta({ id: 'LtiRegistration' })
