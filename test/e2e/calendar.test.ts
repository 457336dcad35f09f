import { describe, expect, test } from 'bun:test'
import { signUp } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, loginViaUi, openTab, waitForPath, serverAndBrowser } from './support.ts'

/** The homework centre's calendar feed box: the private URL, copy, and rotation with confirmation. */
describe.skipIf(!hasChromium)('calendar feed in the homework centre (Chromium)', () => {
  const ctx = serverAndBrowser()

  test('a student sees the feed URL, and rotating it (after confirming) replaces it; the old one is gone', async () => {
    const student = await signUp(ctx.server.api, 'STUDENT', 'Feed Student')
    const tab = await openTab(ctx.browser, ctx.server.baseUrl)
    const { page } = tab
    await page.goto('/login?next=/homeworks')
    await loginViaUi(page, student.username, student.password)
    await waitForPath(page, '/homeworks')
    const box = page.getByTestId('calendar-url')
    const valueOf = () => box.inputValue()
    await page.waitForFunction(() => /\.ics$/.test((document.querySelector('[data-testid="calendar-url"]') as HTMLInputElement | null)?.value ?? ''))
    const first = await valueOf()
    expect(first).toMatch(/\/calendar\/[A-Za-z0-9_-]{43}\.ics$/)
    expect((await fetch(first.replace(/^https?:\/\/[^/]+/, ctx.server.baseUrl))).status).toBe(200)
    await expectAccessible(page, 'homework centre with the calendar feed')

    page.once('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Get a new address' }).click()
    await page.getByText('New address ready').waitFor()
    expect(await valueOf()).not.toBe(first)
    expect((await fetch(first.replace(/^https?:\/\/[^/]+/, ctx.server.baseUrl))).status).toBe(404)
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)
})
