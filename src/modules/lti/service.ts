import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTVerifyGetKey } from 'jose'
import type { Sql, TxSql } from '../../db/connect.ts'
import { AppError, notFound } from '../../http/errors.ts'
import { iso } from '../../http/envelope.ts'
import type { CourseAccess, CurrentUser } from '../../http/guards.ts'
import { newId } from '../../lib/ids.ts'
import type { Channel } from '../notifications/channel.ts'
import { notify } from '../notifications/notify.ts'
import * as keys from './keys.ts'
import { ALL_SCOPES, CLAIM, ROLE, SCOPES, type ToolBody } from './model.ts'
import { linkOf, type GradedParams } from '../notifications/types.ts'

/** A launch (lti_message_hint) is good for this long. */
export const LAUNCH_TTL_MS = 10 * 60_000
export const ID_TOKEN_TTL_S = 300
/** The protocol endpoints, under PUBLIC_URL (docs/lti.md). */
export const PATHS = {
  jwks: '/lti/jwks',
  authorize: '/lti/authorize',
  token: '/lti/token',
  lineItems: (courseId: string) => `/lti/ags/courses/${courseId}/line_items`,
  lineItem: (courseId: string, taskId: string) => `/lti/ags/courses/${courseId}/line_items/${taskId}`,
  members: (courseId: string) => `/lti/nrps/courses/${courseId}/memberships`,
  deepLinkingReturn: '/lti/deep-linking/return',
  openidConfiguration: '/lti/openid-configuration',
  register: '/lti/register',
}

export interface ToolRow {
  id: string
  course_id: string | null
  name: string
  client_id: string
  deployment_id: string
  login_url: string
  launch_url: string
  jwks_url: string
  redirect_uris: string[]
  deep_linking_url: string | null
  send_name: boolean
  send_email: boolean
  scopes: string[]
  created_at: Date
}

export const platformOf = (issuer: string) => ({
  issuer,
  authorizationUrl: issuer + PATHS.authorize,
  tokenUrl: issuer + PATHS.token,
  jwksUrl: issuer + PATHS.jwks,
})

export const toTool = (r: ToolRow, issuer: string) => ({
  id: r.id,
  courseId: r.course_id,
  name: r.name,
  clientId: r.client_id,
  deploymentId: r.deployment_id,
  loginUrl: r.login_url,
  launchUrl: r.launch_url,
  jwksUrl: r.jwks_url,
  redirectUris: r.redirect_uris,
  deepLinkingUrl: r.deep_linking_url,
  sendName: r.send_name,
  sendEmail: r.send_email,
  scopes: r.scopes,
  createdAt: iso(r.created_at)!,
  platform: platformOf(issuer),
})

export const toolNotFound = () => notFound('LTI_TOOL_NOT_FOUND', 'This LTI tool is not registered for this course.')

// ----- registration ------------------------------------------------------------------------------

/** Registers a tool for one course (`courseId`) or, by the operator, for every course (null). */
export async function registerTool(sql: Sql | TxSql, courseId: string | null, createdBy: string | null, body: ToolBody, now: Date) {
  const href = (u: string) => new URL(u).href
  const redirectUris = body.redirectUris?.map(href) ?? [href(body.launchUrl), ...(body.deepLinkingUrl ? [href(body.deepLinkingUrl)] : [])]
  const [row] = await sql<ToolRow[]>`
    insert into lti_tools (id, course_id, name, client_id, deployment_id, login_url, launch_url, jwks_url, redirect_uris,
                           deep_linking_url, send_name, send_email, scopes, created_by, created_at)
    values (${newId()}, ${courseId}, ${body.name}, ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${href(body.loginUrl)},
            ${href(body.launchUrl)}, ${href(body.jwksUrl)}, ${[...new Set(redirectUris)]}, ${body.deepLinkingUrl ? href(body.deepLinkingUrl) : null},
            ${body.sendName}, ${body.sendEmail}, ${body.scopes ? [...new Set(body.scopes)] : ALL_SCOPES}, ${createdBy}, ${now})
    returning *`
  return row!
}

export async function listTools(sql: Sql, courseId: string) {
  return sql<ToolRow[]>`select * from lti_tools where course_id = ${courseId} or course_id is null order by created_at, id`
}

export async function removeTool(sql: Sql, courseId: string, toolId: string) {
  const [row] = await sql<{ course_id: string | null }[]>`
    select course_id from lti_tools where id = ${toolId} and (course_id = ${courseId} or course_id is null)`
  if (!row) throw toolNotFound()
  if (row.course_id === null) throw new AppError('LTI_TOOL_OPERATOR', 'This tool was registered by the operator for every course; only the operator can remove it.')
  await sql`delete from lti_tools where id = ${toolId} and course_id = ${courseId}`
}

/** A tool usable in this course: its own, or an operator-wide one. */
async function courseTool(sql: Sql | TxSql, courseId: string, toolId: string) {
  const [row] = await sql<ToolRow[]>`select * from lti_tools where id = ${toolId} and (course_id = ${courseId} or course_id is null)`
  return row ?? null
}

// ----- launch --------------------------------------------------------------------------------------

/**
 * A member opens an LTI task: a launch row (the lti_message_hint, single use, this member
 * only) and the URL of the tool's login initiation (third-party-initiated login).
 */
export async function startLaunch(sql: Sql, course: CourseAccess, user: CurrentUser, taskId: string, issuer: string, now: Date) {
  const [task] = await sql<{ id: string; task_type: string; publish_state: string; lti_tool_id: string | null; lti_target_link_uri: string | null }[]>`
    select id, task_type, publish_state, lti_tool_id, lti_target_link_uri from learning_tasks where id = ${taskId} and course_id = ${course.id}`
  if (!task || (course.as === 'STUDENT' && task.publish_state !== 'PUBLISHED')) throw notFound('TASK_NOT_FOUND', 'This learning task does not exist in this course.')
  if (task.task_type !== 'LTI') throw new AppError('LTI_NOT_LTI_TASK', 'This task is not an LTI task; there is no tool to launch.')
  const tool = task.lti_tool_id ? await courseTool(sql, course.id, task.lti_tool_id) : null
  if (!tool) throw toolNotFound()
  const id = newId()
  await sql`insert into lti_launches (id, tool_id, course_id, task_id, user_id, message_type, created_at, expires_at)
            values (${id}, ${tool.id}, ${course.id}, ${task.id}, ${user.id}, 'LtiResourceLinkRequest', ${now}, ${new Date(now.getTime() + LAUNCH_TTL_MS)})`
  const url = new URL(tool.login_url)
  const params = {
    iss: issuer,
    login_hint: user.id,
    target_link_uri: task.lti_target_link_uri ?? tool.launch_url,
    lti_message_hint: id,
    client_id: tool.client_id,
    lti_deployment_id: tool.deployment_id,
  }
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.href
}

/**
 * A teacher opens a tool's picker for a knowledge point (Deep Linking 2.0): a launch of message
 * type LtiDeepLinkingRequest, bound to the point, and the tool's login initiation URL.
 */
export async function startDeepLinking(sql: Sql, courseId: string, user: CurrentUser, pointId: string, toolId: string, issuer: string, now: Date) {
  const [point] = await sql`select 1 from knowledge_points where id = ${pointId} and course_id = ${courseId}`
  if (!point) throw notFound('POINT_NOT_FOUND', 'This knowledge point does not exist in this course.')
  const tool = await courseTool(sql, courseId, toolId)
  if (!tool) throw toolNotFound()
  const id = newId()
  await sql`insert into lti_launches (id, tool_id, course_id, point_id, user_id, message_type, created_at, expires_at)
            values (${id}, ${tool.id}, ${courseId}, ${pointId}, ${user.id}, 'LtiDeepLinkingRequest', ${now}, ${new Date(now.getTime() + LAUNCH_TTL_MS)})`
  const url = new URL(tool.login_url)
  const params = {
    iss: issuer,
    login_hint: user.id,
    target_link_uri: tool.deep_linking_url ?? tool.launch_url,
    lti_message_hint: id,
    client_id: tool.client_id,
    lti_deployment_id: tool.deployment_id,
  }
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.href
}

/**
 * A redirect URI the tool registered: the same URL, or the same one but for its query (tools such
 * as ltijs send the target link, query and all, as the redirect URI).
 */
function registeredRedirect(tool: ToolRow, uri: string) {
  const bare = (u: string) => {
    try {
      const x = new URL(u)
      return x.protocol === 'http:' || x.protocol === 'https:' ? x.origin + x.pathname : null
    } catch {
      return null
    }
  }
  const b = bare(uri)
  return b !== null && tool.redirect_uris.some((r) => r === uri || bare(r) === b)
}

const refuse = (message: string) => new AppError('LTI_REQUEST_INVALID', message)

export interface AuthorizationRequest {
  scope?: string
  response_type?: string
  response_mode?: string
  client_id?: string
  redirect_uri?: string
  login_hint?: string
  lti_message_hint?: string
  nonce?: string
  state?: string
  prompt?: string
}

/**
 * The OIDC authorization endpoint (implicit flow, form_post): only for the signed-in member the
 * hint names, only for a launch not yet spent, only to a registered redirect URI, and a nonce the
 * tool never used before. Answers the ID token and where to post it.
 */
export async function authorize(sql: Sql, user: CurrentUser, req: AuthorizationRequest, issuer: string, now: Date) {
  for (const k of ['client_id', 'redirect_uri', 'login_hint', 'lti_message_hint', 'nonce', 'state'] as const) {
    if (!req[k] || req[k]!.length > 2000) throw refuse(`The authorization request lacks ${k}.`)
  }
  if (!req.scope?.split(' ').includes('openid')) throw refuse('The scope must include openid.')
  if (req.response_type !== 'id_token') throw refuse('response_type must be id_token.')
  if (req.response_mode !== 'form_post') throw refuse('response_mode must be form_post.')
  const [tool] = await sql<ToolRow[]>`select * from lti_tools where client_id = ${req.client_id!}`
  if (!tool) throw refuse('Unknown client_id.')
  if (!registeredRedirect(tool, req.redirect_uri!)) throw refuse('redirect_uri is not one the tool registered.')
  if (req.login_hint !== user.id) throw new AppError('LTI_WRONG_MEMBER', 'This launch was started by another member; sign in as that member or open the task again.')
  if (!/^[0-9a-f-]{36}$/i.test(req.lti_message_hint!)) throw refuse('Unknown or spent launch.')
  let launch: { id: string; course_id: string; task_id: string | null; message_type: string } | undefined
  try {
    ;[launch] = await sql<{ id: string; course_id: string; task_id: string | null; message_type: string }[]>`
      update lti_launches set used_at = ${now}, nonce = ${req.nonce!}
       where id = ${req.lti_message_hint!} and tool_id = ${tool.id} and user_id = ${user.id}
         and used_at is null and expires_at > ${now}
      returning id, course_id, task_id, message_type`
  } catch (e) {
    if ((e as { code?: string }).code === '23505') throw refuse('This nonce was used before.')
    throw e
  }
  if (!launch) throw refuse('Unknown or spent launch.')
  const claims = await launchClaims(sql, tool, launch, user, issuer)
  const idToken = await keys.sign(sql, { ...claims, iss: issuer, aud: tool.client_id, azp: tool.client_id, sub: user.id, nonce: req.nonce! }, now, ID_TOKEN_TTL_S)
  return { redirectUri: req.redirect_uri!, idToken, state: req.state! }
}

async function launchClaims(
  sql: Sql,
  tool: ToolRow,
  launch: { id: string; course_id: string; task_id: string | null; message_type: string },
  user: CurrentUser,
  issuer: string,
) {
  const deepLinking = launch.message_type === 'LtiDeepLinkingRequest'
  const [ctx] = await sql<{ title: string; teaches: boolean; email: string | null; display_name: string; task_title: string | null; target: string | null; custom: Record<string, string> | null }[]>`
    select c.title,
           (c.teacher_id = ${user.id} or exists (select 1 from course_teachers ct where ct.course_id = c.id and ct.user_id = ${user.id})) as teaches,
           u.email, u.display_name, t.title as task_title, t.lti_target_link_uri as target, t.lti_custom as custom
      from courses c join users u on u.id = ${user.id}
      left join learning_tasks t on t.id = ${launch.task_id}
     where c.id = ${launch.course_id}`
  if (!ctx) throw notFound('COURSE_NOT_FOUND', 'This course does not exist.')
  const scopes = tool.scopes
  const ags = scopes.filter((s) => s.includes('/lti-ags/'))
  return {
    ...(tool.send_name ? { name: ctx.display_name } : {}),
    ...(tool.send_email && ctx.email ? { email: ctx.email } : {}),
    [`${CLAIM}message_type`]: launch.message_type,
    [`${CLAIM}version`]: '1.3.0',
    [`${CLAIM}deployment_id`]: tool.deployment_id,
    [`${CLAIM}target_link_uri`]: deepLinking ? (tool.deep_linking_url ?? tool.launch_url) : (ctx.target ?? tool.launch_url),
    ...(deepLinking
      ? {
          'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings': {
            deep_link_return_url: issuer + PATHS.deepLinkingReturn,
            accept_types: ['ltiResourceLink'],
            accept_presentation_document_targets: ['window', 'iframe'],
            accept_multiple: true,
            auto_create: true,
            data: launch.id,
          },
        }
      : {}),
    ...(launch.task_id ? { [`${CLAIM}resource_link`]: { id: launch.task_id, title: ctx.task_title } } : {}),
    [`${CLAIM}context`]: { id: launch.course_id, label: ctx.title.slice(0, 50), title: ctx.title, type: ['http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering'] },
    [`${CLAIM}roles`]: [ctx.teaches ? ROLE.Instructor : ROLE.Learner],
    [`${CLAIM}tool_platform`]: { guid: issuer, name: 'course-learning-service', product_family_code: 'course-learning-service' },
    [`${CLAIM}launch_presentation`]: { document_target: 'window', return_url: `${issuer}/courses/${launch.course_id}` },
    [`${CLAIM}custom`]: ctx.custom ?? {},
    ...(ags.length
      ? {
          'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint': {
            scope: ags,
            lineitems: issuer + PATHS.lineItems(launch.course_id),
            ...(launch.task_id ? { lineitem: issuer + PATHS.lineItem(launch.course_id, launch.task_id) } : {}),
          },
        }
      : {}),
    ...(scopes.includes(SCOPES.members)
      ? { 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice': { context_memberships_url: issuer + PATHS.members(launch.course_id), service_versions: ['2.0'] } }
      : {}),
  }
}

// ----- token endpoint (client credentials with a signed JWT assertion) ------------------------------

/** An OAuth 2 error answer (RFC 6749 §5.2), not the envelope: tools read these. */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
  ) {
    super(description)
  }
}

const remoteSets = new Map<string, JWTVerifyGetKey>()
const toolKeys = (url: string) => {
  let s = remoteSets.get(url)
  if (!s) remoteSets.set(url, (s = createRemoteJWKSet(new URL(url), { timeoutDuration: 5000 })))
  return s
}

export async function issueToken(sql: Sql, form: URLSearchParams, issuer: string, now: Date) {
  if (form.get('grant_type') !== 'client_credentials') throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials')
  if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer') {
    throw new OAuthError(400, 'invalid_request', 'client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
  }
  const assertion = form.get('client_assertion') ?? ''
  let clientId: string | undefined
  try {
    const claims = decodeJwt(assertion)
    clientId = typeof claims.sub === 'string' ? claims.sub : undefined
  } catch {
    throw new OAuthError(401, 'invalid_client', 'client_assertion is not a JWT')
  }
  const [tool] = clientId ? await sql<ToolRow[]>`select * from lti_tools where client_id = ${clientId}` : []
  if (!tool) throw new OAuthError(401, 'invalid_client', 'unknown client')
  let payload
  try {
    ;({ payload } = await jwtVerify(assertion, toolKeys(tool.jwks_url), {
      algorithms: ['RS256'],
      issuer: tool.client_id,
      subject: tool.client_id,
      audience: [issuer + PATHS.token, issuer],
      currentDate: now,
      requiredClaims: ['exp', 'jti'],
    }))
  } catch (e) {
    throw new OAuthError(401, 'invalid_client', `client_assertion refused: ${(e as Error).message}`.slice(0, 300))
  }
  const exp = new Date(payload.exp! * 1000)
  if (exp.getTime() - now.getTime() > keys.TOKEN_TTL_S * 1000) throw new OAuthError(401, 'invalid_client', 'client_assertion lives too long (at most an hour)')
  const [fresh] = await sql`insert into lti_assertions (tool_id, jti, expires_at) values (${tool.id}, ${String(payload.jti)}, ${exp})
                             on conflict do nothing returning 1`
  if (!fresh) throw new OAuthError(401, 'invalid_client', 'client_assertion was used before')
  await sql`delete from lti_assertions where expires_at < ${now}`
  const asked = (form.get('scope') ?? '').split(' ').filter(Boolean)
  if (!asked.length) throw new OAuthError(400, 'invalid_scope', 'scope is required')
  const refused = asked.filter((s) => !tool.scopes.includes(s))
  if (refused.length) throw new OAuthError(400, 'invalid_scope', `not granted to this tool: ${refused.join(' ')}`)
  const scope = [...new Set(asked)].join(' ')
  const accessToken = await keys.sign(sql, { iss: issuer, aud: issuer + PATHS.token, sub: tool.client_id, tool: tool.id, scope }, now, keys.TOKEN_TTL_S)
  return { access_token: accessToken, token_type: 'Bearer', expires_in: keys.TOKEN_TTL_S, scope }
}

/**
 * A service call's bearer token → the tool, when it holds `scope` (any of them) and may use this
 * course. 401 for a missing, forged, expired or foreign token; 403 without the scope or for a
 * course the tool is not registered in.
 */
export async function serviceCaller(sql: Sql, authorization: string | null, courseId: string, anyOf: string[], issuer: string, now: Date) {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')
  if (!m) throw new OAuthError(401, 'invalid_token', 'a Bearer access token from the token endpoint is required')
  let payload
  try {
    payload = await keys.verifyOwn(sql, m[1]!, now, { issuer, audience: issuer + PATHS.token })
  } catch {
    throw new OAuthError(401, 'invalid_token', 'the access token is invalid or expired')
  }
  const granted = String(payload.scope ?? '').split(' ')
  if (!anyOf.some((s) => granted.includes(s))) throw new OAuthError(403, 'insufficient_scope', `needs one of: ${anyOf.join(' ')}`)
  const [tool] = await sql<ToolRow[]>`select * from lti_tools where id = ${String(payload.tool)} and client_id = ${String(payload.sub)}`
  if (!tool) throw new OAuthError(401, 'invalid_token', 'the tool of this token was removed')
  if (!/^[0-9a-f-]{36}$/i.test(courseId)) throw new OAuthError(404, 'not_found', 'no such course')
  if (tool.course_id !== null && tool.course_id !== courseId) throw new OAuthError(403, 'forbidden', 'this tool is not registered in this course')
  const [course] = await sql<{ id: string; title: string }[]>`select id, title from courses where id = ${courseId}`
  if (!course) throw new OAuthError(404, 'not_found', 'no such course')
  return { tool, course }
}

// ----- Assignment and Grade Services -------------------------------------------------------------

interface LineItemRow {
  id: string
  title: string
  lti_score_maximum: string
  start_at: Date | null
  due_at: Date | null
}

const lineItemOf = (r: LineItemRow, courseId: string, issuer: string) => ({
  id: issuer + PATHS.lineItem(courseId, r.id),
  label: r.title,
  scoreMaximum: Number(r.lti_score_maximum),
  resourceLinkId: r.id,
  ...(r.start_at ? { startDateTime: r.start_at.toISOString() } : {}),
  ...(r.due_at ? { endDateTime: r.due_at.toISOString() } : {}),
})

export async function lineItems(sql: Sql, tool: ToolRow, courseId: string, issuer: string, filter: { resourceLinkId?: string | null }) {
  const rows = await sql<LineItemRow[]>`
    select id, title, lti_score_maximum, start_at, due_at from learning_tasks
     where course_id = ${courseId} and task_type = 'LTI' and lti_tool_id = ${tool.id}
     order by created_at, id`
  return rows.filter((r) => !filter.resourceLinkId || r.id === filter.resourceLinkId).map((r) => lineItemOf(r, courseId, issuer))
}

async function lineItemRow(sql: Sql | TxSql, tool: ToolRow, courseId: string, taskId: string) {
  if (!/^[0-9a-f-]{36}$/i.test(taskId)) throw new OAuthError(404, 'not_found', 'no such line item')
  const [row] = await sql<(LineItemRow & { lti_tool_id: string; grade_release: 'AUTOMATIC' | 'MANUAL' })[]>`
    select id, title, lti_score_maximum, start_at, due_at, lti_tool_id, grade_release from learning_tasks
     where id = ${taskId} and course_id = ${courseId} and task_type = 'LTI' and lti_tool_id = ${tool.id}`
  if (!row) throw new OAuthError(404, 'not_found', 'no such line item of this tool')
  return row
}

export async function lineItem(sql: Sql, tool: ToolRow, courseId: string, taskId: string, issuer: string) {
  return lineItemOf(await lineItemRow(sql, tool, courseId, taskId), courseId, issuer)
}

export interface ScoreBody {
  userId: string
  scoreGiven?: number
  scoreMaximum?: number
  comment?: string
  timestamp: string
  activityProgress: string
  gradingProgress: string
}

const ACTIVITY = ['Initialized', 'Started', 'InProgress', 'Submitted', 'Completed']
const GRADING = ['FullyGraded', 'Pending', 'PendingManual', 'Failed', 'NotReady']

export function parseScore(raw: unknown): ScoreBody {
  const b = raw as Partial<ScoreBody> | null
  const bad = (m: string) => new OAuthError(400, 'invalid_request', m)
  if (!b || typeof b !== 'object') throw bad('the body must be a score (application/vnd.ims.lis.v1.score+json)')
  if (typeof b.userId !== 'string' || !b.userId) throw bad('userId is required')
  if (typeof b.timestamp !== 'string' || Number.isNaN(Date.parse(b.timestamp))) throw bad('timestamp must be an ISO 8601 date-time')
  if (!ACTIVITY.includes(b.activityProgress as string)) throw bad(`activityProgress must be one of ${ACTIVITY.join(', ')}`)
  if (!GRADING.includes(b.gradingProgress as string)) throw bad(`gradingProgress must be one of ${GRADING.join(', ')}`)
  if (b.scoreGiven !== undefined && (typeof b.scoreGiven !== 'number' || !Number.isFinite(b.scoreGiven) || b.scoreGiven < 0)) throw bad('scoreGiven must be a number of 0 or more')
  if (b.scoreGiven !== undefined && (typeof b.scoreMaximum !== 'number' || !Number.isFinite(b.scoreMaximum) || b.scoreMaximum <= 0)) throw bad('scoreMaximum (above 0) is required with scoreGiven')
  if (b.comment !== undefined && (typeof b.comment !== 'string' || b.comment.length > 10_000)) throw bad('comment must be text of at most 10000 characters')
  return b as ScoreBody
}

/**
 * A score from the tool → the student's answer sheet for the task, the way any grade is: a new
 * sheet (the newest counts), GRADED with score = scoreGiven / scoreMaximum × 100 when the tool
 * says FullyGraded, else SUBMITTED without a score once the student submitted or completed the
 * activity. The database's triggers carry it to the gradebook and the totals; the student is
 * notified of a grade as for a teacher's.
 */
export async function postScore(sql: Sql, tool: ToolRow, courseId: string, taskId: string, score: ScoreBody, now: Date, channels: readonly Channel[]) {
  return sql.begin(async (tx) => {
    const task = await lineItemRow(tx, tool, courseId, taskId)
    // An archived course is read-only (40908 in the API): no score lands in it.
    const [archived] = await tx`select 1 from courses where id = ${courseId} and archived`
    if (archived) throw new OAuthError(409, 'invalid_request', 'the course is archived and read-only')
    const [member] = /^[0-9a-f-]{36}$/i.test(score.userId)
      ? await tx`select 1 from course_members where course_id = ${courseId} and user_id = ${score.userId}`
      : []
    if (!member) throw new OAuthError(400, 'invalid_request', 'userId is not a student of this course')
    const graded = score.gradingProgress === 'FullyGraded' && score.scoreGiven !== undefined
    if (!graded && !['Submitted', 'Completed'].includes(score.activityProgress)) return false
    const value = graded ? Math.round(Math.min(100, (score.scoreGiven! / score.scoreMaximum!) * 100) * 100) / 100 : null
    const late = task.due_at !== null && now > task.due_at
    // A MANUAL task holds the tool's score like a teacher's grade until the release (issue 54):
    // the sheet stays SUBMITTED for the student, the score waits in held_*, nobody is notified.
    const held = graded && task.grade_release === 'MANUAL'
    const shown = graded && !held
    await tx`
      insert into learning_submissions (id, task_id, course_id, student_id, content, answers, auto_score, score, feedback,
                                        status, late, submitted_at, graded_at, held_score, held_feedback, held_at)
      values (${newId()}, ${taskId}, ${courseId}, ${score.userId}, '', null, null, ${shown ? value : null},
              ${shown ? (score.comment ?? null) : null}, ${shown ? 'GRADED' : 'SUBMITTED'}, ${late}, ${now}, ${shown ? now : null},
              ${held ? value : null}, ${held ? (score.comment ?? null) : null}, ${held ? now : null})`
    if (shown) {
      const params: GradedParams = { kind: 'SUBMISSION_GRADED', subject: 'TASK', courseId, courseTitle: null, title: task.title, score: value! }
      await notify(tx, [score.userId], { actionPath: linkOf(params, { itemId: taskId }), params }, { now, channels })
    }
    return true
  })
}

/** The newest scored sheet of each student: AGS results, in the line item's scale. */
export async function results(sql: Sql, tool: ToolRow, courseId: string, taskId: string, issuer: string, userId: string | null) {
  const task = await lineItemRow(sql, tool, courseId, taskId)
  const max = Number(task.lti_score_maximum)
  const rows = await sql<{ id: string; student_id: string; score: string | null; feedback: string | null }[]>`
    select distinct on (student_id) id, student_id, score, feedback
      from learning_submissions
     where task_id = ${taskId} ${userId && /^[0-9a-f-]{36}$/i.test(userId) ? sql`and student_id = ${userId}` : userId ? sql`and false` : sql``}
     order by student_id, submitted_at desc, id desc`
  const item = issuer + PATHS.lineItem(courseId, taskId)
  return rows.map((r) => ({
    id: `${item}/results/${r.id}`,
    scoreOf: item,
    userId: r.student_id,
    ...(r.score === null ? {} : { resultScore: (Number(r.score) / 100) * max, resultMaximum: max }),
    ...(r.feedback ? { comment: r.feedback } : {}),
  }))
}

// ----- Names and Role Provisioning Services --------------------------------------------------------

/** The course's teachers and students with their LTI roles, `limit` a page, in a stable order. */
export async function members(sql: Sql, tool: ToolRow, course: { id: string; title: string }, issuer: string, limit: number, after: string | null) {
  const rows = await sql<{ id: string; display_name: string; email: string | null; instructor: boolean }[]>`
    select * from (
      select u.id, u.display_name, u.email, true as instructor
        from courses c join users u on u.id = c.teacher_id where c.id = ${course.id}
      union
      select u.id, u.display_name, u.email, true from course_teachers ct join users u on u.id = ct.user_id where ct.course_id = ${course.id}
      union
      select u.id, u.display_name, u.email, false from course_members m join users u on u.id = m.user_id where m.course_id = ${course.id}
    ) x
    where ${after ? sql`x.id > ${after}` : sql`true`}
    order by x.id
    limit ${limit + 1}`
  const page = rows.slice(0, limit)
  const url = issuer + PATHS.members(course.id)
  return {
    body: {
      id: url,
      context: { id: course.id, label: course.title.slice(0, 50), title: course.title },
      members: page.map((r) => ({
        status: 'Active',
        user_id: r.id,
        roles: [r.instructor ? ROLE.Instructor : ROLE.Learner],
        ...(tool.send_name ? { name: r.display_name } : {}),
        ...(tool.send_email && r.email ? { email: r.email } : {}),
      })),
    },
    next: rows.length > limit ? `${url}?limit=${limit}&after=${page[page.length - 1]!.id}` : null,
  }
}

// ----- Deep Linking 2.0: the tool's response ------------------------------------------------------

const DL = 'https://purl.imsglobal.org/spec/lti-dl/claim/'

export class DeepLinkingRefused extends Error {}

/**
 * The LtiDeepLinkingResponse the tool's picker posts (form field `JWT`, no cookie: the post is
 * cross-site). Its `data` names the deep linking launch (spent by the authorization request, not
 * returned yet, within its time); the JWT must be signed by that launch's tool (its JWKS), for
 * the platform (aud), with the launch's deployment and a fresh `exp`. Each `ltiResourceLink`
 * becomes an LTI task of the launch's knowledge point, made as the teacher who opened the picker
 * would make it (`create`, the learning module's own createTask), its line item maximum from
 * `lineItem.scoreMaximum`. Returns the course and the tasks made.
 */
export async function deepLinkingReturn(
  sql: Sql,
  jwt: string,
  issuer: string,
  now: Date,
  create: (courseId: string, pointId: string, body: unknown) => Promise<{ id: string }>,
) {
  let data: unknown
  try {
    data = decodeJwt(jwt)[`${DL}data`]
  } catch {
    throw new DeepLinkingRefused('the response is not a JWT')
  }
  if (typeof data !== 'string' || !/^[0-9a-f-]{36}$/i.test(data)) throw new DeepLinkingRefused('the response names no deep linking request')
  const [launch] = await sql<{ id: string; course_id: string; point_id: string; tool_id: string }[]>`
    select id, course_id, point_id, tool_id from lti_launches
     where id = ${data} and message_type = 'LtiDeepLinkingRequest' and used_at is not null and returned_at is null
       and expires_at + interval '1 hour' > ${now}`
  if (!launch) throw new DeepLinkingRefused('unknown, expired or already answered deep linking request')
  const [tool] = await sql<ToolRow[]>`select * from lti_tools where id = ${launch.tool_id}`
  if (!tool) throw new DeepLinkingRefused('the tool was removed')
  let payload
  try {
    ;({ payload } = await jwtVerify(jwt, toolKeys(tool.jwks_url), { algorithms: ['RS256'], issuer: tool.client_id, audience: issuer, currentDate: now, requiredClaims: ['exp'] }))
  } catch (e) {
    throw new DeepLinkingRefused(`the response's signature or claims were refused: ${(e as Error).message}`.slice(0, 300))
  }
  if (payload[`${CLAIM}message_type`] !== 'LtiDeepLinkingResponse') throw new DeepLinkingRefused('not an LtiDeepLinkingResponse')
  if (payload[`${CLAIM}deployment_id`] !== tool.deployment_id) throw new DeepLinkingRefused('another deployment')
  const [spent] = await sql`update lti_launches set returned_at = ${now} where id = ${launch.id} and returned_at is null returning 1`
  if (!spent) throw new DeepLinkingRefused('already answered')
  const items = Array.isArray(payload[`${DL}content_items`]) ? (payload[`${DL}content_items`] as Record<string, any>[]) : []
  const made: { id: string }[] = []
  for (const item of items.slice(0, 50)) {
    if (item?.type !== 'ltiResourceLink') continue
    const custom = item.custom && typeof item.custom === 'object' ? Object.fromEntries(Object.entries(item.custom).map(([k, v]) => [k, String(v)])) : {}
    const task = await create(launch.course_id, launch.point_id, {
      title: typeof item.title === 'string' && item.title.trim() ? item.title.trim().slice(0, 200) : tool.name,
      taskType: 'LTI',
      lti: { toolId: tool.id, targetLinkUri: typeof item.url === 'string' ? item.url : null, custom },
    })
    const max = Number(item.lineItem?.scoreMaximum)
    if (Number.isFinite(max) && max > 0) await sql`update learning_tasks set lti_score_maximum = ${max} where id = ${task.id}`
    made.push(task)
  }
  return { courseId: launch.course_id, tasks: made }
}

// ----- LTI Dynamic Registration ------------------------------------------------------------------

export const REGISTRATION_TTL_MS = 3600_000
const sha256 = (s: string) => new Bun.CryptoHasher('sha256').update(s).digest('hex')

/** A teacher starts a dynamic registration: a registration token (once, an hour) and the tool's URL to open. */
export async function startRegistration(sql: Sql, courseId: string, user: CurrentUser, registrationUrl: string, issuer: string, now: Date) {
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
  await sql`insert into lti_registrations (id, course_id, created_by, token_hash, created_at, expires_at)
            values (${newId()}, ${courseId}, ${user.id}, ${sha256(token)}, ${now}, ${new Date(now.getTime() + REGISTRATION_TTL_MS)})`
  const url = new URL(registrationUrl)
  url.searchParams.set('openid_configuration', issuer + PATHS.openidConfiguration)
  url.searchParams.set('registration_token', token)
  return { openUrl: url.href }
}

/** The platform's OpenID configuration (LTI Dynamic Registration §3.4). */
export const openidConfiguration = (issuer: string) => ({
  issuer,
  authorization_endpoint: issuer + PATHS.authorize,
  token_endpoint: issuer + PATHS.token,
  token_endpoint_auth_methods_supported: ['private_key_jwt'],
  token_endpoint_auth_signing_alg_values_supported: ['RS256'],
  jwks_uri: issuer + PATHS.jwks,
  registration_endpoint: issuer + PATHS.register,
  scopes_supported: ['openid', ...ALL_SCOPES],
  response_types_supported: ['id_token'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256'],
  claims_supported: ['iss', 'aud', 'sub', 'iat', 'exp', 'nonce', 'name', 'email'],
  'https://purl.imsglobal.org/spec/lti-platform-configuration': {
    product_family_code: 'course-learning-service',
    version: '1',
    messages_supported: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest' }],
    variables: [],
  },
})

/**
 * The tool's registration request (bearer: the registration token) → a tool of the token's
 * course, validated like one registered by hand; the answer echoes it with `client_id` and the
 * deployment id. The token is spent by the same statement that checks it.
 */
export async function registerDynamically(sql: Sql, authorization: string | null, body: unknown, issuer: string, now: Date, parse: (b: unknown) => ToolBody) {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')
  if (!m) throw new OAuthError(401, 'invalid_token', 'the registration token is required (Bearer)')
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, any>
  const conf = (b['https://purl.imsglobal.org/spec/lti-tool-configuration'] ?? {}) as Record<string, any>
  const messages: Record<string, any>[] = Array.isArray(conf.messages) ? conf.messages : []
  const claims: string[] = Array.isArray(conf.claims) ? conf.claims : []
  const asked = typeof b.scope === 'string' ? b.scope.split(' ') : []
  const dl = messages.find((x) => x?.type === 'LtiDeepLinkingRequest')
  let tool: ToolBody
  try {
    tool = parse({
      name: typeof b.client_name === 'string' && b.client_name.trim() ? b.client_name.trim().slice(0, 200) : 'LTI tool',
      loginUrl: b.initiate_login_uri,
      launchUrl: conf.target_link_uri,
      jwksUrl: b.jwks_uri,
      redirectUris: Array.isArray(b.redirect_uris) && b.redirect_uris.length ? b.redirect_uris : undefined,
      ...(dl ? { deepLinkingUrl: typeof dl.target_link_uri === 'string' ? dl.target_link_uri : conf.target_link_uri } : {}),
      sendName: claims.includes('name'),
      sendEmail: claims.includes('email'),
      scopes: ALL_SCOPES.filter((s) => asked.includes(s)),
    })
  } catch (e) {
    throw new OAuthError(400, 'invalid_client_metadata', (e as Error).message.slice(0, 500))
  }
  return sql.begin(async (tx) => {
    const [reg] = await tx<{ id: string; course_id: string; created_by: string | null }[]>`
      update lti_registrations set used_at = ${now}
       where token_hash = ${sha256(m[1]!)} and used_at is null and expires_at > ${now}
      returning id, course_id, created_by`
    if (!reg) throw new OAuthError(401, 'invalid_token', 'unknown, expired or used registration token')
    const row = await registerTool(tx, reg.course_id, reg.created_by, tool, now)
    await tx`update lti_registrations set tool_id = ${row.id} where id = ${reg.id}`
    return {
      client_id: row.client_id,
      application_type: 'web',
      response_types: ['id_token'],
      grant_types: ['implicit', 'client_credentials'],
      initiate_login_uri: row.login_url,
      redirect_uris: row.redirect_uris,
      client_name: row.name,
      jwks_uri: row.jwks_url,
      token_endpoint_auth_method: 'private_key_jwt',
      scope: row.scopes.join(' '),
      'https://purl.imsglobal.org/spec/lti-tool-configuration': { ...conf, deployment_id: row.deployment_id },
    }
  })
}

/** Whether the course is archived (read-only): a picker would create tasks in it. */
export async function isArchived(sql: Sql, courseId: string) {
  const [row] = await sql`select 1 from courses where id = ${courseId} and archived`
  return Boolean(row)
}
