import { describe, expect, test } from 'bun:test'
import type { Page, Route } from 'playwright-core'
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

  /**
   * A student of a course whose homework opens in an hour, and a tab that records the counts its
   * live stream receives (`window.__streamCounts`), so a test can wait for the stream's first.
   */
  async function homeworkAnHourAway(title: string) {
    const sql = ctx.server.deps.sql
    const [teacher, student] = await Promise.all([signUp(ctx.server.api, 'TEACHER'), signUp(ctx.server.api)])
    const course = await insertCourse(sql, teacher.id, `${title} course`)
    await addStudent(sql, course.id, student.id)
    const { pointId } = await insertPoint(sql, course.id)
    const now = new Date()
    const startAt = plus(now, HOUR)
    await createHomework(sql, course.id, pointId, { title, startAt, dueAt: plus(now, 3 * DAY) }, now)
    const tab = await openTab(ctx.browser, ctx.server.baseUrl)
    await tab.page.addInitScript(() => {
      const seen: unknown[] = ((window as any).__streamCounts = [])
      const Original = window.EventSource
      window.EventSource = class extends Original {
        constructor(url: string | URL, init?: EventSourceInit) {
          super(url, init)
          this.addEventListener('counts', (e) => seen.push(JSON.parse((e as MessageEvent).data)))
        }
      } as typeof EventSource
    })
    return { sql, student, startAt, tab, page: tab.page }
  }

  const firstCounts = (page: Page) => page.waitForFunction(() => (window as any).__streamCounts?.length > 0, undefined, { timeout: 10_000 })

  test('the red dot lights up without a reload when a reminder is delivered', async () => {
    const { sql, student, startAt, tab, page } = await homeworkAnHourAway('Live homework')
    await page.goto('/login?next=/homeworks')
    await loginViaUi(page, student.username)
    await waitForPath(page, '/homeworks')
    expect(await page.getByTestId('reminder-dot').count()).toBe(0)
    // The stream is open (its first counts arrived) before the reminder goes out.
    await firstCounts(page)

    const sent = performance.now()
    await dispatch(sql, startAt)
    await page.getByTestId('reminder-dot').waitFor({ state: 'attached', timeout: 5000 })
    const latencyMs = Math.round(performance.now() - sent)
    // The count is another query than the dot's list: read it once it is shown.
    await page.getByTestId('unread-count').getByText('1', { exact: false }).waitFor({ timeout: 5000 })
    expect(latencyMs).toBeLessThan(5000)
    console.log(`[e2e live] red dot ${latencyMs} ms after delivery`)

    // The inbox shows it without a reload either.
    await page.getByTestId('nav-messages').click()
    await page.getByText('New homework: Live homework').waitFor()
    expectNoErrors(tab)
    await tab.context.close()
  }, 60_000)

  test('a reminder delivered while the homework list and the count are still loading lights the dot once they load', async () => {
    // The lists' answers were written before the reminder went out and reach the page after its
    // counts: they must not put the old counts back (before, the dot never lit: nothing to set
    // the count on while the list loaded, then the old answer landed and the stream had spoken).
    const { sql, student, startAt, tab, page } = await homeworkAnHourAway('Slow list homework')
    // Until released, each answer of the homework list and of the unread count is fetched from
    // the service at once (before the reminder) and handed to the page later.
    let release!: () => void
    const released = new Promise<void>((r) => (release = r))
    let holding = true
    let answered!: () => void
    const firstAnswered = new Promise<void>((r) => (answered = r))
    const hold = async (route: Route) => {
      // Answers fetched once one is held are fresh ones (made again): let them through.
      if (!holding) return route.continue()
      const response = await route.fetch()
      answered()
      await released
      await route.fulfill({ response })
    }
    await page.route('**/core/api/v1/homeworks/mine**', hold)
    await page.route('**/core/api/v1/notifications?unreadOnly=true*', hold)
    await page.goto('/login?next=/homeworks')
    await loginViaUi(page, student.username)
    await waitForPath(page, '/homeworks')
    await firstCounts(page)
    await firstAnswered
    holding = false

    await dispatch(sql, startAt)
    await page.waitForFunction(() => (window as any).__streamCounts.some((c: { unreadReminderCount: number }) => c.unreadReminderCount === 1), undefined, { timeout: 10_000 })
    release()
    await page.getByTestId('reminder-dot').waitFor({ state: 'attached', timeout: 5000 })
    await page.getByTestId('unread-count').getByText('1', { exact: false }).waitFor({ timeout: 5000 })
    await page.getByText('Slow list homework', { exact: true }).first().waitFor()
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
