import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { CALLBACK_PATH } from '../../src/modules/sso/model.ts'
import { signUp, testApp, type TestContext } from '../support/harness.ts'
import { CLIENT_ID, CLIENT_SECRET, startProvider, type TestProvider } from '../support/oidc-provider.ts'
import { freePort } from '../support/processes.ts'
import { expectAccessible, hasChromium, launchBrowser, openTab } from './support.ts'

/**
 * Single sign-on in Chromium: the login page's "Sign in with …" button, the real provider's
 * own login page (oidc-provider), and back into the course list, logged in by cookie.
 */
describe.skipIf(!hasChromium)('web front end in Chromium: single sign-on', () => {
  let op: TestProvider
  let ctx: TestContext
  let server: { stop(closeActiveConnections?: boolean): unknown }
  let baseUrl: string
  let browser: Browser

  beforeAll(async () => {
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    op = await startProvider([`${baseUrl}${CALLBACK_PATH}`])
    ctx = await testApp({
      config: {
        publicUrl: baseUrl,
        oidc: { issuer: op.issuer, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, displayName: 'Campus account', scopes: 'openid email profile', teacherRule: undefined },
      },
    })
    server = ctx.app.listen({ port, hostname: '127.0.0.1' }).server!
    browser = await launchBrowser()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop(true)
    await op?.stop()
  })

  test('"Sign in with Campus account" → the provider\'s login page → the course list', async () => {
    // A student who joined a course with a password account; the provider vouches for the e-mail.
    const teacher = await signUp(ctx.api, 'TEACHER')
    const course = await ctx.api.post('/courses', { json: { title: 'Signals and Systems', description: '' }, token: teacher.token })
    const student = await signUp(ctx.api, 'STUDENT')
    expect((await ctx.api.post('/courses/join', { json: { inviteCode: course.data.inviteCode }, token: student.token })).status).toBe(200)
    // Linked only because the account's own address is verified too (issue 48).
    await ctx.deps.sql`update users set email_verified = true where id = ${student.id}`
    op.accounts.set('campus-7781', { email: student.email, email_verified: true, name: 'Campus Student' })

    const tab = await openTab(browser, baseUrl)
    const { page } = tab
    await page.goto('/login?error=sso')
    await page.getByTestId('sso-error').waitFor()
    expect(await page.getByTestId('sso-error').textContent()).toContain('Single sign-on did not work')
    await expectAccessible(page, 'login with single sign-on')
    // An unverified local account held the address: the page says what to do, with the way to do it.
    await page.goto('/login?error=sso-unverified-local')
    await page.getByTestId('sso-unverified-local').waitFor()
    expect(await page.getByTestId('sso-unverified-local').textContent()).toContain('that address was never confirmed')
    await page.getByTestId('sso-unverified-local').getByRole('link', { name: 'Forgot password' }).waitFor()
    await expectAccessible(page, 'login after an unverified local account refused single sign-on')

    await page.getByRole('link', { name: 'Sign in with Campus account' }).click()
    await page.waitForURL(`${op.issuer}/interaction/**`)
    await page.locator('input[name="login"]').fill('campus-7781')
    await page.locator('input[name="password"]').fill('anything')
    await page.getByRole('button', { name: /sign-in/i }).click()

    await page.waitForURL(`${baseUrl}/courses`)
    await page.getByRole('heading', { name: 'My courses' }).waitFor()
    await page.getByText('Signals and Systems').first().waitFor()
    // The provider's page may fail to load its web font offline; the service's pages are clean.
    expect(tab.errors.filter((e) => !e.includes(op.issuer) && !e.includes('fonts.googleapis'))).toEqual([])
    await tab.context.close()
  }, 60_000)

  test('PASSWORD_LOGIN=false: only the single sign-on button, no password fields, no registration link', async () => {
    const only = await testApp({ config: { ...ctx.deps.config, passwordLogin: false } })
    const listening = only.app.listen({ port: 0, hostname: '127.0.0.1' })
    try {
      const tab = await openTab(browser, `http://127.0.0.1:${listening.server!.port}`)
      await tab.page.goto('/login')
      await tab.page.getByRole('link', { name: 'Sign in with Campus account' }).waitFor()
      await tab.page.getByText('This site signs you in with Campus account.').waitFor()
      expect(await tab.page.locator('input[type="password"]').count()).toBe(0)
      expect(await tab.page.getByRole('link', { name: /create an account/i }).count()).toBe(0)
      // The register page says registration is off and links to log in, no form.
      await tab.page.goto('/register')
      await tab.page.getByTestId('registration-off').waitFor()
      expect(await tab.page.locator('input').count()).toBe(0)
      await tab.page.getByRole('link', { name: 'Log in' }).click()
      await tab.page.waitForURL('**/login')
      await tab.context.close()
    } finally {
      await listening.stop(true)
    }
  }, 60_000)

  test('in Chinese, the button and the error message are translated', async () => {
    const tab = await openTab(browser, baseUrl, { locale: 'zh-CN' })
    await tab.page.goto('/login?error=sso')
    await tab.page.getByRole('link', { name: '使用Campus account登录' }).waitFor()
    expect(await tab.page.getByTestId('sso-error').textContent()).toContain('单点登录未成功')
    await tab.context.close()
  }, 60_000)
})
