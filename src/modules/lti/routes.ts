import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Deps } from '../../deps.ts'
import { authPlugin } from '../../http/auth.ts'
import { courseArchived } from '../../http/guards.ts'
import { envelope, ok } from '../../http/envelope.ts'
import { CourseParams, idParams } from '../../http/params.ts'
import { CreateTaskBody } from '../learning/model.ts'
import { createTask } from '../learning/structure-service.ts'
import { fieldErrors, invalid } from '../learning/task-input.ts'
import * as keys from './keys.ts'
import { Registration, RegistrationBody, TaskParams, Tool, ToolBody, ToolParams, SCOPES } from './model.ts'
import * as service from './service.ts'

/** The issuer: PUBLIC_URL, else the origin the request came to. */
export const issuerOf = (deps: Deps, request: Request) => (deps.config.publicUrl ?? new URL(request.url).origin).replace(/\/+$/, '')

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The auto-posting form of response_mode=form_post. */
function formPost(action: string, fields: Record<string, string>) {
  const nonce = crypto.randomUUID().replace(/-/g, '')
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('')
  const html =
    `<!doctype html><html><head><meta charset="utf-8"><title>LTI</title></head><body>` +
    `<form method="post" action="${escapeHtml(action)}">${inputs}<noscript><button type="submit">Continue</button></noscript></form>` +
    `<script nonce="${nonce}">document.forms[0].submit()</script></body></html>`
  return new Response(html, {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; form-action ${new URL(action).origin}; frame-ancestors 'self'`,
    },
  })
}

/** Tools per course and the launch: business routes under /api/v1 (the envelope). */
export function ltiRoutes(deps: Deps) {
  const { sql, clock } = deps
  return new Elysia({ tags: ['LTI'] })
    .use(authPlugin(deps))
    .post(
      '/courses/:courseId/lti/tools',
      async ({ params, body, user, request, set }) => {
        set.status = 201
        const row = await service.registerTool(sql, params.courseId, user.id, body, clock.now())
        return ok(service.toTool(row, issuerOf(deps, request)), 'Tool registered.')
      },
      {
        params: CourseParams,
        course: 'teacher',
        body: ToolBody,
        response: { 201: envelope(Tool) },
        detail: {
          summary: 'Register an LTI 1.3 tool by hand (the course teachers)',
          description:
            'The tool gets a `clientId` and a `deploymentId`; `platform` is what to configure in the tool (issuer = PUBLIC_URL, the authorization, token and key set URLs). ' +
            '`redirectUris` default to the launch URL (and the deep linking URL). The tool may ask tokens for `scopes` (default: the four AGS scopes and NRPS). See docs/lti.md.',
        },
      },
    )
    .get(
      '/courses/:courseId/lti/tools',
      async ({ params, request }) => ok((await service.listTools(sql, params.courseId)).map((r) => service.toTool(r, issuerOf(deps, request)))),
      {
        params: CourseParams,
        course: 'teacher',
        response: { 200: envelope(z.array(Tool)) },
        detail: { summary: 'The LTI tools of a course (the course teachers)', description: 'The course\'s own tools and the operator\'s tools for every course (`courseId: null`), oldest first.' },
      },
    )
    .delete(
      '/courses/:courseId/lti/tools/:toolId',
      async ({ params }) => {
        await service.removeTool(sql, params.courseId, params.toolId)
        return ok(null, 'Tool removed.')
      },
      {
        params: ToolParams,
        course: 'teacher',
        response: { 200: envelope(z.null()) },
        detail: {
          summary: 'Remove an LTI tool of the course (the course teachers)',
          description: 'Its LTI tasks stay (with `lti.toolId: null`, no longer launchable); their scores stay. An operator-wide tool → 403 (40331); unknown → 404 (40430).',
        },
      },
    )
    .post(
      '/courses/:courseId/lti/registrations',
      async ({ params, body, user, request, set }) => {
        set.status = 201
        return ok(await service.startRegistration(sql, params.courseId, user, body.registrationUrl, issuerOf(deps, request), clock.now()), 'Open the tool to finish the registration.')
      },
      {
        params: CourseParams,
        course: 'teacher',
        body: RegistrationBody,
        response: { 201: envelope(Registration) },
        detail: {
          summary: 'Start an LTI Dynamic Registration (the course teachers)',
          description:
            'A registration token (single use, one hour) for this course, and `openUrl`: the tool\'s registration URL with `openid_configuration` (the platform\'s configuration) and `registration_token`. The tool then registers itself at `/lti/register` and becomes a tool of this course.',
        },
      },
    )
    .get(
      '/courses/:courseId/learning/points/:pointId/lti/tools/:toolId/deep-linking',
      async ({ params, user, request, set }) => {
        // Opening a picker means adding tasks: an archived course refuses it like any write.
        if (await service.isArchived(sql, params.courseId)) throw courseArchived()
        const url = await service.startDeepLinking(sql, params.courseId, user, params.pointId, params.toolId, issuerOf(deps, request), clock.now())
        set.status = 302
        set.headers.location = url
        set.headers['cache-control'] = 'no-store'
        return ''
      },
      {
        params: DeepLinkParams,
        course: 'teacher',
        detail: {
          summary: 'Open a tool\'s picker for a knowledge point (Deep Linking 2.0; the course teachers, in the browser)',
          description:
            '302 to the tool\'s login initiation, as a launch, for an LtiDeepLinkingRequest (target: the tool\'s deep linking URL). The tool\'s LtiDeepLinkingResponse, posted to `/lti/deep-linking/return`, creates one LTI task per `ltiResourceLink` in this knowledge point. Unknown point → 404 (40403); unknown tool → 404 (40430).',
          responses: { 302: { description: 'To the tool\'s login initiation URL.' } },
        },
      },
    )
    .get(
      '/courses/:courseId/learning/tasks/:taskId/lti/launch',
      async ({ params, course, user, request, set }) => {
        const url = await service.startLaunch(sql, course, user, params.taskId, issuerOf(deps, request), clock.now())
        set.status = 302
        set.headers.location = url
        set.headers['cache-control'] = 'no-store'
        return ''
      },
      {
        params: TaskParams,
        course: 'member',
        detail: {
          summary: 'Launch the tool of an LTI task (members, in the browser)',
          description:
            'Open in the browser (the session cookie). 302 to the tool\'s OIDC login initiation URL with `iss`, `login_hint`, `target_link_uri`, `lti_message_hint` (a launch of this member, single use, 10 minutes), `client_id` and `lti_deployment_id`. ' +
            'Not an LTI task → 409 (40930); its tool removed → 404 (40430); a student and an unpublished task → 404.',
          responses: { 302: { description: 'To the tool\'s login initiation URL.' } },
        },
      },
    )
}

const DeepLinkParams = idParams('courseId', 'pointId', 'toolId')

const SCORE_TYPES = ['application/vnd.ims.lis.v1.score+json', 'application/json']

/**
 * The LTI protocol endpoints (outside the envelope: tools speak OIDC, OAuth 2 and the IMS
 * media types), under PUBLIC_URL/lti. docs/lti.md lists them.
 */
export function ltiProtocolRoutes(deps: Deps) {
  const { sql, clock } = deps
  const issuer = (r: Request) => issuerOf(deps, r)
  const oauthError = (e: unknown) => {
    if (e instanceof service.OAuthError) {
      return new Response(JSON.stringify({ error: e.error, error_description: e.description }), {
        status: e.status,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'no-store',
          ...(e.status === 401 ? { 'www-authenticate': `Bearer error="${e.error}"` } : {}),
        },
      })
    }
    throw e
  }
  const json = (body: unknown, type = 'application/json', headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), { headers: { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'no-store', ...headers } })
  const caller = (request: Request, courseId: string, anyOf: string[]) =>
    service.serviceCaller(sql, request.headers.get('authorization'), courseId, anyOf, issuer(request), clock.now())
  const readBody = async (request: Request) => {
    const text = await request.text()
    return text.length > 1_000_000 ? '' : text
  }
  const authorize = async (request: Request, user: { id: string }, fields: URLSearchParams) => {
    const req = Object.fromEntries(fields) as service.AuthorizationRequest
    const answer = await service.authorize(sql, user as never, req, issuer(request), clock.now())
    return formPost(answer.redirectUri, { id_token: answer.idToken, state: answer.state })
  }

  return new Elysia({ prefix: '/lti', tags: ['LTI protocol'] })
    .use(authPlugin(deps))
    .get('/jwks', async () => json(await keys.jwks(sql, clock.now()), 'application/jwk-set+json'), {
      detail: { summary: 'The platform\'s public keys (JWKS)', description: 'RS256 keys; the newest signs, rotated ones are listed until the tokens they signed expired.' },
    })
    .get('/authorize', async ({ request, user }) => authorize(request, user, new URL(request.url).searchParams), {
      auth: true,
      detail: {
        summary: 'OIDC authorization endpoint of LTI launches (the signed-in member)',
        description:
          'The tool sends the browser here after the login initiation. Answers an auto-posting form with `id_token` and `state` to the registered `redirect_uri`; refuses (40030) a missing parameter, an unregistered redirect URI, a spent or expired launch, a nonce used before; 40330 when another member is signed in.',
      },
    })
    .post(
      '/authorize',
      async ({ request, user }) => authorize(request, user, new URLSearchParams(await readBody(request))),
      { auth: true, parse: 'none', detail: { summary: 'OIDC authorization endpoint (form post)', description: 'As the GET, with the parameters as a form.' } },
    )
    .post(
      '/deep-linking/return',
      async ({ request }) => {
        const form = new URLSearchParams(await readBody(request))
        const now = clock.now()
        try {
          const made = await service.deepLinkingReturn(sql, form.get('JWT') ?? '', issuer(request), now, async (courseId, pointId, body) => {
            const parsed = CreateTaskBody.safeParse(body)
            if (!parsed.success) throw invalid(fieldErrors(parsed.error))
            if (await service.isArchived(sql, courseId)) throw courseArchived()
            return createTask(sql, courseId, pointId, parsed.data, now, deps.fanout)
          })
          return new Response(null, {
            status: 303,
            headers: { location: `${issuer(request)}/courses/${made.courseId}/manage?ltiCreated=${made.tasks.length}`, 'cache-control': 'no-store' },
          })
        } catch (e) {
          if (e instanceof service.DeepLinkingRefused) {
            return new Response(`The tool's answer was refused: ${e.message}`, { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } })
          }
          throw e
        }
      },
      {
        parse: 'none',
        detail: {
          summary: 'Deep Linking 2.0: the tool\'s LtiDeepLinkingResponse',
          description:
            'Form field `JWT`, posted by the tool\'s picker (no cookie: the post is cross-site; the `data` claim names the deep linking launch). Verified against the tool\'s keys (iss = client id, aud = the issuer, its deployment, `exp`); answered once. Each `ltiResourceLink` becomes an LTI task (title, `url` as its target link, `custom`, `lineItem.scoreMaximum`). 303 to the course\'s manage page; a refused response → 400 (text).',
        },
      },
    )
    .get('/openid-configuration', ({ request }) => json(service.openidConfiguration(issuer(request))), {
      detail: { summary: 'LTI Dynamic Registration: the platform\'s OpenID configuration', description: 'Issuer, endpoints, scopes, claims and the LTI platform configuration (messages supported).' },
    })
    .post(
      '/register',
      async ({ request }) => {
        try {
          let body: unknown
          try {
            body = JSON.parse(await readBody(request))
          } catch {
            throw new service.OAuthError(400, 'invalid_client_metadata', 'the body is not JSON')
          }
          const answer = await service.registerDynamically(sql, request.headers.get('authorization'), body, issuer(request), clock.now(), (b) => {
            const parsed = ToolBody.safeParse(b)
            if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '))
            return parsed.data
          })
          return new Response(JSON.stringify(answer), { status: 201, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } })
        } catch (e) {
          return oauthError(e)
        }
      },
      {
        parse: 'none',
        detail: {
          summary: 'LTI Dynamic Registration: the tool registers itself',
          description:
            'Bearer: the registration token of `POST /api/v1/courses/{courseId}/lti/registrations` (once, an hour). Body: the OpenID client registration with `https://purl.imsglobal.org/spec/lti-tool-configuration`. 201 with `client_id` and the deployment id; 401 `invalid_token`; 400 `invalid_client_metadata`.',
        },
      },
    )
    .post(
      '/token',
      async ({ request }) => {
        try {
          return json(await service.issueToken(sql, new URLSearchParams(await readBody(request)), issuer(request), clock.now()))
        } catch (e) {
          return oauthError(e)
        }
      },
      {
        parse: 'none',
        detail: {
          summary: 'OAuth 2 token endpoint (client credentials with a signed JWT assertion)',
          description:
            'application/x-www-form-urlencoded: `grant_type=client_credentials`, `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, `client_assertion` (RS256, iss = sub = the client id, aud = this URL, exp within an hour, jti once), `scope`. Answers `{ access_token, token_type: Bearer, expires_in, scope }`; errors as RFC 6749 (`invalid_client` 401, `invalid_scope` 400 for a scope not granted to the tool).',
        },
      },
    )
    .get(
      '/ags/courses/:courseId/line_items',
      async ({ request, params }) => {
        try {
          const { tool } = await caller(request, params.courseId, [SCOPES.lineitem, SCOPES.lineitemRead])
          const rl = new URL(request.url).searchParams.get('resource_link_id')
          return json(await service.lineItems(sql, tool, params.courseId, issuer(request), { resourceLinkId: rl }), 'application/vnd.ims.lis.v2.lineitemcontainer+json')
        } catch (e) {
          return oauthError(e)
        }
      },
      { detail: { summary: 'AGS: the line items of the tool in a course', description: 'One per LTI task of this tool. Scope lineitem or lineitem.readonly.' } },
    )
    .get(
      '/ags/courses/:courseId/line_items/:taskId',
      async ({ request, params }) => {
        try {
          const { tool } = await caller(request, params.courseId, [SCOPES.lineitem, SCOPES.lineitemRead])
          return json(await service.lineItem(sql, tool, params.courseId, params.taskId, issuer(request)), 'application/vnd.ims.lis.v2.lineitem+json')
        } catch (e) {
          return oauthError(e)
        }
      },
      { detail: { summary: 'AGS: one line item (an LTI task)', description: 'Scope lineitem or lineitem.readonly; a task of another tool → 404.' } },
    )
    .post(
      '/ags/courses/:courseId/line_items/:taskId/scores',
      async ({ request, params }) => {
        try {
          const { tool } = await caller(request, params.courseId, [SCOPES.score])
          const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
          if (!SCORE_TYPES.includes(type)) throw new service.OAuthError(415, 'invalid_request', 'send application/vnd.ims.lis.v1.score+json')
          let raw: unknown
          try {
            raw = JSON.parse(await readBody(request))
          } catch {
            throw new service.OAuthError(400, 'invalid_request', 'the body is not JSON')
          }
          await service.postScore(sql, tool, params.courseId, params.taskId, service.parseScore(raw), clock.now(), deps.channels)
          return new Response(null, { status: 204 })
        } catch (e) {
          return oauthError(e)
        }
      },
      {
        parse: 'none',
        detail: {
          summary: 'AGS: post a score',
          description:
            'Scope score. `FullyGraded` with `scoreGiven`/`scoreMaximum` → the student\'s sheet for the task, GRADED with score = scoreGiven / scoreMaximum × 100 (gradebook, totals, the student notified); without a score, `Submitted`/`Completed` → a sheet handed in without a score. 204.',
        },
      },
    )
    .get(
      '/ags/courses/:courseId/line_items/:taskId/results',
      async ({ request, params }) => {
        try {
          const { tool } = await caller(request, params.courseId, [SCOPES.resultRead])
          const userId = new URL(request.url).searchParams.get('user_id')
          return json(await service.results(sql, tool, params.courseId, params.taskId, issuer(request), userId), 'application/vnd.ims.lis.v2.resultcontainer+json')
        } catch (e) {
          return oauthError(e)
        }
      },
      { detail: { summary: 'AGS: results of a line item', description: 'Scope result.readonly. The newest sheet of each student, in the line item\'s scale; `user_id` narrows to one.' } },
    )
    .get(
      '/nrps/courses/:courseId/memberships',
      async ({ request, params }) => {
        try {
          const { tool, course } = await caller(request, params.courseId, [SCOPES.members])
          const q = new URL(request.url).searchParams
          const limit = Math.min(Math.max(Number.parseInt(q.get('limit') ?? '100', 10) || 100, 1), 1000)
          const after = q.get('after')
          const page = await service.members(sql, tool, course, issuer(request), limit, after && /^[0-9a-f-]{36}$/i.test(after) ? after : null)
          return json(page.body, 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json', page.next ? { link: `<${page.next}>; rel="next"` } : {})
        } catch (e) {
          return oauthError(e)
        }
      },
      { detail: { summary: 'NRPS: the course\'s members with LTI roles', description: 'Scope contextmembership.readonly. Instructor for the teachers, Learner for the students; `limit` (default 100) per page, `Link: <…>; rel="next"` while more follow.' } },
    )
}
