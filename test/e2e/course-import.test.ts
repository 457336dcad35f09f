import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { signUp, type Account } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, logInAs, openTab, serverAndBrowser } from './support.ts'

setDefaultTimeout(90_000)

/**
 * Issue 51 in Chromium: a teacher imports a real Canvas Common Cartridge (test/fixtures/import/)
 * from "Import a course", watches it finish, reads the report (what was skipped and why), opens
 * the course, and finds "Export" on the course's settings.
 */
describe.skipIf(!hasChromium)('course import in Chromium', () => {
  let teacher: Account

  const suite = serverAndBrowser()
  beforeAll(async () => {
    teacher = await signUp(suite.server.api, 'TEACHER', 'Prof. Import')
  }, 120_000)

  test('import a cartridge, read the report, open the course, find Export', async () => {
    const tab = await openTab(suite.browser, suite.server.baseUrl)
    suite.tabs.push(tab)
    const { page } = tab
    await logInAs(page, teacher)
    const form = page.getByTestId('import-course')
    await form.getByLabel('Course package').setInputFiles(join(import.meta.dir, '..', 'fixtures', 'import', 'canvas-cc2olx.imscc'))
    await form.getByLabel('Move every date by (days)').fill('30')
    await form.getByRole('button', { name: 'Import' }).click()
    const report = page.getByTestId('import-report')
    await report.getByText('Imported.', { exact: true }).waitFor({ timeout: 60_000 })
    expect(await report.getByTestId('import-created').textContent()).toMatch(/^Created: 2 units, \d+ knowledge points, \d+ tasks/)
    const skipped = report.getByTestId('import-skipped')
    expect(await skipped.getByRole('row', { name: /Discussion\s+Discussions have no equivalent here\./ }).count()).toBe(1)
    expect(await skipped.getByRole('row', { name: /LTI\s+An LTI link needs a tool registered here/ }).count()).toBeGreaterThan(0)
    await expectAccessible(page, 'course list with an import report')
    await report.getByRole('link', { name: 'Open the imported course' }).click()
    await page.waitForURL('**/manage**')
    await page.goto(`${new URL(page.url()).pathname}?tab=settings`)
    const exportLink = page.getByTestId('export-course')
    await exportLink.waitFor()
    await expectAccessible(page, 'course settings with Export')
    const href = await exportLink.getAttribute('href')
    expect(href).toMatch(/^\/core\/api\/v1\/courses\/[0-9a-f-]+\/export\.imscc$/)
    const res = await page.request.get(href!)
    expect(res.status()).toBe(200)
    expect((await res.body()).subarray(0, 2).toString()).toBe('PK')
    expectNoErrors(tab)
  })
})
