import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { z } from 'zod'
import { loadConfig } from '../../src/config.ts'
import { envelope, passResponsesThrough } from '../../src/http/envelope.ts'
import { signUp, testApp } from '../support/harness.ts'

// The profile of the grade overview showed zod's response check as the largest cost (43 % of
// CPU samples); it is on in development and tests, off by default in production. The switch is
// the app's (Deps.config), not a module global: apps built in one process keep their own.

describe('response validation', () => {
  test('VALIDATE_RESPONSES: on by default, off by default with NODE_ENV=production, either way when set', () => {
    expect(loadConfig({}).validateResponses).toBe(true)
    expect(loadConfig({ NODE_ENV: 'production' }).validateResponses).toBe(false)
    expect(loadConfig({ NODE_ENV: 'production', VALIDATE_RESPONSES: 'true' }).validateResponses).toBe(true)
    expect(loadConfig({ VALIDATE_RESPONSES: 'false' }).validateResponses).toBe(false)
    expect(() => loadConfig({ VALIDATE_RESPONSES: 'maybe' })).toThrow('VALIDATE_RESPONSES')
  })

  const bad = { code: 0, message: 'OK', data: { n: 'not a number' } }
  const route = (app: { routes: { path: string; method: string; hooks: any }[] }) => app.routes.find((r) => r.path === '/api/v1/auth/me' && r.method === 'GET')!

  test('apps built with validation on and off in one process each keep their own, whatever the order', async () => {
    const off1 = await testApp({ config: { validateResponses: false } })
    const on1 = await testApp({ config: { validateResponses: true } })
    const off2 = await testApp({ config: { validateResponses: false } })
    // An envelope made after an app with validation off was built still checks (no process-wide switch).
    const fresh = await envelope(z.object({ n: z.number() }))['~standard'].validate(bad)
    expect('issues' in fresh && fresh.issues?.length).toBe(1)
    for (const [ctx, on] of [[off1, false], [on1, true], [off2, false]] as const) {
      const result = await route(ctx.app).hooks.response[200]['~standard'].validate(bad)
      if (on) expect('issues' in result && result.issues?.length).toBeGreaterThan(0)
      else expect(result as unknown).toEqual({ value: bad })
    }
  })

  test('Elysia uses the switched schema: an answer that breaks its schema is refused with it on, served with it off', async () => {
    const make = () => new Elysia().get('/x', () => bad as any, { response: { 200: envelope(z.object({ n: z.number() })) } })
    const checked = make()
    const passed = make()
    passResponsesThrough(passed.routes)
    expect((await checked.handle(new Request('http://localhost/x'))).status).not.toBe(200)
    const res = await passed.handle(new Request('http://localhost/x'))
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual(bad)
  })

  test('the same answers over HTTP with validation on and off', async () => {
    const on = await testApp({ config: { validateResponses: true } })
    const off = await testApp({ config: { validateResponses: false } })
    const user = await signUp(on.api, 'TEACHER')
    const course = await on.api.post('/courses', { json: { title: 'Validation', description: '' }, token: user.token })
    expect(course.status).toBe(201)
    for (const path of ['/auth/me', '/courses', `/courses/${course.data.id}/grades/overview`, `/courses/${course.data.id}/learning/overview?page=1`]) {
      const [a, b] = [await on.api.get(path, { token: user.token }), await off.api.get(path, { token: user.token })]
      expect(a.status).toBe(200)
      expect(b.status).toBe(200)
      expect(b.body).toEqual(a.body)
    }
  })
})
