import { beforeAll, describe, expect, test } from 'bun:test'
import { signUp, type Account } from '../support/harness.ts'
import { expectNoErrors, hasChromium, logInAs, openTab, serverAndBrowser } from './support.ts'

/** Issue 24 in Chromium: copy a course to a new term (with the deadline preview), archive it. */
describe.skipIf(!hasChromium)('terms in Chromium', () => {
  let teacher: Account
  let courseId: string

  const suite = serverAndBrowser()
  beforeAll(async () => {
    const api = suite.server.api
    teacher = await signUp(api, 'TEACHER', 'Tess Terms')
    const c = await api.post('/courses', { token: teacher.token, json: { title: 'Operating Systems', description: 'Autumn' } })
    courseId = c.data.id
    const e = await api.post(`/courses/${courseId}/experiments`, {
      token: teacher.token,
      json: { title: 'Lab fork', description: '<p>x</p>', dueAt: '2026-12-01T10:00:00.000Z' },
    })
    expect(e.status).toBe(201)
  }, 60_000)
  test('copy to a new term, then archive the old course', async () => {
    const tab = await openTab(suite.browser, suite.server.baseUrl)
    suite.tabs.push(tab)
    const { page } = tab
    await logInAs(page, teacher)
    await page.goto(`/courses/${courseId}/manage?tab=settings`)

    const form = page.getByTestId('copy-form')
    await form.getByLabel('Title of the new course').fill('Operating Systems (spring)')
    await form.getByLabel('Move dates by (days)').fill('7')
    // Waits for the preview to show the experiment's deadline moved by a week (Dec 1 → Dec 8).
    await form.getByTestId('copy-preview').filter({ hasText: 'Lab fork: Dec 8, 2026' }).waitFor()
    await form.getByRole('button', { name: 'Copy course' }).click()
    await form.getByTestId('copied-link').click()
    await page.waitForURL(/\/courses\/[0-9a-f-]{36}\/manage$/)
    expect(page.url()).not.toContain(courseId)
    await page.locator('h1').filter({ hasText: 'Operating Systems (spring)' }).waitFor()

    await page.goto(`/courses/${courseId}/manage?tab=settings`)
    page.once('dialog', (d) => void d.accept())
    await page.getByTestId('archive-toggle').click()
    await page.getByTestId('archived-banner').waitFor()
    await page.getByTestId('archive-toggle').filter({ hasText: 'Unarchive this course' }).waitFor()
    const course = await suite.server.api.get(`/courses/${courseId}`, { token: teacher.token })
    expect(course.data.archived).toBe(true)

    await page.goto('/courses')
    await page.getByTestId('archived-courses').locator('summary').click()
    await page.getByTestId('archived-courses').getByRole('link', { name: 'Operating Systems', exact: true }).waitFor()
    expectNoErrors(tab)
  }, 90_000)
})
