import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose'
import { createPoint, createUnit, world, type World } from '../learning/helpers.ts'
import { browse, formOf, Jar, startTool, type Tool } from './tool.ts'

/**
 * LTI 1.3 end to end against a real tool library: ltijs 5.9 (ltijs-sequelize on a scratch
 * database of the local PostgreSQL) as the tool, the service on 127.0.0.1 as the platform
 * (docs/lti.md). Both passes: the service's database is the pass's; the tool's is always the
 * local server.
 */

const CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/'
const LEARNER = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'
const INSTRUCTOR = 'http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'
const SCORE = 'https://purl.imsglobal.org/spec/lti-ags/scope/score'
const MEMBERS = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly'

let handler: (r: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 })
const platform = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => handler(r) })
const issuer = `http://127.0.0.1:${platform.port}`

let w: World
let tool: Tool
let toolReg: any
let taskId: string
let pointId: string

/** A hand-made client (keys from jose, its JWKS on its own tiny server): the hostile side. */
const handMade = async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true })
  const kid = crypto.randomUUID()
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => Response.json({ keys: [jwk] }) })
  return {
    jwksUrl: `http://127.0.0.1:${server.port}/keys`,
    server,
    assertion: (clientId: string, over: { aud?: string; exp?: number; jti?: string } = {}) =>
      new SignJWT({ jti: over.jti ?? crypto.randomUUID() })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(over.aud ?? `${issuer}/lti/token`)
        .setIssuedAt()
        .setExpirationTime(over.exp ?? Math.floor(Date.now() / 1000) + 60)
        .sign(privateKey),
  }
}
let other: Awaited<ReturnType<typeof handMade>>

const token = (form: Record<string, string>) =>
  fetch(`${issuer}/lti/token`, { method: 'POST', body: new URLSearchParams(form), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
const grant = (assertion: string, scope: string) =>
  token({
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
    scope,
  })

beforeAll(async () => {
  w = await world({ config: { publicUrl: issuer } })
  handler = (r) => w.app.handle(r)
  tool = await startTool()
  other = await handMade()
  const r = await w.api.post(`/courses/${w.course.id}/lti/tools`, {
    token: w.teacher.token,
    json: { name: 'ltijs tool', loginUrl: `${tool.origin}/login`, launchUrl: `${tool.origin}/`, jwksUrl: `${tool.origin}/keys`, sendEmail: true },
  })
  expect(r.status).toBe(201)
  toolReg = r.data
  await tool.lti.registerPlatform({
    url: issuer,
    name: 'course-learning-service',
    clientId: toolReg.clientId,
    authenticationEndpoint: toolReg.platform.authorizationUrl,
    accesstokenEndpoint: toolReg.platform.tokenUrl,
    authConfig: { method: 'JWK_SET', key: toolReg.platform.jwksUrl },
  })
  const unit = await createUnit(w.api, w.base, w.teacher)
  pointId = (await createPoint(w.api, w.base, w.teacher, unit.id)).id
  const t = await w.api.post(`${w.base}/points/${pointId}/tasks`, {
    token: w.teacher.token,
    json: { title: 'Coding sandbox', taskType: 'LTI', lti: { toolId: toolReg.id, custom: { level: '2' } } },
  })
  expect(t.status).toBe(201)
  expect(t.data.lti).toEqual({ toolId: toolReg.id, targetLinkUri: null, custom: { level: '2' } })
  taskId = t.data.id
}, 60_000)

afterAll(async () => {
  await tool?.stop()
  other?.server.stop(true)
  platform.stop(true)
})

/** A member's browser from the task's launch to the authorization endpoint's form. */
async function toAuthorization(sessionToken: string, start = `${issuer}/api/v1/courses/${w.course.id}/learning/tasks/${taskId}/lti/launch`) {
  const jar = new Jar()
  jar.set('cls_session', sessionToken)
  let r = await browse(jar, start)
  expect(r.status).toBe(302)
  const login = new URL(r.headers.get('location')!)
  expect(login.origin + login.pathname).toBe(`${tool.origin}/login`)
  r = await browse(jar, login.href)
  expect(r.status).toBe(302)
  const authUrl = r.headers.get('location')!
  expect(authUrl.startsWith(toolReg.platform.authorizationUrl)).toBe(true)
  return { jar, login, authUrl }
}

async function launch(sessionToken: string, start = `${issuer}/api/v1/courses/${w.course.id}/learning/tasks/${taskId}/lti/launch`) {
  const { jar, authUrl } = await toAuthorization(sessionToken, start)
  let r = await browse(jar, authUrl)
  expect(r.status).toBe(200)
  const form = formOf(await r.text())
  const post = () =>
    browse(jar, form.action, { method: 'POST', body: new URLSearchParams(form.fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  r = await post()
  expect(r.status).toBe(302)
  r = await browse(jar, new URL(r.headers.get('location')!, tool.origin).href)
  expect(r.status).toBe(200)
  const body = await r.text()
  return { jar, authUrl, form, post, body, idToken: body === 'picker' ? tool.deepLinks.at(-1) : tool.launches.at(-1) }
}

describe('a launch reaches ltijs', () => {
  test('a student: the ID token ltijs accepted carries the LTI claims, Learner, the course and the task', async () => {
    const { form, idToken } = await launch(w.student.token)
    expect(idToken.user).toBe(w.student.id)
    expect(idToken.platformContext.roles).toEqual([LEARNER])
    expect(idToken.platformContext.context.id).toBe(w.course.id)
    expect(idToken.platformContext.resource.id).toBe(taskId)
    expect(idToken.platformContext.custom).toEqual({ level: '2' })
    expect(idToken.platformContext.endpoint.lineitem).toBe(`${issuer}/lti/ags/courses/${w.course.id}/line_items/${taskId}`)
    expect(idToken.platformContext.namesRoles.context_memberships_url).toBe(`${issuer}/lti/nrps/courses/${w.course.id}/memberships`)
    // The token itself, verified against the platform's published keys.
    const keys = await (await fetch(`${issuer}/lti/jwks`)).json()
    const { payload, protectedHeader } = await jwtVerify(form.fields.id_token!, createLocalJWKSet(keys), { issuer, audience: toolReg.clientId })
    expect(protectedHeader.alg).toBe('RS256')
    expect(payload[`${CLAIM}message_type`]).toBe('LtiResourceLinkRequest')
    expect(payload[`${CLAIM}version`]).toBe('1.3.0')
    expect(payload[`${CLAIM}deployment_id`]).toBe(toolReg.deploymentId)
    expect(payload[`${CLAIM}target_link_uri`]).toBe(`${tool.origin}/`)
    expect(payload.email).toBe(w.student.email)
    expect(payload.name).toBe('Alice')
  })

  test('a teacher launches as Instructor', async () => {
    const { idToken } = await launch(w.teacher.token)
    expect(idToken.user).toBe(w.teacher.id)
    expect(idToken.platformContext.roles).toEqual([INSTRUCTOR])
  })
})

describe('dynamic registration', () => {
  test('the teacher starts it; ltijs registers itself; the new tool launches with its own client id', async () => {
    const r = await w.api.post(`/courses/${w.course.id}/lti/registrations`, { token: w.teacher.token, json: { registrationUrl: `${tool.origin}/register` } })
    expect(r.status).toBe(201)
    const open = new URL(r.data.openUrl)
    expect(open.searchParams.get('openid_configuration')).toBe(`${issuer}/lti/openid-configuration`)
    const page = await fetch(open.href)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('org.imsglobal.lti.close')
    const tools = await w.api.get(`/courses/${w.course.id}/lti/tools`, { token: w.teacher.token })
    const dyn = tools.data.find((t: any) => t.name === 'ltijs dynamic')
    expect(dyn).toMatchObject({ loginUrl: `${tool.origin}/login`, jwksUrl: `${tool.origin}/keys`, deepLinkingUrl: `${tool.origin}/` })
    expect(dyn.scopes).toHaveLength(5)
    // The token was spent: the same registration again is refused.
    const again = await fetch(`${issuer}/lti/register`, {
      method: 'POST',
      headers: { authorization: `Bearer ${open.searchParams.get('registration_token')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'x', initiate_login_uri: `${tool.origin}/login`, jwks_uri: `${tool.origin}/keys`, 'https://purl.imsglobal.org/spec/lti-tool-configuration': { target_link_uri: `${tool.origin}/` } }),
    })
    expect(again.status).toBe(401)
    expect((await again.json()).error).toBe('invalid_token')
    // A task of the new tool launches at ltijs, which knows the platform under the new client id.
    const t = await w.api.post(`${w.base}/points/${pointId}/tasks`, { token: w.teacher.token, json: { title: 'Dynamic', taskType: 'LTI', lti: { toolId: dyn.id } } })
    expect(t.status).toBe(201)
    const { idToken } = await launch(w.student.token, `${issuer}/api/v1/courses/${w.course.id}/learning/tasks/${t.data.id}/lti/launch`)
    expect(idToken.clientId).toBe(dyn.clientId)
    expect(idToken.platformContext.resource.id).toBe(t.data.id)
    expect(idToken.platformContext.roles).toEqual([LEARNER])
  })
})

describe('deep linking', () => {
  test('the teacher opens the picker; the tool\'s response creates an LTI task with its line item; a student launches it', async () => {
    const start = `${issuer}/api/v1/courses/${w.course.id}/learning/points/${pointId}/lti/tools/${toolReg.id}/deep-linking`
    const { body, idToken } = await launch(w.teacher.token, start)
    expect(body).toBe('picker')
    expect(idToken.platformContext.roles).toEqual([INSTRUCTOR])
    expect(idToken.platformContext.deepLinkingSettings.deep_link_return_url).toBe(`${issuer}/lti/deep-linking/return`)
    const jwt = await tool.lti.DeepLinking.createDeepLinkingMessage(
      idToken,
      [{ type: 'ltiResourceLink', title: 'Chapter 3 quiz', url: `${tool.origin}/?chapter=3`, custom: { chapter: '3' }, lineItem: { scoreMaximum: 20, label: 'Chapter 3' } }],
      { message: 'Added' },
    )
    const back = () =>
      fetch(`${issuer}/lti/deep-linking/return`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ JWT: jwt }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })
    let r = await back()
    expect(r.status).toBe(303)
    expect(r.headers.get('location')).toBe(`${issuer}/courses/${w.course.id}/manage?ltiCreated=1`)
    // Answered once.
    r = await back()
    expect(r.status).toBe(400)
    const tree = await w.api.get(`${w.base}`, { token: w.teacher.token })
    const made = tree.data.units.flatMap((u: any) => u.points).find((p: any) => p.id === pointId).tasks.find((t: any) => t.title === 'Chapter 3 quiz')
    expect(made.lti).toEqual({ toolId: toolReg.id, targetLinkUri: `${tool.origin}/?chapter=3`, custom: { chapter: '3' } })
    const student = await launch(w.student.token, `${issuer}/api/v1/courses/${w.course.id}/learning/tasks/${made.id}/lti/launch`)
    expect(student.idToken.platformContext.custom).toEqual({ chapter: '3' })
    expect(student.idToken.platformContext.resource.id).toBe(made.id)
    const item = await tool.lti.Grade.getLineItemById(student.idToken, student.idToken.platformContext.endpoint.lineitem)
    expect(item).toMatchObject({ scoreMaximum: 20, label: 'Chapter 3 quiz', resourceLinkId: made.id })
  })
})

describe('grades and members through ltijs', () => {
  test('a score ltijs posts is the student\'s score: gradebook, total, notification', async () => {
    const { idToken } = await launch(w.student.token)
    await tool.lti.Grade.submitScore(idToken, idToken.platformContext.endpoint.lineitem, {
      scoreGiven: 8,
      scoreMaximum: 10,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
      comment: 'Well done',
    })
    const g = await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })
    expect(g.status).toBe(200)
    expect(g.data.columns.map((c: any) => c.id)).toContain(taskId)
    const row = g.data.students.find((s: any) => s.userId === w.student.id)
    expect(row.cells[taskId]).toBe(80)
    expect(row.averageScore).toBe(80)
    const mine = await w.api.get(`/courses/${w.course.id}/learning/overview`, { token: w.student.token })
    expect(mine.status).toBe(200)
    expect(mine.data.students[0].averageScore).toBe(80)
    const n = await w.api.get('/notifications', { token: w.student.token })
    expect(n.status).toBe(200)
    expect(JSON.stringify(n.data)).toContain('SUBMISSION_GRADED')
    // ltijs reads the results back, in the line item's scale (scoreMaximum 100).
    const results = await tool.lti.Grade.getScores(idToken, idToken.platformContext.endpoint.lineitem)
    expect(results.scores.find((s: any) => s.userId === w.student.id)).toMatchObject({ resultScore: 80, resultMaximum: 100, comment: 'Well done' })
  })

  test('on a MANUAL task the tool\'s score is held like a teacher\'s grade until the release', async () => {
    const t = await w.api.post(`${w.base}/points/${pointId}/tasks`, {
      token: w.teacher.token,
      json: { title: 'Held sandbox', taskType: 'LTI', lti: { toolId: toolReg.id }, gradeRelease: 'MANUAL' },
    })
    expect(t.status).toBe(201)
    expect(t.data.gradeRelease).toBe('MANUAL')
    const heldTask = t.data.id
    const { idToken } = await launch(w.student2.token, `${issuer}/api/v1/courses/${w.course.id}/learning/tasks/${heldTask}/lti/launch`)
    await tool.lti.Grade.submitScore(idToken, idToken.platformContext.endpoint.lineitem, {
      scoreGiven: 6,
      scoreMaximum: 10,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
      comment: 'Held comment',
    })
    const unread = async () => (await w.api.get('/notifications', { token: w.student2.token })).data
    const before = JSON.stringify(await unread())
    expect(before).not.toContain('Held sandbox')
    // The student sees a handed-in sheet without score or comment; the teacher sees the held grade.
    const mine = await w.api.get(`${w.base}/tasks/${heldTask}/submissions`, { token: w.student2.token })
    expect(mine.status).toBe(200)
    const sheet = (mine.data.items ?? mine.data)[0]
    expect(sheet).toMatchObject({ status: 'SUBMITTED', score: null, feedback: null })
    const theirs = await w.api.get(`${w.base}/tasks/${heldTask}/submissions`, { token: w.teacher.token })
    expect((theirs.data.items ?? theirs.data)[0]).toMatchObject({ score: 60, released: false })
    const g = await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })
    const row = g.data.students.find((s: any) => s.userId === w.student2.id)
    expect(row.cells[heldTask] ?? null).toBeNull()
    // The release shows it and tells the student once.
    const rel = await w.api.post(`${w.base}/tasks/${heldTask}/release`, { token: w.teacher.token })
    expect(rel.status).toBe(200)
    expect(rel.data).toMatchObject({ released: 1, notified: 1 })
    const after = await w.api.get(`${w.base}/tasks/${heldTask}/submissions`, { token: w.student2.token })
    expect((after.data.items ?? after.data)[0]).toMatchObject({ status: 'GRADED', score: 60, feedback: 'Held comment' })
    expect(JSON.stringify(await unread())).toContain('Held sandbox')
  })

  test('ltijs reads the member list with LTI roles', async () => {
    const { idToken } = await launch(w.teacher.token)
    const result = await tool.lti.NamesAndRoles.getMembers(idToken)
    const byId = new Map(result.members.map((m: any) => [m.user_id, m]))
    expect(byId.size).toBe(3)
    expect((byId.get(w.teacher.id) as any).roles).toEqual([INSTRUCTOR])
    expect((byId.get(w.student.id) as any).roles).toEqual([LEARNER])
    expect((byId.get(w.student2.id) as any).roles).toEqual([LEARNER])
    expect(byId.has(w.outsider.id)).toBe(false)
  })
})

describe('hostile launches and tokens are refused', () => {
  test('a replayed authorization request (spent launch) → 40030; a replayed id_token post → ltijs refuses', async () => {
    const { authUrl, post } = await launch(w.student.token)
    const again = await w.app.handle(new Request(authUrl, { headers: { cookie: `cls_session=${w.student.token}` } }))
    expect(again.status).toBe(400)
    expect((await again.json()).code).toBe(40030)
    const replay = await post()
    expect(replay.status).toBe(401)
  })

  test('a nonce used before → 40030; another member signed in → 40330; an unregistered redirect URI → 40030', async () => {
    const first = await launch(w.student.token)
    const nonce = new URL(first.authUrl).searchParams.get('nonce')!
    const { authUrl } = await toAuthorization(w.student.token)
    const reuse = new URL(authUrl)
    reuse.searchParams.set('nonce', nonce)
    let r = await w.app.handle(new Request(reuse.href, { headers: { cookie: `cls_session=${w.student.token}` } }))
    expect(r.status).toBe(400)
    expect((await r.json()).code).toBe(40030)

    const second = await toAuthorization(w.student.token)
    r = await w.app.handle(new Request(second.authUrl, { headers: { cookie: `cls_session=${w.student2.token}` } }))
    expect(r.status).toBe(403)
    expect((await r.json()).code).toBe(40330)
    const elsewhere = new URL(second.authUrl)
    elsewhere.searchParams.set('redirect_uri', 'https://evil.test/')
    r = await w.app.handle(new Request(elsewhere.href, { headers: { cookie: `cls_session=${w.student.token}` } }))
    expect(r.status).toBe(400)
    expect((await r.json()).code).toBe(40030)
    // Unhurt by the refusals, the launch still works once.
    r = await w.app.handle(new Request(second.authUrl, { headers: { cookie: `cls_session=${w.student.token}` } }))
    expect(r.status).toBe(200)
  })

  test('client assertions: wrong audience, expired, used twice, an ungranted scope; another tool\'s token', async () => {
    const reg = await w.api.post(`/courses/${w.course.id}/lti/tools`, {
      token: w.teacher.token,
      json: { name: 'scores only', loginUrl: 'https://b.test/login', launchUrl: 'https://b.test/', jwksUrl: other.jwksUrl, scopes: [SCORE] },
    })
    expect(reg.status).toBe(201)
    const b = reg.data.clientId
    let r = await grant(await other.assertion(b, { aud: 'https://elsewhere.test/token' }), SCORE)
    expect(r.status).toBe(401)
    expect((await r.json()).error).toBe('invalid_client')
    r = await grant(await other.assertion(b, { exp: Math.floor(Date.now() / 1000) - 120 }), SCORE)
    expect(r.status).toBe(401)
    expect((await r.json()).error).toBe('invalid_client')
    r = await grant(await other.assertion(b), `${SCORE} ${MEMBERS}`)
    expect(r.status).toBe(400)
    expect((await r.json()).error).toBe('invalid_scope')
    // ltijs's client id with this client's key: the signature does not match the tool's keys.
    r = await grant(await other.assertion(toolReg.clientId), SCORE)
    expect(r.status).toBe(401)
    const jti = crypto.randomUUID()
    r = await grant(await other.assertion(b, { jti }), SCORE)
    expect(r.status).toBe(200)
    const { access_token } = await r.json()
    r = await grant(await other.assertion(b, { jti }), SCORE)
    expect(r.status).toBe(401)

    // B's token on ltijs's line item: not B's → 404; on the member list: no scope → 403.
    const score = { userId: w.student.id, scoreGiven: 1, scoreMaximum: 1, activityProgress: 'Completed', gradingProgress: 'FullyGraded', timestamp: new Date().toISOString() }
    r = await fetch(`${issuer}/lti/ags/courses/${w.course.id}/line_items/${taskId}/scores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/vnd.ims.lis.v1.score+json' },
      body: JSON.stringify(score),
    })
    expect(r.status).toBe(404)
    r = await fetch(`${issuer}/lti/nrps/courses/${w.course.id}/memberships`, { headers: { authorization: `Bearer ${access_token}` } })
    expect(r.status).toBe(403)
    // Another course: the tool is not registered there.
    r = await fetch(`${issuer}/lti/nrps/courses/${w.otherCourse.id}/memberships`, { headers: { authorization: `Bearer ${access_token}` } })
    expect(r.status).toBe(403)
    // A forged token (signed by the client, not the platform) → 401.
    r = await fetch(`${issuer}/lti/nrps/courses/${w.course.id}/memberships`, { headers: { authorization: `Bearer ${await other.assertion(b)}` } })
    expect(r.status).toBe(401)
    // The student's score is still ltijs's 80.
    const g = await w.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })
    expect(g.data.students.find((s: any) => s.userId === w.student.id).cells[taskId]).toBe(80)
  })
})
