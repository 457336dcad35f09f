import { beforeAll, describe, expect, test } from 'bun:test'
import { createLocalJWKSet, jwtVerify } from 'jose'
import { ltiToolCommand } from '../../src/cli/lti-tool.ts'
import { KEEP_OLD_MS, ROTATE_AFTER_MS, sign } from '../../src/modules/lti/keys.ts'
import { ManualClock } from '../support/harness.ts'
import { createPoint, createTask, createUnit, world, type World } from '../learning/helpers.ts'

/** Tools per course, LTI tasks, the launch route and the platform's keys, over HTTP (docs/lti.md). */

const ISSUER = 'https://school.test'
const clock = new ManualClock('2026-12-01T08:00:00.000Z')
let w: World
let pointId: string
const toolBody = (over: Record<string, unknown> = {}) => ({
  name: 'Sandbox',
  loginUrl: 'https://tool.test/login',
  launchUrl: 'https://tool.test/launch',
  jwksUrl: 'https://tool.test/keys',
  ...over,
})

beforeAll(async () => {
  w = await world({ clock, config: { publicUrl: ISSUER } })
  const unit = await createUnit(w.api, w.base, w.teacher)
  pointId = (await createPoint(w.api, w.base, w.teacher, unit.id)).id
})

const tools = (courseId = w.course.id) => `/courses/${courseId}/lti/tools`

describe('tools of a course', () => {
  test('a teacher registers one: ids, privacy, scopes and the platform to configure', async () => {
    const r = await w.api.post(tools(), { token: w.teacher.token, json: toolBody({ deepLinkingUrl: 'https://tool.test/deep', sendEmail: true }) })
    expect(r.status).toBe(201)
    expect(r.code).toBe(0)
    expect(r.data).toMatchObject({
      courseId: w.course.id,
      name: 'Sandbox',
      redirectUris: ['https://tool.test/launch', 'https://tool.test/deep'],
      sendName: true,
      sendEmail: true,
      platform: { issuer: ISSUER, authorizationUrl: `${ISSUER}/lti/authorize`, tokenUrl: `${ISSUER}/lti/token`, jwksUrl: `${ISSUER}/lti/jwks` },
    })
    expect(r.data.scopes).toHaveLength(5)
    expect(r.data.clientId).not.toBe(r.data.deploymentId)
    const list = await w.api.get(tools(), { token: w.teacher.token })
    expect(list.status).toBe(200)
    expect(list.data.map((t: any) => t.id)).toContain(r.data.id)
    // Not in another course's list.
    const other = await w.api.get(tools(w.otherCourse.id), { token: w.otherTeacher.token })
    expect(other.data.map((t: any) => t.id)).not.toContain(r.data.id)
  })

  test('401 anonymous, 403 a student or another teacher, 400 a bad URL or scope, 404 an unknown course', async () => {
    expect((await w.api.post(tools(), { json: toolBody() })).code).toBe(40100)
    const s = await w.api.post(tools(), { token: w.student.token, json: toolBody() })
    expect([s.status, s.code, s.data]).toEqual([403, 40300, null])
    expect((await w.api.get(tools(), { token: w.student.token })).status).toBe(403)
    expect((await w.api.get(tools(), { token: w.otherTeacher.token })).status).toBe(403)
    const bad = await w.api.post(tools(), { token: w.teacher.token, json: toolBody({ loginUrl: 'javascript:alert(1)' }) })
    expect([bad.status, bad.code]).toEqual([400, 40001])
    expect(bad.data.fields.map((f: any) => f.field)).toEqual(['loginUrl'])
    const scope = await w.api.post(tools(), { token: w.teacher.token, json: toolBody({ scopes: ['https://evil.test/scope'] }) })
    expect([scope.status, scope.code]).toEqual([400, 40001])
    const unknown = await w.api.get(tools(crypto.randomUUID()), { token: w.teacher.token })
    expect([unknown.status, unknown.code]).toEqual([404, 40401])
  })

  test('remove: the course\'s own tool; 404 another course\'s; 403 the operator\'s', async () => {
    const mine = await w.api.post(tools(), { token: w.teacher.token, json: toolBody() })
    const theirs = await w.api.post(tools(w.otherCourse.id), { token: w.otherTeacher.token, json: toolBody() })
    const cross = await w.api.del(`${tools()}/${theirs.data.id}`, { token: w.teacher.token })
    expect([cross.status, cross.code, cross.data]).toEqual([404, 40430, null])
    const op = (await ltiToolCommand(w.deps.sql, ['add', JSON.stringify(toolBody({ name: 'Operator tool' }))], ISSUER, clock.now())) as any
    expect(op.courseId).toBeNull()
    // Every course sees the operator's tool; no teacher removes it.
    expect((await w.api.get(tools(w.otherCourse.id), { token: w.otherTeacher.token })).data.map((t: any) => t.id)).toContain(op.id)
    const refused = await w.api.del(`${tools()}/${op.id}`, { token: w.teacher.token })
    expect([refused.status, refused.code]).toEqual([403, 40331])
    const ok = await w.api.del(`${tools()}/${mine.data.id}`, { token: w.teacher.token })
    expect([ok.status, ok.code, ok.data]).toEqual([200, 0, null])
    expect((await w.api.del(`${tools()}/${mine.data.id}`, { token: w.teacher.token })).status).toBe(404)
    expect(await ltiToolCommand(w.deps.sql, ['remove', op.id], ISSUER)).toEqual({ removed: op.id })
  })
})

describe('LTI tasks and their launch', () => {
  test('an LTI task names a tool of its course; the launch sends the browser to the tool\'s login initiation', async () => {
    const tool = (await w.api.post(tools(), { token: w.teacher.token, json: toolBody() })).data
    const otherTool = (await w.api.post(tools(w.otherCourse.id), { token: w.otherTeacher.token, json: toolBody() })).data
    const points = `${w.base}/points/${pointId}/tasks`
    const noTool = await w.api.post(points, { token: w.teacher.token, json: { title: 'T', taskType: 'LTI' } })
    expect([noTool.status, noTool.data.fields[0].field]).toEqual([400, 'lti'])
    const foreign = await w.api.post(points, { token: w.teacher.token, json: { title: 'T', taskType: 'LTI', lti: { toolId: otherTool.id } } })
    expect([foreign.status, foreign.data.fields[0].field]).toEqual([400, 'lti.toolId'])
    const mixed = await w.api.post(points, { token: w.teacher.token, json: { title: 'T', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>x</p>', lti: { toolId: tool.id } } })
    expect(mixed.status).toBe(400)

    const task = await createTask(w.api, w.base, w.teacher, pointId, {
      title: 'Video',
      taskType: 'LTI',
      lti: { toolId: tool.id, targetLinkUri: 'https://tool.test/launch?video=7' },
    })
    expect(task.lti).toEqual({ toolId: tool.id, targetLinkUri: 'https://tool.test/launch?video=7', custom: {} })
    // Nothing is handed in to an LTI task: the tool sends the score.
    const sheet = await w.api.post(`${w.base}/tasks/${task.id}/submissions`, { token: w.student.token, json: { content: '<p>mine</p>' } })
    expect([sheet.status, sheet.code, sheet.data]).toEqual([409, 40931, null])
    const launchPath = `${w.base}/tasks/${task.id}/lti/launch`
    const r = await w.api.get(launchPath, { token: w.student.token })
    expect(r.status).toBe(302)
    const to = new URL(r.headers.get('location')!)
    expect(to.origin + to.pathname).toBe('https://tool.test/login')
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      iss: ISSUER,
      login_hint: w.student.id,
      target_link_uri: 'https://tool.test/launch?video=7',
      client_id: tool.clientId,
      lti_deployment_id: tool.deploymentId,
    })
    const [launch] = await w.deps.sql`select user_id, task_id, used_at from lti_launches where id = ${to.searchParams.get('lti_message_hint')!}`
    expect(launch).toEqual({ user_id: w.student.id, task_id: task.id, used_at: null })

    expect((await w.api.get(launchPath)).code).toBe(40100)
    const outsider = await w.api.get(launchPath, { token: w.outsider.token })
    expect([outsider.status, outsider.code]).toEqual([403, 40300])
    const unknown = await w.api.get(`${w.base}/tasks/${crypto.randomUUID()}/lti/launch`, { token: w.student.token })
    expect([unknown.status, unknown.code]).toEqual([404, 40404])
    const bad = await w.api.get(`${w.base}/tasks/not-a-uuid/lti/launch`, { token: w.student.token })
    expect(bad.status).toBe(400)
    const text = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'MEDIA', materialType: 'TEXT', content: '<p>Read</p>' })
    const notLti = await w.api.get(`${w.base}/tasks/${text.id}/lti/launch`, { token: w.student.token })
    expect([notLti.status, notLti.code]).toEqual([409, 40930])
    // A draft is the teacher's only.
    const draft = await createTask(w.api, w.base, w.teacher, pointId, { taskType: 'LTI', lti: { toolId: tool.id }, state: 'DRAFT' })
    expect((await w.api.get(`${w.base}/tasks/${draft.id}/lti/launch`, { token: w.student.token })).status).toBe(404)
    expect((await w.api.get(`${w.base}/tasks/${draft.id}/lti/launch`, { token: w.teacher.token })).status).toBe(302)
    // The tool removed: the task stays, not launchable.
    await w.api.del(`${tools()}/${tool.id}`, { token: w.teacher.token })
    const gone = await w.api.get(launchPath, { token: w.student.token })
    expect([gone.status, gone.code]).toEqual([404, 40430])
    const after = await w.api.get(`${w.base}/tasks/${task.id}`, { token: w.teacher.token })
    expect(after.data.lti.toolId).toBeNull()
  })

  test('the authorization endpoint needs the signed-in member', async () => {
    const r = await w.app.handle(new Request(`${ISSUER}/lti/authorize?client_id=x`))
    expect(r.status).toBe(401)
    expect((await r.json()).code).toBe(40100)
  })
})

describe('the platform\'s keys', () => {
  test('published as JWKS; rotated after 30 days, the old key served until its tokens expired', async () => {
    const jwks = async () => (await (await w.app.handle(new Request(`${ISSUER}/lti/jwks`))).json()) as { keys: { kid: string }[] }
    // The keys are the database's (shared by the files of a pass on PostgreSQL): start past the
    // newest one's rotation, and take the keys this test made away after.
    const [row] = await w.deps.sql<{ newest: Date | null }[]>`select max(created_at) as newest from lti_keys`
    const newest = row!.newest
    const start = Math.max(newest?.getTime() ?? 0, Date.now()) + ROTATE_AFTER_MS + 86400_000
    clock.set(new Date(start))
    const first = await jwks()
    expect(first.keys.length).toBeGreaterThanOrEqual(1)
    const oldToken = await sign(w.deps.sql, { iss: ISSUER, aud: 'x' }, clock.now(), 3600)
    clock.advance(ROTATE_AFTER_MS + 1000)
    const rotated = await jwks()
    expect(rotated.keys[0]!.kid).not.toBe(first.keys[0]!.kid)
    expect(rotated.keys.map((k) => k.kid)).toContain(first.keys[0]!.kid)
    const newToken = await sign(w.deps.sql, { iss: ISSUER, aud: 'x' }, clock.now(), 3600)
    const set = createLocalJWKSet(rotated as any)
    expect((await jwtVerify(newToken, set, { currentDate: clock.now() })).protectedHeader.kid).toBe(rotated.keys[0]!.kid)
    expect((await jwtVerify(oldToken, set, { currentDate: new Date(clock.now().getTime() - ROTATE_AFTER_MS) })).protectedHeader.kid).toBe(first.keys[0]!.kid)
    clock.advance(KEEP_OLD_MS + 1000)
    const later = await jwks()
    expect(later.keys.map((k) => k.kid)).not.toContain(first.keys[0]!.kid)
    expect(later.keys[0]!.kid).toBe(rotated.keys[0]!.kid)
    await w.deps.sql`delete from lti_keys where created_at >= ${new Date(start)}`
  })
})
