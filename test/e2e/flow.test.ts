import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { reminderJob } from '../../src/jobs.ts'
import { fullFlow, teacherToolsFlow, type FlowEnv, type FlowResult } from './flows.ts'
import { expectAccessible, expectNoErrors, hasChromium, launchBrowser, OffsetClock, openTab, registerViaUi, startServer, uniqueName, type Server } from './support.ts'

/**
 * Every page, driven in Chromium against the real service: the journey, the teacher
 * tools, the permission hints and phone width, with axe and console checks on every page.
 */
describe.skipIf(!hasChromium)('web front end in Chromium against the real API', () => {
  let server: Server
  let browser: Browser
  let env: FlowEnv
  let result: FlowResult | undefined
  const clock = new OffsetClock()

  beforeAll(async () => {
    server = await startServer({ clock })
    browser = await launchBrowser()
    env = {
      browser,
      baseUrl: server.baseUrl,
      now: () => clock.now(),
      advanceAndDispatch: async (ms) => {
        clock.advance(ms)
        // The reminder scan is a scheduled job; the test runs it directly at the moved clock.
        await reminderJob(server.deps).run(clock.now())
        return true
      },
    }
  }, 60_000)

  afterAll(async () => {
    await result?.teacher.context.close()
    await result?.student.context.close()
    await browser?.close()
    await server?.stop()
  })

  test('teacher creates a course and a homework quiz; student joins, answers, sees the auto score; teacher grades; student sees score, red dot, notification and marks it read', async () => {
    result = await fullFlow(env)
    expect(result.courseId).toMatch(/^[0-9a-f-]{36}$/)
    expect(result.reminderDispatched).toBe(true)
  }, 180_000)

  test('teacher tools: announcements, drag-and-drop order, modules, resources, experiments, reminders, grades', async () => {
    expect(result).toBeDefined()
    await teacherToolsFlow(env, result!)
  }, 180_000)

  test('a student cannot manage a course: the page explains it', async () => {
    const page = result!.student.page
    await page.goto(`/courses/${result!.courseId}/manage`)
    await page.getByText("Only the course's teacher can manage it.").waitFor()
    await expectAccessible(page, 'manage as student')
    expectNoErrors(result!.student)
  }, 60_000)

  test('a course the person is not in shows an understandable 403 hint', async () => {
    const t = await openTab(browser, server.baseUrl)
    await registerViaUi(t.page, { username: uniqueName('out'), role: 'STUDENT' })
    await t.page.waitForURL('**/courses')
    await t.page.goto(`/courses/${result!.courseId}`)
    await t.page.getByText("You don't have access to this.").waitFor()
    await expectAccessible(t.page, 'course 403')
    expectNoErrors(t)
    await t.context.close()
  }, 60_000)

  test('phone width: every main page fits without sideways scrolling and stays accessible', async () => {
    const paths = [`/courses`, `/courses/${result!.courseId}`, `/courses/${result!.courseId}/manage?tab=learning`, `/courses/${result!.courseId}/manage?tab=grades`, '/homeworks', '/messages']
    for (const who of [result!.teacher, result!.student]) {
      await who.page.setViewportSize({ width: 375, height: 800 })
      for (const path of paths) {
        await who.page.goto(path)
        await who.page.waitForLoadState('networkidle')
        await who.page.locator('h1').first().waitFor()
        const overflow = await who.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        expect({ path, overflow }).toEqual({ path, overflow: 0 })
        await expectAccessible(who.page, `${path} at phone width`)
      }
      expectNoErrors(who)
    }
  }, 120_000)
})
