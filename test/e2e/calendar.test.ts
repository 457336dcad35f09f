import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { signUp } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, launchBrowser, loginViaUi, openTab, startServer, type Server } from './support.ts'

/** The homework centre's calendar feed box: the private URL, copy, and rotation with confirmation. */
describe.skipIf(!hasChromium)('calendar feed in the homework centre (Chromium)', () => {
  let server: Server
  let browser: Browser

  beforeAll(async () => {
    server = await startServer()
    browser = await launchBrowser()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  test('a student sees the feed URL, and rotating it (after confirming) replaces it; the old one is gone', async () => {
    const student = await signUp(server.api, 'STUDENT', 'Feed Student')
    const tab = await openTab(browser, server.baseUrl)
    const { page } = tab
    await page.goto('/login?next=/homeworks')
    await loginViaUi(page, student.username, student.password)
    await page.waitForURL('**/homeworks')
    const box = page.getByTestId('calendar-url')
    const valueOf = () => box.inputValue()
    await page.waitForFunction(() => /\.ics$/.test((document.querySelector('[data-testid="calendar-url"]') as HTMLInputElement | null)?.value ?? ''))
    const first = await valueOf()
    expect(first).toMatch(/\/calendar\/[A-Za-z0-9_-]{43}\.ics$/)
    expect((await fetch(first.replace(/^https?:\/\/[^/]+/, server.baseUrl))).status).toBe(200)
    await expectAccessible(page, 'homework centre with the calendar feed')

    page.once('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Get a new address' }).click()
    await page.getByText('New address ready').waitFor()
    expect(await valueOf()).not.toBe(first)
    expect((await fetch(first.replace(/^https?:\/\/[^/]+/, server.baseUrl))).status).toBe(404)
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)
})
