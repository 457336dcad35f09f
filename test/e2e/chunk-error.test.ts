import { describe, expect, test, setDefaultTimeout } from 'bun:test'
import { signUp } from '../support/harness.ts'
import { hasChromium, logIn, openTab, PHONE, serverAndBrowser } from './support.ts'

// A browser test is many page loads: Bun's 5 s per test is too short on a loaded machine.
setDefaultTimeout(60_000)

/*
 * Issue 29.10 in Chromium at 390 px: a page whose code cannot be fetched (offline) says so in
 * the reader's language and offers a reload, instead of the browser's raw "Failed to fetch
 * dynamically imported module: …"; once online again the reload shows the page.
 */
const LANGS = [
  { locale: 'en-GB', title: 'This page could not be loaded', reload: 'Reload' },
  { locale: 'zh-CN', title: '页面没能加载', reload: '刷新' },
] as const

describe.skipIf(!hasChromium)('web front end in Chromium: a page that cannot load offline', () => {
  const ctx = serverAndBrowser()

  for (const { locale, title, reload } of LANGS) {
    test(`${locale}: a friendly notice with a reload, no raw error text`, async () => {
      const { server, browser } = ctx
      const teacher = await signUp(server.api, 'TEACHER')
      const tab = await openTab(browser, server.baseUrl, { viewport: PHONE, locale })
      const { page, context } = tab
      await logIn(page, teacher)
      await context.setOffline(true)
      // The Settings page's code has not been loaded yet: its chunk fails.
      await page.getByTestId('nav-settings').click()
      const notice = page.getByTestId('chunk-error')
      await notice.waitFor()
      expect((await notice.getByRole('heading', { level: 1 }).textContent())?.trim()).toBe(title)
      const text = (await notice.textContent()) ?? ''
      expect(text).not.toMatch(/dynamically imported|module script|Failed to fetch|TypeError/i)
      await context.setOffline(false)
      await notice.getByRole('button', { name: reload }).click()
      await page.getByTestId('email-preferences').waitFor()
      await context.close()
    }, 60_000)
  }
})
