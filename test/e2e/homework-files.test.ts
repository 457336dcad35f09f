import { beforeAll, describe, expect, test } from 'bun:test'
import { createPoint, createTask, createUnit, textTask } from '../learning/helpers.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, type Account } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, logInAs, openTab, PHONE, serverAndBrowser } from './support.ts'

/**
 * Issue 29.7 in Chromium at phone width: a student attaches photos to a homework (one removed
 * again before handing in), hands it in with a line of text, and sees the file listed; the
 * teacher finds it in grading with its preview and download.
 */
const TITLE = 'Worksheet 3: forces'

describe.skipIf(!hasChromium)('homework takes files (issue 29.7)', () => {
  let teacher: Account
  let student: Account
  let course: { id: string }
  let taskId: string

  const suite = serverAndBrowser()
  beforeAll(async () => {
    teacher = await signUp(suite.server.api, 'TEACHER', 'Prof. Lin')
    student = await signUp(suite.server.api, 'STUDENT', 'Sam Student')
    course = await insertCourse(suite.server.deps.sql, teacher.id, 'Mechanics')
    await addStudent(suite.server.deps.sql, course.id, student.id)
    const base = `/courses/${course.id}/learning`
    const unit = await createUnit(suite.server.api, base, teacher)
    const point = await createPoint(suite.server.api, base, teacher, unit.id)
    const task = await createTask(suite.server.api, base, teacher, point.id, {
      ...textTask,
      title: TITLE,
      taskKind: 'HOMEWORK',
      startAt: new Date(Date.now() - 3600_000).toISOString(),
      dueAt: new Date(Date.now() + 86400_000).toISOString(),
    })
    taskId = task.id
  }, 90_000)

  test('the student attaches photos (removing one), hands in; the teacher sees the file when grading', async () => {
    const st = await openTab(suite.browser, suite.server.baseUrl, { viewport: PHONE })
    suite.tabs.push(st)
    const sp = st.page
    await logInAs(sp, student)
    await sp.goto(`/courses/${course.id}?taskId=${taskId}`)
    const row = sp.locator('details.task', { hasText: TITLE })
    const picker = row.getByLabel('Files (optional)')
    await picker.waitFor()
    // A phone offers its camera for an input that accepts pictures.
    expect(await picker.getAttribute('accept')).toContain('image/*')
    expect(await picker.getAttribute('multiple')).not.toBeNull()
    await picker.setInputFiles([
      { name: 'page-1.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(3000, 1) },
      { name: 'blurry.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(2000, 2) },
    ])
    const chosen = row.getByTestId('chosen-files')
    await chosen.getByText('page-1.jpg').waitFor()
    await chosen.getByRole('button', { name: 'Remove blurry.jpg' }).click()
    await chosen.getByText('blurry.jpg').waitFor({ state: 'detached' })
    await expectAccessible(sp, 'homework with a chosen file')
    await row.getByRole('textbox', { name: 'Your answer' }).click()
    await sp.keyboard.type('Photo of my worksheet attached.')
    await row.getByRole('button', { name: 'Hand in' }).click()
    await row.getByTestId('quiz-result').waitFor()
    const mine = row.getByTestId('my-submission')
    await mine.getByTestId('handed-in-files').getByRole('link', { name: 'page-1.jpg' }).waitFor()
    expect(await mine.getByText('blurry.jpg').count()).toBe(0)
    expect(await sp.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
    const sheets = (await suite.server.api.get(`/courses/${course.id}/learning/tasks/${taskId}/submissions`, { token: student.token })).data.items
    expect(sheets.length).toBe(1)
    expect(sheets[0].files.map((f: any) => [f.fileName, f.fileSize])).toEqual([['page-1.jpg', 3000]])
    expectNoErrors(st)

    const tt = await openTab(suite.browser, suite.server.baseUrl)
    suite.tabs.push(tt)
    const tp = tt.page
    await logInAs(tp, teacher)
    await tp.goto(`/courses/${course.id}/manage?tab=grading`)
    await tp.getByLabel('What to grade').selectOption({ label: `${TITLE} (homework)` })
    const sub = tp.getByTestId('task-submission')
    await sub.getByText('Photo of my worksheet attached.').waitFor()
    const file = sub.getByTestId('handed-in-files')
    const link = file.getByRole('link', { name: 'page-1.jpg' })
    await link.waitFor()
    expect(await link.getAttribute('href')).toBe(sheets[0].files[0].fileUrl)
    await file.getByRole('button', { name: 'Preview' }).click()
    const img = file.locator('img.file-view')
    await img.waitFor()
    expect(await img.getAttribute('src')).toBe(`${sheets[0].files[0].fileUrl}?inline=1`)
    // The teacher's browser session downloads the very bytes.
    const bytes = await tp.evaluate(async (url) => Array.from(new Uint8Array(await (await fetch(url)).arrayBuffer())), sheets[0].files[0].fileUrl)
    expect(bytes).toEqual(Array.from(Buffer.alloc(3000, 1)))
    await expectAccessible(tp, 'grading a homework with a file')
    expectNoErrors(tt)
  }, 120_000)

  test('in Chinese: the picker, its limits and the handed-in file speak Chinese', async () => {
    await suite.server.api.patch('/auth/me', { token: student.token, json: { locale: 'zh-CN' } })
    const st = await openTab(suite.browser, suite.server.baseUrl, { viewport: PHONE })
    suite.tabs.push(st)
    const sp = st.page
    await logInAs(sp, student)
    await sp.goto(`/courses/${course.id}?taskId=${taskId}`)
    const row = sp.locator('details.task', { hasText: TITLE })
    await row.getByTestId('handed-in-files').getByText('提交的文件').waitFor()
    await row.getByTestId('submit-again').click()
    const picker = row.getByLabel('文件（可选）')
    await picker.waitFor()
    await row.getByText('最多 10 个文件：作业照片、PDF、文档均可。所有文件合计不能超过上传上限。').waitFor()
    await picker.setInputFiles(Array.from({ length: 11 }, (_, i) => ({ name: `p${i}.jpg`, mimeType: 'image/jpeg', buffer: Buffer.alloc(100 + i, 1) })))
    await row.getByText('最多 10 个文件，多出的已略过。').waitFor()
    expect(await row.getByTestId('chosen-files').locator('li').count()).toBe(10)
    await row.getByRole('button', { name: '移除 p0.jpg' }).waitFor()
    await expectAccessible(sp, 'homework files in Chinese')
    expectNoErrors(st)
  }, 120_000)
})
