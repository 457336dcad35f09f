import { afterAll, describe, expect, test } from 'bun:test'
import { z } from 'zod'
import { loadConfig } from '../../src/config.ts'
import { envelope, setResponseValidation } from '../../src/http/envelope.ts'
import { signUp, testApp } from '../support/harness.ts'

// The profile of the grade overview showed zod's response check as the largest cost (43 % of
// CPU samples); it is on in development and tests, off by default in production.
afterAll(() => setResponseValidation(true))

describe('response validation', () => {
  test('VALIDATE_RESPONSES: on by default, off by default with NODE_ENV=production, either way when set', () => {
    expect(loadConfig({}).validateResponses).toBe(true)
    expect(loadConfig({ NODE_ENV: 'production' }).validateResponses).toBe(false)
    expect(loadConfig({ NODE_ENV: 'production', VALIDATE_RESPONSES: 'true' }).validateResponses).toBe(true)
    expect(loadConfig({ VALIDATE_RESPONSES: 'false' }).validateResponses).toBe(false)
    expect(() => loadConfig({ VALIDATE_RESPONSES: 'maybe' })).toThrow('VALIDATE_RESPONSES')
  })

  test('an envelope built with validation off passes the value through; on, it checks it', async () => {
    const bad = { code: 0, message: 'OK', data: { n: 'not a number' } }
    setResponseValidation(false)
    const off = await envelope(z.object({ n: z.number() }))['~standard'].validate(bad)
    expect(off as unknown).toEqual({ value: bad })
    setResponseValidation(true)
    const on = await envelope(z.object({ n: z.number() }))['~standard'].validate(bad)
    expect('issues' in on && on.issues?.length).toBe(1)
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
