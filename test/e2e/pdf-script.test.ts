import { describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { signUp, teacherWithCourse } from '../support/harness.ts'
import { scriptedPdf } from './scripted-pdf.ts'
import { expectNoErrors, hasChromium, loginViaUi, openTab, serverAndBrowser, waitForPath } from './support.ts'

/*
 * Issue 27, finding 5, in the browser: a PDF whose /OpenAction runs `app.alert(...)`, uploaded as
 * a course resource and as an experiment submission, opened from the app's own links. The
 * service serves PDFs as attachments with a sandbox CSP, so Chromium downloads them and its PDF
 * viewer (a chrome-extension frame, where the document's script would run) never opens.
 *
 * Checked against the old serving (PDFs inline, no CSP, put back for one run): the viewer frame
 * opened, nothing downloaded, and the page showed the document's dialog ("from the pdf"), so
 * this test failed on it. The viewer frame is asserted besides the dialog because a viewer that
 * opens the document at all is the condition for its script to run.
 */
describe.skipIf(!hasChromium)('a scripted PDF opened from the app (issue 27.5)', () => {
  const ctx = serverAndBrowser()

  /** Opens `href` in a new tab of `page`'s context as a person would; what the browser did. */
  async function open(page: Page, href: string) {
    const tab = await page.context().newPage()
    const dialogs: string[] = []
    tab.on('dialog', (d) => void (dialogs.push(d.message()), d.dismiss().catch(() => {})))
    const download = tab.waitForEvent('download', { timeout: 10_000 }).catch(() => null)
    await tab.goto(new URL(href, ctx.server.baseUrl).toString()).catch(() => {}) // "Download is starting" when it downloads
    const got = await download
    const viewer = page
      .context()
      .pages()
      .flatMap((p) => p.frames().map((f) => f.url()))
      .filter((u) => u.startsWith('chrome-extension://'))
    await tab.close()
    return { dialogs, downloaded: got?.suggestedFilename() ?? null, viewer }
  }

  test('as a resource and as an experiment submission: downloaded, no viewer, no dialog', async () => {
    const api = ctx.server.api
    const { teacher, courseId, inviteCode } = await teacherWithCourse(api, 'PDF course')
    const student = await signUp(api, 'STUDENT')
    expect((await api.post('/courses/join', { token: student.token, json: { inviteCode } })).status).toBe(200)
    const pdf = () => new File([scriptedPdf('from the pdf')], 'scripted.pdf', { type: 'application/pdf' })
    const resource = new FormData()
    resource.append('name', 'Scripted notes')
    resource.append('type', 'FILE')
    resource.append('file', pdf())
    expect((await api.post(`/courses/${courseId}/resources`, { token: teacher.token, form: resource })).status).toBe(201)
    const exp = await api.post(`/courses/${courseId}/experiments`, {
      token: teacher.token,
      json: { title: 'Scripted lab', description: '<p>x</p>', dueAt: new Date(Date.now() + 86_400_000).toISOString() },
    })
    expect(exp.status).toBe(201)
    const submission = new FormData()
    submission.append('file', pdf())
    expect((await api.post(`/experiments/${exp.data.id}/submissions`, { token: student.token, form: submission })).status).toBe(201)

    const t = await openTab(ctx.browser, ctx.server.baseUrl)
    const p = t.page
    const dialogs: string[] = []
    t.context.on('page', (tab) => tab.on('dialog', (d) => void dialogs.push(d.message())))
    p.on('dialog', (d) => void (dialogs.push(d.message()), d.dismiss().catch(() => {})))
    // The resource list's link, and the student's own submission on the experiment page.
    await p.goto(`/login?next=${encodeURIComponent(`/courses/${courseId}?module=resources`)}`)
    await loginViaUi(p, student.username)
    await waitForPath(p, `/courses/${courseId}`)
    const resourceLink = p.getByTestId('file-preview').filter({ hasText: 'Scripted notes' }).locator('a[download]')
    await resourceLink.waitFor().catch(async (e) => {
      throw new Error(`${e}\n${p.url()}\n${(await p.locator('main').innerText().catch(() => '')).slice(0, 500)}`)
    })
    const hrefs = [await resourceLink.getAttribute('href')]
    await p.goto(`/experiments/${exp.data.id}?courseId=${courseId}`)
    const submissionLink = p.getByTestId('file-preview').filter({ hasText: 'scripted.pdf' }).locator('a[download]').first()
    await submissionLink.waitFor()
    hrefs.push(await submissionLink.getAttribute('href'))
    for (const href of hrefs) {
      expect(href).toBeTruthy()
      const seen = await open(p, href!)
      expect(seen).toEqual({ dialogs: [], downloaded: 'scripted.pdf', viewer: [] })
    }
    expect(dialogs).toEqual([])
    expectNoErrors(t)
    await t.context.close()
  }, 90_000)
})
