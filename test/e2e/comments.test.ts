import { beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { createPoint, createTask, createUnit, textTask } from '../learning/helpers.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, type Account } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, logInAs, openTab, serverAndBrowser } from './support.ts'

/*
 * Issue 53 in Chromium: a student asks under a homework, privately and in class; the teacher
 * answers the private question beside the student's work in grading and the class one under
 * the task; both answers reach the student's open page without a reload (the live stream).
 * Then the same thread at phone width in Chinese.
 */
describe.skipIf(!hasChromium)('web front end in Chromium: comments', () => {
  let teacher: Account, alice: Account
  let courseId: string, taskId: string

  const suite = serverAndBrowser()
  beforeAll(async () => {
    const { api, deps } = suite.server
    ;[teacher, alice] = await Promise.all([signUp(api, 'TEACHER', 'Tess Teacher'), signUp(api, 'STUDENT', 'Alice Wang')])
    courseId = (await insertCourse(deps.sql, teacher.id, 'Mechanics')).id
    await addStudent(deps.sql, courseId, alice.id)
    const base = `/courses/${courseId}/learning`
    const unit = await createUnit(api, base, teacher, 'Oscillations')
    const point = await createPoint(api, base, teacher, unit.id, 'Pendulum')
    const now = Date.now()
    taskId = (await createTask(api, base, teacher, point.id, {
      title: 'Essay',
      ...textTask,
      taskKind: 'HOMEWORK',
      startAt: new Date(now - 3600_000).toISOString(),
      dueAt: new Date(now + 86_400_000).toISOString(),
    })).id
  }, 60_000)

  async function tabFor(who: Account, opts: { viewport?: { width: number; height: number }; zh?: boolean } = {}) {
    const tab = await openTab(suite.browser, suite.server.baseUrl, opts.viewport ? { viewport: opts.viewport } : {})
    suite.tabs.push(tab)
    if (opts.zh) await tab.context.addInitScript(() => localStorage.setItem('cls.locale', 'zh-CN'))
    await logInAs(tab.page, who, { zh: opts.zh, landing: /\/(courses|homeworks)/ })
    return tab
  }
  const block = (p: Page, kind: 'class' | 'private') => p.locator(`.task[data-task-id="${taskId}"] [data-comments="${kind}"], [data-comments="${kind}"]`).first()
  const post = async (p: Page, kind: 'class' | 'private', text: string) => {
    const b = block(p, kind)
    if (!(await b.evaluate((d) => (d as HTMLDetailsElement).open))) await b.locator('summary').click()
    await b.locator('textarea').fill(text)
    await b.getByRole('button', { name: /Post|发表/ }).click()
    await b.locator('.comment').filter({ hasText: text }).waitFor()
  }

  test('a student asks privately and in class; the teacher answers both; the answers arrive live', async () => {
    const s = await tabFor(alice)
    await s.page.goto(`/courses/${courseId}?taskId=${taskId}`)
    await block(s.page, 'private').waitFor()
    await post(s.page, 'private', 'Is a diagram required?')
    await post(s.page, 'class', 'Which chapter does the essay cover?')
    await expectAccessible(s.page, 'task with comment threads (student)')

    // The teacher: the private thread beside Alice's work in grading.
    const t = await tabFor(teacher)
    await t.page.goto(`/courses/${courseId}/manage?tab=grading&taskId=${taskId}&student=${alice.id}`)
    const priv = block(t.page, 'private')
    await priv.locator('.comment').filter({ hasText: 'Is a diagram required?' }).waitFor()
    expect(await priv.getByText('Only Alice Wang and the course’s teachers see these.').count()).toBe(1)
    await post(t.page, 'private', 'Yes, one labelled diagram.')
    await expectAccessible(t.page, 'grading with the private thread')

    // ...and the class question under the task in the workspace.
    await t.page.goto(`/courses/${courseId}?taskId=${taskId}`)
    const cls = block(t.page, 'class')
    await cls.locator('summary').click()
    await cls.locator('.comment').filter({ hasText: 'Which chapter does the essay cover?' }).waitFor()
    await post(t.page, 'class', 'Chapter 3.')
    // A teacher moderates class comments: hide is offered, on the student's comment too.
    expect(await cls.locator('.comment').filter({ hasText: 'Which chapter' }).getByRole('button', { name: 'Hide from students' }).count()).toBe(1)

    // Alice's page, never reloaded, shows both answers (her notifications woke the threads).
    await block(s.page, 'private').locator('.comment').filter({ hasText: 'Yes, one labelled diagram.' }).waitFor({ timeout: 10_000 })
    await block(s.page, 'class').locator('.comment').filter({ hasText: 'Chapter 3.' }).waitFor({ timeout: 10_000 })
    expect(await block(s.page, 'class').locator('.comment').filter({ hasText: 'Chapter 3.' }).getByText('Teacher', { exact: true }).count()).toBe(1)
    // Her own comment can be edited (within 15 minutes); the teacher's cannot.
    expect(await block(s.page, 'private').locator('.comment').filter({ hasText: 'Is a diagram' }).getByRole('button', { name: 'Edit' }).count()).toBe(1)
    expect(await block(s.page, 'private').locator('.comment').filter({ hasText: 'Yes, one' }).getByRole('button', { name: 'Edit' }).count()).toBe(0)
    expectNoErrors(s)
    expectNoErrors(t)
  }, 90_000)

  test('the threads at phone width, in Chinese: nothing wider than the screen', async () => {
    const s = await tabFor(alice, { viewport: { width: 390, height: 844 }, zh: true })
    await s.page.goto(`/courses/${courseId}?taskId=${taskId}`)
    const priv = block(s.page, 'private')
    await priv.waitFor()
    if (!(await priv.evaluate((d) => (d as HTMLDetailsElement).open))) await priv.locator('summary').click()
    await priv.getByText('只有你和本课程的教师能看到这些评论。').waitFor()
    await priv.locator('.comment').filter({ hasText: 'Yes, one labelled diagram.' }).waitFor()
    const overflow = await s.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await expectAccessible(s.page, 'comments at 390 px in Chinese')
    expectNoErrors(s)
  }, 60_000)
})
