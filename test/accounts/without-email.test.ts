import { beforeAll, describe, expect, test } from 'bun:test'
import { createTeacher } from '../../src/cli/create-teacher.ts'
import { resetLink } from '../../src/cli/reset-link.ts'
import { signUp, testApp, uniq, usingExternalDb, type TestContext } from '../support/harness.ts'
import { ROOT } from '../support/processes.ts'

/*
 * A server without e-mail (SMTP_URL unset) and with TEACHER_REGISTRATION=closed: the mail routes
 * answer 409 40905, operators use the CLIs (reset link, create teacher), teachers cannot register.
 */
let ctx: TestContext
beforeAll(async () => {
  ctx = await testApp({ config: { smtpUrl: undefined, teacherRegistration: 'closed', publicUrl: 'https://learn.example.test' } })
}, 30_000)

const token = (link: string) => new URL(link).searchParams.get('token')!

describe('without SMTP_URL', () => {
  test('forgot → 409 40905 whether or not the account exists; resend and address change → 409 40905; no outbox rows', async () => {
    const u = await signUp(ctx.api)
    for (const identifier of [u.username, `nobody-${uniq()}`]) {
      const r = await ctx.api.post('/auth/password/forgot', { json: { identifier } })
      expect(r.status).toBe(409)
      expect(r.code).toBe(40905)
      expect(r.message).toBe('Password reset by e-mail is not available on this server.')
    }
    const zh = await ctx.api.post('/auth/password/forgot', { json: { identifier: u.username }, headers: { 'accept-language': 'zh-CN' } })
    expect(zh.message).toBe('本服务器不支持通过邮件重置密码。')
    const resend = await ctx.api.post('/auth/email/verification', { token: u.token })
    expect(resend.status).toBe(409)
    expect(resend.code).toBe(40905)
    const change = await ctx.api.post('/auth/email/change', { token: u.token, json: { newEmail: `${uniq()}@example.test`, currentPassword: u.password } })
    expect(change.status).toBe(409)
    expect(change.code).toBe(40905)
    expect(await ctx.deps.sql`select 1 from email_outbox where user_id = ${u.id}`).toHaveLength(0)
    expect((await ctx.api.get('/auth/me', { token: u.token })).data.emailVerified).toBe(false)
  }, 30_000)

  test('src/cli/reset-link.ts: a one-time link that resets the password, verifies the address and ends the sessions', async () => {
    const u = await signUp(ctx.api)
    expect(await resetLink(ctx.deps.sql, `nobody-${uniq()}`, ctx.deps.config)).toBeNull()
    const issued = await resetLink(ctx.deps.sql, u.email.toUpperCase(), ctx.deps.config)
    expect(issued!.link).toMatch(/^https:\/\/learn\.example\.test\/reset-password\?token=[A-Za-z0-9_-]{43}$/)
    const r = await ctx.api.post('/auth/password/reset', { json: { token: token(issued!.link), newPassword: 'chosen by the user' } })
    expect(r.status).toBe(200)
    expect(r.data).toMatchObject({ id: u.id, emailVerified: true })
    expect((await ctx.api.get('/auth/me', { token: u.token })).status).toBe(401)
    expect((await ctx.api.post('/auth/login', { json: { identifier: u.username, password: 'chosen by the user' } })).status).toBe(200)
    expect((await ctx.api.post('/auth/password/reset', { json: { token: token(issued!.link), newPassword: 'again and again' } })).code).toBe(40002)
  }, 30_000)
})

describe('TEACHER_REGISTRATION=closed', () => {
  test('registering as TEACHER → 403 40301; as STUDENT → 201', async () => {
    const username = uniq('t')
    const r = await ctx.api.post('/auth/register', { json: { username, email: `${username}@example.test`, password: 'correct horse battery', role: 'TEACHER' } })
    expect(r.status).toBe(403)
    expect(r.code).toBe(40301)
    expect(await ctx.deps.sql`select 1 from users where username = ${username}`).toHaveLength(0)
    const s = await ctx.api.post('/auth/register', { json: { username, email: `${username}@example.test`, password: 'correct horse battery' } })
    expect(s.status).toBe(201)
    expect(s.data.role).toBe('STUDENT')
  }, 30_000)

  test('src/cli/create-teacher.ts makes a TEACHER whose link sets the password; a taken username is refused', async () => {
    const username = uniq('prof')
    const made = await createTeacher(ctx.deps.sql, { username, email: `${username}@example.test`, displayName: 'Prof. X' }, ctx.deps.config)
    expect(made.user.role).toBe('TEACHER')
    expect((await ctx.api.post('/auth/password/reset', { json: { token: token(made.link), newPassword: 'teacher secret' } })).status).toBe(200)
    const login = await ctx.api.post('/auth/login', { json: { identifier: username, password: 'teacher secret' } })
    expect(login.status).toBe(200)
    expect(login.data.user).toMatchObject({ role: 'TEACHER', displayName: 'Prof. X', emailVerified: true })
    expect((await ctx.api.post('/courses', { token: login.data.accessToken, json: { title: 'Made by a teacher', description: 'x' } })).status).toBe(201)
    // Awaited first, then asserted (see test/foundation/test-hygiene.test.ts).
    const taken = await createTeacher(ctx.deps.sql, { username, email: `other-${username}@example.test` }, ctx.deps.config).then(() => null, (e: Error) => e)
    expect(taken?.message).toContain('already registered')
    const malformed = await createTeacher(ctx.deps.sql, { username: 'x', email: 'not-an-address' }, ctx.deps.config).then(() => null, (e: Error) => e)
    expect(malformed).toBeInstanceOf(Error)
  }, 30_000)

  test.skipIf(!usingExternalDb())('the CLIs as the operator runs them (PostgreSQL)', async () => {
    const username = uniq('cli')
    const env = { ...process.env, PUBLIC_URL: 'https://learn.example.test', JWT_SECRET: 'x'.repeat(40), LOG_LEVEL: 'silent' }
    const made = Bun.spawnSync(['bun', 'run', 'src/cli/create-teacher.ts', username, `${username}@example.test`], { cwd: ROOT, env })
    expect(made.exitCode).toBe(0)
    expect(made.stdout.toString()).toMatch(/https:\/\/learn\.example\.test\/reset-password\?token=[A-Za-z0-9_-]{43}/)
    const link = Bun.spawnSync(['bun', 'run', 'src/cli/reset-link.ts', username], { cwd: ROOT, env })
    expect(link.exitCode).toBe(0)
    const url = /https:\S+/.exec(link.stdout.toString())![0]
    expect((await ctx.api.post('/auth/password/reset', { json: { token: token(url), newPassword: 'from the operator' } })).status).toBe(200)
    const unknown = Bun.spawnSync(['bun', 'run', 'src/cli/reset-link.ts', `nobody-${uniq()}`], { cwd: ROOT, env })
    expect(unknown.exitCode).toBe(1)
  }, 60_000)
})
