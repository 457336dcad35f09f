import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { sendDueEmails, smtpTransport } from '../../src/modules/email/sender.ts'
import { mailsTo, tokenIn } from '../accounts/helpers.ts'
import { TestSmtp } from '../email/smtp.ts'
import { testApp, uniq, type TestContext } from '../support/harness.ts'
import { freePort } from '../support/processes.ts'
import { waitFor } from '../support/wait.ts'
import { expectAccessible, expectNoErrors, hasChromium, launchBrowser, loginViaUi, openTab, PASSWORD } from './support.ts'

/*
 * Issue 21 in Chromium at phone width, against a real SMTP server: forgot password (linked from
 * the login page) → the mail → its link → reset → log in with the new password; the banner while
 * unverified; the verify-email page; Settings → Account. Every page axe-clean.
 */
describe.skipIf(!hasChromium)('web front end in Chromium: password reset and account pages', () => {
  let ctx: TestContext
  let smtp: TestSmtp
  let browser: Browser
  let baseUrl: string
  let stop: () => Promise<void>

  beforeAll(async () => {
    smtp = await TestSmtp.start()
    const port = await freePort()
    baseUrl = `http://127.0.0.1:${port}`
    ctx = await testApp({ config: { smtpUrl: smtp.url, publicUrl: baseUrl } })
    const app = ctx.app.listen({ port, hostname: '127.0.0.1' })
    stop = async () => void (await app.stop(true))
    browser = await launchBrowser()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await stop?.()
    await smtp?.stop()
  })

  const transport = () => smtpTransport(smtp.url)
  /** Runs the outbox sender until a mail with `subject` reached `address` (the service's job is not running here). */
  async function mailTo(address: string, subject: string) {
    return waitFor(
      async () => {
        await ctx.deps.background.settled()
        await sendDueEmails(ctx.deps.sql, transport(), { publicUrl: baseUrl, mailFrom: 'Course Learning <no-reply@example.test>', secret: ctx.deps.config.jwtSecret }, new Date())
        return mailsTo(smtp, address).find((m) => m.header('Subject')?.includes(subject))
      },
      { timeoutMs: 15_000, intervalMs: 100, what: `a "${subject}" mail to ${address}` },
    )
  }

  test('forgot → mail → reset → log in (phone width); banner, verify-email and Settings → Account', async () => {
    const username = uniq('web')
    const email = `${username}@example.test`
    expect((await ctx.api.post('/auth/register', { json: { username, email, password: PASSWORD } })).status).toBe(201)

    const tab = await openTab(browser, baseUrl, { viewport: { width: 390, height: 844 } })
    const { page } = tab
    await page.goto('/login')
    await page.getByRole('link', { name: 'Forgot your password?' }).click()
    await page.waitForURL('**/forgot-password')
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor()
    await expectAccessible(page, 'forgot password')
    await page.getByLabel('Username or email').fill(email)
    await page.getByRole('button', { name: 'Send the link' }).click()
    await page.getByTestId('forgot-sent').waitFor()

    const link = `${baseUrl}/reset-password?token=${tokenIn(await mailTo(email, 'Reset your password'), '/reset-password')}`
    await page.goto(link)
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor()
    await expectAccessible(page, 'reset password')
    await page.getByLabel('New password', { exact: true }).fill('my new password 1')
    await page.getByLabel('Repeat the new password').fill('my new password 1')
    await page.getByRole('button', { name: 'Save the new password' }).click()
    await page.getByTestId('reset-done').waitFor()
    await page.getByRole('link', { name: 'Log in' }).click()
    await page.waitForURL('**/login')
    await loginViaUi(page, username, 'my new password 1')
    await page.waitForURL('**/courses')
    // The reset proved the address: no banner.
    await page.getByRole('heading', { name: 'My courses' }).waitFor()
    expect(await page.getByTestId('email-banner').count()).toBe(0)

    await page.goto('/settings')
    await page.getByRole('heading', { name: 'Account' }).waitFor()
    await page.getByTestId('sessions').getByText('This device').waitFor()
    await expectAccessible(page, 'settings account')
    // No horizontal scrolling at phone width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    expectNoErrors(tab)
    await tab.context.close()

    // A second account: the banner while unverified, then the link of its verification mail.
    const other = uniq('web')
    const otherEmail = `${other}@example.test`
    expect((await ctx.api.post('/auth/register', { json: { username: other, email: otherEmail, password: PASSWORD } })).status).toBe(201)
    const tab2 = await openTab(browser, baseUrl, { viewport: { width: 390, height: 844 } })
    await tab2.page.goto('/login')
    await loginViaUi(tab2.page, other)
    await tab2.page.waitForURL('**/courses')
    await tab2.page.getByTestId('email-banner').waitFor()
    await expectAccessible(tab2.page, 'banner')
    const verify = tokenIn(await mailTo(otherEmail, 'Confirm your e-mail address'), '/verify-email')
    await tab2.page.goto(`/verify-email?token=${verify}`)
    await tab2.page.getByRole('heading', { name: 'Confirm your e-mail address' }).waitFor()
    await expectAccessible(tab2.page, 'verify email')
    await tab2.page.getByRole('button', { name: 'Confirm your e-mail address' }).click()
    await tab2.page.getByTestId('verified').waitFor()
    await tab2.page.getByRole('link', { name: 'Continue' }).click()
    await tab2.page.waitForURL('**/courses')
    await tab2.page.getByRole('heading', { name: 'My courses' }).waitFor()
    expect(await tab2.page.getByTestId('email-banner').count()).toBe(0)
    expectNoErrors(tab2)
    await tab2.context.close()
  }, 120_000)
})
