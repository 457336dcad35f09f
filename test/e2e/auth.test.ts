import { describe, expect, test } from 'bun:test'
import { waitFor } from '../support/wait.ts'
import { expectAccessible, expectNoErrors, hasChromium, loginViaUi, openTab, PASSWORD, registerViaUi, serverAndBrowser, uniqueName } from './support.ts'

describe.skipIf(!hasChromium)('web front end in Chromium: accounts', () => {
  const suite = serverAndBrowser()

  test('register, land on /courses, log out to /login, log in again', async () => {
    const tab = await openTab(suite.browser, suite.server.baseUrl)
    const { page } = tab
    const username = uniqueName('stu')

    await page.goto('/register')
    await page.getByRole('heading', { name: 'Create an account' }).waitFor()
    await expectAccessible(page, 'register')

    await registerViaUi(page, { username, role: 'STUDENT', displayName: 'Ada Student' })
    await page.waitForURL('**/courses')
    await page.getByRole('heading', { name: 'My courses' }).waitFor()
    await page.getByRole('navigation', { name: 'Main' }).waitFor()
    expect(await page.getByText('Ada Student').isVisible()).toBe(true)
    await expectAccessible(page, 'courses')

    await page.getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL('**/login')
    await page.getByText('You have logged out.').waitFor()
    await expectAccessible(page, 'login after logout')

    // The session really ended: a protected page bounces back to the login page.
    await page.goto('/courses')
    await page.waitForURL(/\/login\?next=%2Fcourses$/)

    await loginViaUi(page, username)
    await page.waitForURL('**/courses')
    await page.getByRole('heading', { name: 'My courses' }).waitFor()
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)

  test('a 401 sends the person to /login?next=… with a hint, and login returns them there', async () => {
    const username = uniqueName('t')
    const reg = await suite.server.api.post('/auth/register', { json: { username, email: `${username}@example.test`, password: PASSWORD, role: 'TEACHER' } })
    expect(reg.status).toBe(201)

    const tab = await openTab(suite.browser, suite.server.baseUrl)
    const { page } = tab
    await page.goto('/messages?from=mail')
    await page.waitForURL((u) => u.pathname === '/login')
    expect(new URL(page.url()).searchParams.get('next')).toBe('/messages?from=mail')
    await page.getByTestId('login-hint').waitFor()
    expect(await page.getByTestId('login-hint').textContent()).toContain('Please log in to continue')
    await expectAccessible(page, 'login with next')

    await loginViaUi(page, username.toUpperCase()) // identifiers match case-insensitively
    await page.waitForURL((u) => u.pathname === '/messages' && u.search === '?from=mail')
    await page.getByRole('heading', { name: 'Messages' }).waitFor()
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)

  test('an expired login in the middle of a session also redirects with next', async () => {
    const tab = await openTab(suite.browser, suite.server.baseUrl)
    const { page } = tab
    await registerViaUi(page, { username: uniqueName('s'), role: 'STUDENT' })
    await page.waitForURL('**/courses')
    // The server forgets the login (as when it expires or is revoked elsewhere).
    await tab.context.clearCookies()
    // The next API call of the page gets 401 and sends the person to log in, remembering where.
    // Messages: its list is not among what the navigation bar has already cached (the homework
    // centre shares the bar's query, so visiting it within the cache's lifetime calls nothing).
    await page.getByRole('link', { name: /^Messages/ }).click({ timeout: 2_000 }).catch(() => {})
    // A client-side redirect that may already have happened: poll the URL itself.
    await waitFor(() => /\/login\?next=%2F(messages|courses)$/.test(page.url()), { timeoutMs: 15_000, intervalMs: 100 }).catch(() => {})
    expect(page.url()).toMatch(/\/login\?next=%2F(messages|courses)$/)
    await page.getByTestId('login-hint').waitFor()
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)

  test('forms explain what is wrong', async () => {
    const tab = await openTab(suite.browser, suite.server.baseUrl)
    const { page } = tab
    await page.goto('/register')
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByText('Choose a username.').waitFor()
    await page.getByText('Enter your email address.').waitFor()
    await page.getByText('Choose a password.').waitFor()
    expect(await page.getByLabel('Username').getAttribute('aria-invalid')).toBe('true')
    await expectAccessible(page, 'register with errors')

    await page.getByLabel('Username').fill('ab')
    await page.getByLabel('Email').fill('not-an-email')
    await page.getByLabel('Password', { exact: true }).fill('short')
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByText('Use 3 to 32 characters.').waitFor()
    await page.getByText('Enter a valid email address, like name@example.com.').waitFor()
    await page.getByText('Use at least 8 characters.').waitFor()

    // A taken username comes back from the API and lands on the field.
    const taken = uniqueName('dup')
    expect((await suite.server.api.post('/auth/register', { json: { username: taken, email: `${taken}@example.test`, password: PASSWORD } })).status).toBe(201)
    await page.getByLabel('Username').fill(taken)
    await page.getByLabel('Email').fill(`${taken}-2@example.test`)
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
    await page.getByLabel('Repeat password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.locator('.field-error').filter({ hasText: /taken|already/i }).first().waitFor()

    await page.goto('/login')
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByText('Enter your username or email.').waitFor()
    await page.getByText('Enter your password.').waitFor()
    await loginViaUi(page, taken, 'wrong password!')
    await page.getByRole('alert').filter({ hasText: /.+/ }).first().waitFor()
    expect(page.url()).toEndWith('/login')
    await expectAccessible(page, 'login with errors')
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)

  test('keyboard only: log in with Tab and Enter', async () => {
    const username = uniqueName('k')
    expect((await suite.server.api.post('/auth/register', { json: { username, email: `${username}@example.test`, password: PASSWORD } })).status).toBe(201)
    const tab = await openTab(suite.browser, suite.server.baseUrl)
    const { page } = tab
    await page.goto('/login')
    await page.getByLabel('Username or email').waitFor()
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('identifier')
    await page.keyboard.type(username)
    await page.keyboard.press('Tab')
    await page.keyboard.type(PASSWORD)
    await page.keyboard.press('Enter')
    await page.waitForURL('**/courses')
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)

  test('unknown paths show the not-found page; / goes to /courses', async () => {
    const tab = await openTab(suite.browser, suite.server.baseUrl, { allowDocument404: true })
    const { page } = tab
    const res = await page.goto('/no/such/page')
    expect(res?.status()).toBe(404)
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    await expectAccessible(page, 'not found')
    await page.goto('/')
    await page.waitForURL(/\/login\?next=%2Fcourses$/)
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)

  test('phone width: the login and course pages fit without sideways scrolling', async () => {
    const tab = await openTab(suite.browser, suite.server.baseUrl, { viewport: { width: 375, height: 740 } })
    const { page } = tab
    await registerViaUi(page, { username: uniqueName('m'), role: 'TEACHER' })
    await page.waitForURL('**/courses')
    await page.getByRole('heading', { name: 'Create a course' }).waitFor()
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await expectAccessible(page, 'courses at phone width')
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)

  test('the login page loads at most 150 KB of JavaScript, gzipped', async () => {
    const tab = await openTab(suite.browser, suite.server.baseUrl)
    const { page } = tab
    const scripts: string[] = []
    page.on('response', (r) => {
      if (r.request().resourceType() === 'script') scripts.push(r.url())
    })
    await page.goto('/login')
    await page.getByRole('heading', { name: 'Log in' }).waitFor()
    await page.waitForLoadState('networkidle')
    expect(scripts.length).toBeGreaterThan(0)
    let raw = 0
    let gzipped = 0
    for (const url of scripts) {
      const body = new Uint8Array(await (await fetch(url, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer())
      raw += body.byteLength
      gzipped += Bun.gzipSync(body).byteLength
    }
    console.log(`[e2e] login page JavaScript: ${scripts.length} file(s), ${(raw / 1024).toFixed(1)} KB raw, ${(gzipped / 1024).toFixed(1)} KB gzipped`)
    expect(gzipped).toBeLessThanOrEqual(150 * 1024)
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)
})
