import { beforeAll, describe, expect, test } from 'bun:test'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, type Account } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, logInAs, openTab, PHONE, serverAndBrowser } from './support.ts'

/**
 * Issue 29.7 in Chromium at phone width: a student hands in two photos and a PDF at once on the
 * experiment page; the page lists all three, each with its own download.
 */

describe.skipIf(!hasChromium)('several files in one submission (issue 29.7)', () => {
  let student: Account
  let course: { id: string }
  let experimentId: string

  const suite = serverAndBrowser()
  beforeAll(async () => {
    const teacher = await signUp(suite.server.api, 'TEACHER', 'Prof. Lin')
    student = await signUp(suite.server.api, 'STUDENT', 'Sam Student')
    course = await insertCourse(suite.server.deps.sql, teacher.id, 'Optics')
    await addStudent(suite.server.deps.sql, course.id, student.id)
    const r = await suite.server.api.post(`/courses/${course.id}/experiments`, {
      token: teacher.token,
      json: { title: 'Lens focal length', description: '<p>Photograph your set-up.</p>', dueAt: new Date(Date.now() + 86400_000).toISOString() },
    })
    experimentId = r.data.id
  }, 90_000)

  test('two phone photos and a PDF in one hand-in; all three listed', async () => {
    const t = await openTab(suite.browser, suite.server.baseUrl, { viewport: PHONE })
    suite.tabs.push(t)
    const p = t.page
    await logInAs(p, student)
    await p.goto(`/experiments/${experimentId}?courseId=${course.id}`)
    await p.getByLabel('File', { exact: true }).setInputFiles([
      { name: 'IMG_0001.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(3000, 1) },
      { name: 'IMG_0002.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(4000, 2) },
      { name: 'readings.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(2000, 3) },
    ])
    await p.getByText('IMG_0001.jpg, IMG_0002.jpg, readings.pdf (').waitFor()
    await p.getByRole('button', { name: 'Submit', exact: true }).click()
    const latest = p.getByTestId('experiment-latest')
    for (const name of ['IMG_0001.jpg', 'IMG_0002.jpg', 'readings.pdf']) await latest.getByText(name).first().waitFor()
    expect(await latest.getByTestId('file-preview').count()).toBe(3)
    const sub = (await suite.server.api.get(`/experiments/${experimentId}/submissions/latest`, { token: student.token })).data
    expect(sub.files.map((f: any) => f.fileName)).toEqual(['IMG_0001.jpg', 'IMG_0002.jpg', 'readings.pdf'])
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
    await expectAccessible(p, 'experiment with three files')
    expectNoErrors(t)
  })
})
