import { describe, expect, test } from 'bun:test'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { addStudent, insertCourse, insertPoint } from '../support/fixtures.ts'
import { signUp } from '../support/harness.ts'
import { DAY, HOUR, createHomework, plus } from '../support/reminders.ts'
import { expectAccessible, expectNoErrors, hasChromium, loginViaUi, openTab, waitForPath, serverAndBrowser } from './support.ts'

/*
 * Issue 12.2 in the browser: the red dot and the inbox count light up without a reload when a
 * reminder is delivered (the live stream; polling runs every 60 s only while the stream is down),
 * and the e-mail settings page works.
 */
describe.skipIf(!hasChromium)('web front end in Chromium: live updates and settings', () => {
  const ctx = serverAndBrowser()

  test('the red dot lights up without a reload when a reminder is delivered', async () => {
    const sql = ctx.server.deps.sql
    const [teacher, student] = await Promise.all([signUp(ctx.server.api, 'TEACHER'), signUp(ctx.server.api)])
    const course = await insertCourse(sql, teacher.id, 'Live course')
    await addStudent(sql, course.id, student.id)
    const { pointId } = await insertPoint(sql, course.id)
    const now = new Date()
    const startAt = plus(now, HOUR)
    await createHomework(sql, course.id, pointId, { title: 'Live homework', startAt, dueAt: plus(now, 3 * DAY) }, now)

    const tab = await openTab(ctx.browser, ctx.server.baseUrl)
    const { page } = tab
    // The page's stream events are recorded, so the test can wait for the stream's first counts.
    await page.addInitScript(() => {
      const seen: string[] = ((window as any).__streamEvents = [])
      const Original = window.EventSource
      window.EventSource = class extends Original {
        constructor(url: string | URL, init?: EventSourceInit) {
          super(url, init)
          this.addEventListener('counts', () => seen.push('counts'))
        }
      } as typeof EventSource
    })
    await page.goto('/login?next=/homeworks')
    await loginViaUi(page, student.username)
    await waitForPath(page, '/homeworks')
    expect(await page.getByTestId('reminder-dot').count()).toBe(0)
    // The stream is open (its first counts arrived) before the reminder goes out.
    await page.waitForFunction(() => (window as any).__streamEvents?.includes('counts'), undefined, { timeout: 10_000 })

    const sent = performance.now()
    await dispatch(sql, startAt)
    await page.getByTestId('reminder-dot').waitFor({ state: 'attached', timeout: 5000 })
    const latencyMs = Math.round(performance.now() - sent)
    expect(await page.getByTestId('unread-count').textContent()).toContain('1')
    expect(latencyMs).toBeLessThan(5000)
    console.log(`[e2e live] red dot ${latencyMs} ms after delivery`)

    // The inbox shows it without a reload either.
    await page.getByTestId('nav-messages').click()
    await page.getByText('New homework: Live homework').waitFor()
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)

  test('the settings page shows and saves the e-mail preferences', async () => {
    const student = await signUp(ctx.server.api)
    const tab = await openTab(ctx.browser, ctx.server.baseUrl)
    const { page } = tab
    await page.goto('/login?next=/settings')
    await loginViaUi(page, student.username)
    await waitForPath(page, '/settings')
    const announcements = page.getByLabel('Announcements')
    expect(await announcements.isChecked()).toBe(false)
    expect(await page.getByLabel('Homework reminders').isChecked()).toBe(true)
    await announcements.check()
    await page.getByText('Saved.').waitFor()
    const r = await ctx.server.api.get('/me/notification-preferences', { token: student.token })
    expect(r.data.email.ANNOUNCEMENT).toBe(true)
    await page.goto('/settings')
    await page.getByTestId('email-preferences').waitFor()
    expect(await page.getByLabel('Announcements').isChecked()).toBe(true)
    await expectAccessible(page, 'settings')
    if (process.env.SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/settings.png`, fullPage: true })
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)
})
