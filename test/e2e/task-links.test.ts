import { describe, expect, test, setDefaultTimeout } from 'bun:test'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp } from '../support/harness.ts'
import { expectNoErrors, hasChromium, logIn, openTab, PHONE, serverAndBrowser } from './support.ts'

// A browser test is many page loads: Bun's 5 s per test is too short on a loaded machine.
setDefaultTimeout(60_000)

/*
 * Issue 29.10 in Chromium at 390 px, English and Chinese: a saved quiz link that names the
 * Quizzes view still opens the quiz once the teacher turns Quizzes off (in Learning), and a
 * material has a link of its own that names no view and opens it.
 */
const LANGS = [
  { locale: 'en-GB', link: 'Link to this task' },
  { locale: 'zh-CN', link: '本任务的链接' },
] as const

describe.skipIf(!hasChromium)('web front end in Chromium: task links', () => {
  const ctx = serverAndBrowser()

  for (const { locale, link } of LANGS) {
    test(`${locale}: a quiz link survives Quizzes being turned off; a material's own link opens it`, async () => {
      const { server, browser } = ctx
      const teacher = await signUp(server.api, 'TEACHER')
      const student = await signUp(server.api)
      const course = await insertCourse(server.deps.sql, teacher.id, 'Optics')
      await addStudent(server.deps.sql, course.id, student.id)
      const base = `/courses/${course.id}/learning`
      const unit = await server.api.post(`${base}/units`, { token: teacher.token, json: { title: 'Light' } })
      const point = await server.api.post(`${base}/units/${unit.data.id}/points`, { token: teacher.token, json: { title: 'Lenses' } })
      const make = async (json: Record<string, unknown>) => {
        const r = await server.api.post(`${base}/points/${point.data.id}/tasks`, { token: teacher.token, json })
        expect(r.status).toBe(201)
        return r.data.id as string
      }
      const quiz = await make({ title: 'Lens quiz', taskType: 'QUIZ', questions: [{ type: 'SINGLE_CHOICE', stem: 'Converging?', options: ['Convex', 'Concave'], correctOptions: [0] }] })
      const reading = await make({ title: 'Reading: thin lenses', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>Thin lens equation.</p>' })

      const tab = await openTab(browser, server.baseUrl, { viewport: PHONE, locale })
      const { page } = tab
      await logIn(page, student)
      const saved = `/courses/${course.id}?taskId=${quiz}&module=quizzes`
      await page.goto(saved)
      await page.locator(`details[data-task-id="${quiz}"][open]`).waitFor()

      // The teacher turns Quizzes off; the saved link now opens the quiz in Learning.
      const modules = await server.api.get(`/courses/${course.id}/workspace/modules`, { token: teacher.token })
      const off = modules.data.modules.map((m: any) => ({ moduleKey: m.moduleKey, sortOrder: m.sortOrder, enabled: m.moduleKey === 'QUIZ' ? false : m.enabled }))
      expect((await server.api.put(`/courses/${course.id}/workspace/modules`, { token: teacher.token, json: { modules: off } })).status).toBe(200)
      await page.goto(saved)
      await page.waitForURL(/module=learning/)
      await page.locator(`details[data-task-id="${quiz}"][open]`).waitFor()

      // A material's link names no view and opens it, from a fresh page too.
      await page.goto(`/courses/${course.id}?taskId=${reading}`)
      const open = page.locator(`details[data-task-id="${reading}"][open]`)
      await open.waitFor()
      const anchor = open.getByRole('link', { name: link })
      expect(await anchor.getAttribute('href')).toBe(`/courses/${course.id}?taskId=${reading}`)
      await page.goto('/courses')
      await page.goto(`/courses/${course.id}?taskId=${reading}`)
      await page.locator(`details[data-task-id="${reading}"][open]`).waitFor()
      expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBeLessThanOrEqual(0)
      expectNoErrors(tab)
      await tab.context.close()
    }, 60_000)
  }
})
