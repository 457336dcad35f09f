import { expect, test } from 'bun:test'
import { signUp, testApp } from '../support/harness.ts'

test('register, login, me over both prefixes', async () => {
  const { api, app } = await testApp()
  const t = await signUp(api, 'TEACHER')
  const me = await api.get('/auth/me', { token: t.token })
  expect(me.status).toBe(200)
  expect(me.data.username).toBe(t.username)
  const res = await app.handle(new Request('http://localhost/core/api/v1/auth/me', { headers: { authorization: `Bearer ${t.token}` } }))
  expect(res.status).toBe(200)
})
