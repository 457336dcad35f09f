import { describe, expect, test, setDefaultTimeout } from 'bun:test'
import type { Page } from 'playwright-core'
import { signUp } from '../support/harness.ts'
import { expectNoErrors, hasChromium, logIn, openTab, PHONE, serverAndBrowser } from './support.ts'

// A browser test is many page loads: Bun's 5 s per test is too short on a loaded machine.
setDefaultTimeout(60_000)

/*
 * Issue 29.10 in Chromium at phone width (390 px), in English and Chinese: the main navigation's
 * Settings link is on screen; the manage tab bar never runs past the viewport and shows a
 * chevron while more tabs lie to a side (the Chinese labels used to end exactly at the cut,
 * hiding the rest without a hint); Settings offers teachers the new-submission switch.
 */
const LANGS = [
  { locale: 'en-GB', switchLabel: 'New submissions' },
  { locale: 'zh-CN', switchLabel: '新的提交' },
] as const

const horizontalOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - innerWidth)

describe.skipIf(!hasChromium)('web front end in Chromium: layout at 390 px (and the tab bar at 1280 px)', () => {
  const ctx = serverAndBrowser()

  for (const { locale, switchLabel } of LANGS) {
    test(`${locale}: Settings is on screen; the manage tabs stay in the viewport with a chevron while more lie to a side`, async () => {
      const { server, browser } = ctx
      const teacher = await signUp(server.api, 'TEACHER')
      const course = await server.api.post('/courses', { token: teacher.token, json: { title: 'Operating Systems', description: '' } })
      expect(course.status).toBe(201)
      const tab = await openTab(browser, server.baseUrl, { viewport: PHONE, locale })
      const { page } = tab
      await logIn(page, teacher)

      const settings = await page.getByTestId('nav-settings').boundingBox()
      expect(settings).not.toBeNull()
      expect(settings!.x).toBeGreaterThanOrEqual(0)
      expect(settings!.x + settings!.width).toBeLessThanOrEqual(PHONE.width)
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0)

      await page.goto(`/courses/${course.data.id}/manage`)
      const nav = page.locator('nav.tabs')
      await nav.locator('a').first().waitFor()
      const box = (await nav.boundingBox())!
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width)
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0)
      const scrolls = await nav.evaluate((el) => el.scrollWidth > el.clientWidth + 1)
      // Both languages' eight tabs are wider than a phone: the row scrolls, and says so.
      expect(scrolls).toBe(true)
      const right = page.locator('.tabs-more-right')
      await right.waitFor()
      const chevron = (await right.boundingBox())!
      expect(chevron.x + chevron.width).toBeLessThanOrEqual(PHONE.width)
      expect(await page.locator('.tabs-more-left').count()).toBe(0)
      // The chevron scrolls until the last tab is fully in the bar; then it goes and the left one shows.
      const last = nav.locator('a').last()
      await nav.evaluate((el) => {
        ;(el as any).ends = 0
        el.addEventListener('scrollend', () => (el as any).ends++)
      })
      for (let i = 0; i < 10 && (await right.count()) > 0; i++) {
        await right.click()
        await page.waitForFunction((n) => (document.querySelector('nav.tabs') as any).ends > n, i)
      }
      await right.waitFor({ state: 'detached' })
      const lastBox = (await last.boundingBox())!
      expect(lastBox.x + lastBox.width).toBeLessThanOrEqual(box.x + box.width + 0.5)
      await page.locator('.tabs-more-left').waitFor()
      expectNoErrors(tab)
      await tab.context.close()
    }, 60_000)

    test(`${locale}: at 1280 px the manage tabs all fit (they wrap), with no chevron`, async () => {
      const { server, browser } = ctx
      const teacher = await signUp(server.api, 'TEACHER')
      const course = await server.api.post('/courses', { token: teacher.token, json: { title: 'Operating Systems', description: '' } })
      const tab = await openTab(browser, server.baseUrl, { viewport: { width: 1280, height: 860 }, locale })
      const { page } = tab
      await logIn(page, teacher)
      await page.goto(`/courses/${course.data.id}/manage?tab=settings`)
      const nav = page.locator('nav.tabs')
      await nav.locator('a[aria-current="page"]').waitFor()
      expect(await nav.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1)
      expect(await page.locator('.tabs-more').count()).toBe(0)
      for (const box of await nav.locator('a').evaluateAll((as) => as.map((a) => a.getBoundingClientRect().right))) expect(box).toBeLessThanOrEqual(1280)
      expectNoErrors(tab)
      await tab.context.close()
    }, 60_000)

    test(`${locale}: Settings offers teachers the new-submission e-mail switch, and not students`, async () => {
      const { server, browser } = ctx
      const teacher = await signUp(server.api, 'TEACHER')
      const student = await signUp(server.api)
      const tab = await openTab(browser, server.baseUrl, { viewport: PHONE, locale })
      const { page } = tab
      await logIn(page, teacher)
      await page.getByTestId('nav-settings').click()
      const prefs = page.getByTestId('email-preferences')
      const box = prefs.getByLabel(switchLabel)
      await box.waitFor()
      expect(await box.isChecked()).toBe(false)
      const saving = page.waitForResponse((r) => r.url().endsWith('/me/notification-preferences') && r.request().method() === 'PUT')
      await box.check()
      await saving
      const saved = await server.api.get('/me/notification-preferences', { token: teacher.token })
      expect(saved.data.email.SUBMISSION_RECEIVED).toBe(true)
      await page.reload()
      expect(await prefs.getByLabel(switchLabel).isChecked()).toBe(true)
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0)
      expectNoErrors(tab)
      await tab.context.close()

      const other = await openTab(browser, server.baseUrl, { viewport: PHONE, locale })
      await logIn(other.page, student)
      await other.page.goto('/settings')
      await other.page.getByTestId('email-preferences').locator('input[type="checkbox"]').first().waitFor()
      // Reminders, grades, announcements, private and class comments: not new submissions.
      expect(await other.page.getByTestId('email-preferences').locator('input[type="checkbox"]').count()).toBe(5)
      expect(await other.page.getByTestId('email-preferences').getByLabel(switchLabel).count()).toBe(0)
      expectNoErrors(other)
      await other.context.close()
    }, 60_000)
  }
})
