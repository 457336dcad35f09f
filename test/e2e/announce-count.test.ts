import { describe, expect, test, setDefaultTimeout } from 'bun:test'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp } from '../support/harness.ts'
import { expectNoErrors, hasChromium, logIn, openTab, PHONE, serverAndBrowser } from './support.ts'

// A browser test is many page loads: Bun's 5 s per test is too short on a loaded machine.
setDefaultTimeout(60_000)

/*
 * Issue 29.10 in Chromium at 390 px: the announcement form's "Publishing notifies N students"
 * follows the class without a reload (it said 0 with 3 enrolled), and co-teachers are not counted.
 */
const LANGS = [
  { locale: 'en-GB', hint: (n: number) => `Publishing notifies ${n} student${n === 1 ? '' : 's'}.` },
  { locale: 'zh-CN', hint: (n: number) => `发布后将通知 ${n} 名学生。` },
] as const

describe.skipIf(!hasChromium)('web front end in Chromium: whom an announcement notifies', () => {
  const ctx = serverAndBrowser()

  for (const { locale, hint } of LANGS) {
    test(`${locale}: the count follows students joining while the page is open; co-teachers are not students`, async () => {
      const { server, browser } = ctx
      const [teacher, coTeacher, ...students] = await Promise.all([signUp(server.api, 'TEACHER'), signUp(server.api, 'TEACHER'), signUp(server.api), signUp(server.api), signUp(server.api)])
      const course = await insertCourse(server.deps.sql, teacher.id, 'Optics')
      const tab = await openTab(browser, server.baseUrl, { viewport: PHONE, locale })
      const { page } = tab
      await logIn(page, teacher)
      await page.goto(`/courses/${course.id}/manage?tab=announcements`)
      await page.getByText(hint(0)).waitFor()

      // Meanwhile three students join and a co-teacher is added; the teacher goes on working.
      for (const s of students) await addStudent(server.deps.sql, course.id, s.id)
      const added = await server.api.post(`/courses/${course.id}/teachers`, { token: teacher.token, json: { identifier: coTeacher.username } })
      expect(added.status).toBe(201)
      await page.locator('nav.tabs a[href*="tab=resources"]').click()
      await page.waitForURL(/tab=resources/)
      await page.locator('nav.tabs a[href*="tab=announcements"]').click()
      await page.getByText(hint(3)).waitFor()
      expect(await page.getByText(hint(0)).count()).toBe(0)
      expectNoErrors(tab)
      await tab.context.close()
    }, 60_000)
  }
})
