import { describe, expect, test } from 'bun:test'
import { ConfigError, loadConfig } from '../../src/config.ts'
import { safeNext } from '../../src/modules/sso/service.ts'
import { signUp, testApp, uniq } from '../support/harness.ts'

const OIDC = {
  issuer: 'https://login.example.edu/realms/campus',
  clientId: 'cls',
  clientSecret: 'secret',
  displayName: 'Campus account',
  scopes: 'openid email profile',
  teacherRule: undefined,
}

describe('PASSWORD_LOGIN=false: single sign-on is the only way in', () => {
  test('register and login → 403, code 40302, whatever the body; providers say so', async () => {
    const on = await testApp()
    const existing = await signUp(on.api)
    const { api } = await testApp({ config: { passwordLogin: false, publicUrl: 'https://cls.example.edu', oidc: OIDC } })
    const username = uniq('pw')
    const reg = await api.post('/auth/register', { json: { username, email: `${username}@example.test`, password: 'correct horse battery' } })
    expect([reg.status, reg.code, reg.data]).toEqual([403, 40302, null])
    expect(reg.message).toMatch(/single sign-on/)
    const bad = await api.post('/auth/register', { json: { username: 'x' } })
    expect([bad.status, bad.code]).toEqual([403, 40302])
    const login = await api.post('/auth/login', { json: { identifier: existing.username, password: existing.password } })
    expect([login.status, login.code]).toEqual([403, 40302])
    expect(login.headers.get('set-cookie')).toBeNull()
    // A session made before still works: the switch refuses new password logins only.
    expect((await api.get('/auth/me', { token: existing.token })).status).toBe(200)
    const providers = await api.get('/auth/providers')
    expect(providers.data).toEqual({ password: false, oidc: { displayName: 'Campus account', startUrl: '/api/v1/auth/oidc/start' } })
  })

  test('without single sign-on: providers name only the password; start and callback → 404', async () => {
    const { api } = await testApp()
    const providers = await api.get('/auth/providers')
    expect([providers.status, providers.code, providers.data]).toEqual([200, 0, { password: true, oidc: null }])
    for (const path of ['/auth/oidc/start?next=/courses', '/auth/oidc/callback?code=x&state=y']) {
      const r = await api.get(path)
      expect([r.status, r.code]).toEqual([404, 40400])
    }
  })
})

describe('configuration', () => {
  const base = { LOG_LEVEL: 'silent' }
  test('OIDC_* parse, with defaults and the teacher rule', () => {
    const c = loadConfig({
      ...base,
      OIDC_ISSUER: 'https://login.microsoftonline.com/tenant/v2.0',
      OIDC_CLIENT_ID: 'id',
      OIDC_CLIENT_SECRET: 'secret',
      PUBLIC_URL: 'https://cls.example.edu/',
      OIDC_TEACHER_RULE: 'roles=Teacher',
      PASSWORD_LOGIN: 'false',
    })
    expect(c.oidc).toEqual({
      issuer: 'https://login.microsoftonline.com/tenant/v2.0',
      clientId: 'id',
      clientSecret: 'secret',
      displayName: 'Single sign-on',
      scopes: 'openid email profile',
      teacherRule: { claim: 'roles', value: 'Teacher' },
    })
    expect(c.passwordLogin).toBe(false)
    expect(loadConfig(base)).toMatchObject({ oidc: undefined, passwordLogin: true })
  })

  test.each([
    [{ OIDC_ISSUER: 'https://idp.example', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's' }, 'PUBLIC_URL'],
    [{ OIDC_ISSUER: 'https://idp.example', PUBLIC_URL: 'https://a.example' }, 'OIDC_CLIENT_ID'],
    [{ OIDC_ISSUER: 'http://idp.example', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's', PUBLIC_URL: 'https://a.example' }, 'OIDC_ISSUER'],
    [{ PASSWORD_LOGIN: 'false' }, 'PASSWORD_LOGIN'],
    [{ OIDC_ISSUER: 'https://idp.example', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's', PUBLIC_URL: 'https://a.example', OIDC_TEACHER_RULE: 'teacher' }, 'OIDC_TEACHER_RULE'],
    [{ OIDC_ISSUER: 'https://idp.example', OIDC_CLIENT_ID: 'id', OIDC_CLIENT_SECRET: 's', PUBLIC_URL: 'https://a.example', OIDC_SCOPES: 'email' }, 'OIDC_SCOPES'],
  ])('%j is refused, naming %s', (env, name) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError)
    expect(() => loadConfig({ ...base, ...env })).toThrow(name)
  })
})

describe('safeNext', () => {
  test.each([
    ['/courses', '/courses'],
    ['/courses/1?tab=a#b', '/courses/1?tab=a#b'],
    ['/homeworks/../messages', '/messages'],
    ['//evil.example', '/courses'],
    ['/\\evil.example', '/courses'],
    ['/x\\y', '/courses'],
    ['https://evil.example', '/courses'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    ['/\u0000', '/courses'],
    [undefined, '/courses'],
    [['/a', '/b'], '/courses'],
    ['/' + 'a'.repeat(3000), '/courses'],
  ])('case %#: %j', (next, expected) => {
    expect(safeNext(next)).toBe(expected)
  })
})
