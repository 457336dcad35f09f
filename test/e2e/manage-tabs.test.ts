import { describe, expect, test } from 'bun:test'
import { signUp } from '../support/harness.ts'
import { hasChromium, loginViaUi, openTab, serverAndBrowser } from './support.ts'

/*
 * Issue 27 item 9 (second nit) in Chromium: the manage tab bar at 1280 px keeps its first tab in
 * view, on whichever tab one is, and every tab is reachable without a hidden scroll.
 */
describe.skipIf(!hasChromium)('web front end in Chromium: the manage tab bar', () => {
  const ctx = serverAndBrowser()

  test('at 1280 px every tab, the first included, is inside the bar and the viewport; also with the last one active', async () => {
    const { server, browser } = ctx
    const teacher = await signUp(server.api, 'TEACHER')
    const course = await server.api.post('/courses', { token: teacher.token, json: { title: 'Operating Systems', description: '' } })
    expect(course.status).toBe(201)
    const tab = await openTab(browser, server.baseUrl, { viewport: { width: 1280, height: 860 } })
    const { page } = tab
    await page.goto('/login')
    await loginViaUi(page, teacher.username, teacher.password)
    await page.waitForURL('**/courses')
    for (const which of ['first', 'last'] as const) {
      await page.goto(`/courses/${course.data.id}/manage`)
      const nav = page.getByRole('navigation', { name: /sections/i })
      await nav.waitFor()
      const links = nav.getByRole('link')
      if (which === 'last') {
        await links.last().click()
        await page.waitForURL(/\?tab=/)
        // The URL changes before React marks the tab: wait for the mark, then assert which tab has it.
        await nav.locator('[aria-current="page"]').last().waitFor()
        expect(await links.last().getAttribute('aria-current')).toBe('page')
      }
      const layout = await nav.evaluate((el) => {
        const bar = el.getBoundingClientRect()
        const tabs = [...el.querySelectorAll('a')].map((a) => a.getBoundingClientRect())
        return { bar: { left: bar.left, right: bar.right }, tabs: tabs.map((r) => ({ left: r.left, right: r.right })), scrollLeft: el.scrollLeft, overflow: el.scrollWidth > el.clientWidth + 1, viewport: innerWidth }
      })
      expect(layout.tabs.length).toBeGreaterThan(3)
      expect(layout.scrollLeft).toBe(0)
      // Nothing hidden behind a scroll with no affordance: every tab inside the bar and the window.
      expect(layout.overflow).toBe(false)
      for (const r of layout.tabs) {
        expect(r.left).toBeGreaterThanOrEqual(layout.bar.left - 0.5)
        expect(r.right).toBeLessThanOrEqual(Math.min(layout.bar.right, layout.viewport) + 0.5)
      }
    }
    await tab.context.close()
  }, 60_000)
})
