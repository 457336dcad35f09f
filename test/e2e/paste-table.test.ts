import { describe, expect, test, setDefaultTimeout } from 'bun:test'
import { insertCourse } from '../support/fixtures.ts'
import { signUp } from '../support/harness.ts'
import { waitFor } from '../support/wait.ts'
import { expectNoErrors, hasChromium, logIn, openTab, PHONE, serverAndBrowser } from './support.ts'

// A browser test is many page loads: Bun's 5 s per test is too short on a loaded machine.
setDefaultTimeout(60_000)

/*
 * Issue 29.10 in Chromium at 390 px, English and Chinese: a table pasted into the rich-text
 * editor (as a spreadsheet or a word processor puts it on the clipboard) stays a table in the
 * editor, in what is published and in what readers see, without widening the page.
 */
const PASTED =
  '<meta charset="utf-8"><table style="border-collapse:collapse;width:600pt" border="0"><colgroup><col width="200"><col width="400"></colgroup>' +
  '<tbody><tr><td style="font-weight:700">Week</td><td style="font-weight:700">Topic and reading for the week</td></tr>' +
  '<tr><td>1</td><td>Descriptive statistics, means and medians, chapter one</td></tr>' +
  '<tr><td>2</td><td>Variance and standard deviation, chapter two</td></tr></tbody></table>'

describe.skipIf(!hasChromium)('web front end in Chromium: a pasted table', () => {
  const ctx = serverAndBrowser()

  for (const locale of ['en-GB', 'zh-CN']) {
    test(`${locale}: kept as a table in the editor, in the announcement and on the page`, async () => {
      const { server, browser } = ctx
      const teacher = await signUp(server.api, 'TEACHER')
      const course = await insertCourse(server.deps.sql, teacher.id, 'Statistics')
      const tab = await openTab(browser, server.baseUrl, { viewport: PHONE, locale })
      const { page } = tab
      page.on('dialog', (d) => void d.accept())
      await logIn(page, teacher)
      await page.goto(`/courses/${course.id}/manage?tab=announcements`)
      const form = page.locator('form').filter({ has: page.locator('.editor-content') }).first()
      await form.locator('input').first().fill('Schedule')
      const editor = form.locator('.editor-content')
      await editor.click()
      await editor.evaluate((el, html) => {
        const data = new DataTransfer()
        data.setData('text/html', html)
        data.setData('text/plain', 'Week\tTopic')
        el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
      }, PASTED)
      await editor.locator('table td').first().waitFor()
      expect(await editor.locator('table tr').count()).toBe(3)
      await form.locator('button[type="submit"]').click()

      const content = await waitFor(
        async () => {
          const r = await server.api.get(`/courses/${course.id}/announcements`, { token: teacher.token })
          const items = Array.isArray(r.data) ? r.data : r.data.items
          return items[0]?.content as string | undefined
        },
        { what: 'the published announcement' },
      )
      expect(content).toContain('<table>')
      expect(content).toContain('<td><p>Descriptive statistics, means and medians, chapter one</p></td>')
      expect(content).not.toContain('style=')
      const shown = page.locator('.rich:not(.editor-content) table').filter({ hasText: 'Variance and standard deviation' })
      await shown.waitFor()
      expect(await shown.locator('tr').count()).toBe(3)
      expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBeLessThanOrEqual(0)
      expectNoErrors(tab)
      await tab.context.close()
    }, 60_000)
  }
})
