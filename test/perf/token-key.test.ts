import { afterEach, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { tokenSigner } from '../../src/http/auth.ts'
import { signUp, testApp, type Account, type TestContext } from '../support/harness.ts'

// The profile of an authenticated request showed `crypto.subtle.importKey` on every request:
// given the secret as bytes, jose imports the HMAC key again on each verify. It is imported once.
let ctx: TestContext
let user: Account
beforeAll(async () => {
  ctx = await testApp()
  user = await signUp(ctx.api)
})

let spy: ReturnType<typeof spyOn> | undefined
afterEach(() => spy?.mockRestore())

describe('session token key', () => {
  test('authenticated requests do not import the signing key again', async () => {
    expect((await ctx.api.get('/auth/me', { token: user.token })).status).toBe(200)
    spy = spyOn(crypto.subtle, 'importKey')
    for (let i = 0; i < 5; i++) {
      const res = await ctx.api.get('/auth/me', { token: user.token })
      expect(res.status).toBe(200)
      expect(res.code).toBe(0)
      expect(res.data.id).toBe(user.id)
    }
    expect(spy).toHaveBeenCalledTimes(0)
  })

  test('the cached key still refuses a token signed with another secret or another HS algorithm', async () => {
    const { sid } = JSON.parse(Buffer.from(user.token.split('.')[1]!, 'base64url').toString()) as { sid: string }
    const good = await tokenSigner(ctx.deps.config.jwtSecret).sign({ sid, exp: Math.floor(Date.now() / 1000) + 600 })
    expect((await ctx.api.get('/auth/me', { token: good })).status).toBe(200)
    const other = await tokenSigner('another-secret-another-secret-another-0123').sign({ sid })
    expect((await ctx.api.get('/auth/me', { token: other })).status).toBe(401)
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(ctx.deps.config.jwtSecret), { name: 'HMAC', hash: 'SHA-384' }, false, ['sign'])
    const { SignJWT } = await import('jose')
    const hs384 = await new SignJWT({ sid }).setProtectedHeader({ alg: 'HS384' }).sign(key)
    const res = await ctx.api.get('/auth/me', { token: hs384 })
    expect(res.status).toBe(401)
    expect(res.code).toBeGreaterThan(0)
  })
})
