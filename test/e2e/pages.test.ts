import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { FakeApi } from './fake-api.ts'
import { fullFlow, teacherToolsFlow, type FlowEnv, type FlowResult } from './flows.ts'
import { expectAccessible, expectNoErrors, hasChromium, launchBrowser, openTab, registerViaUi, startServer, uniqueName, type Server } from './support.ts'

/**
 * Every page, driven in Chromium against the real server with the in-browser fake of the API
 * routes that other branches are still building (fake-api.ts). The same journeys run against the
 * real API in flow.test.ts once it is merged.
 */
describe.skipIf(!hasChromium)('web front end in Chromium: every page (fake course API)', () => {
  let server: Server
  let browser: Browser
  let fake: FakeApi
  let env: FlowEnv
  let result: FlowResult | undefined

  beforeAll(async () => {
    server = await startServer()
    browser = await launchBrowser()
    fake = new FakeApi(server.baseUrl)
    env = {
      browser,
      baseUrl: server.baseUrl,
      prepare: (context) => fake.install(context),
      now: () => fake.now(),
      advanceAndDispatch: async (ms) => {
        fake.offsetMs += ms
        fake.dispatchReminders()
        return true
      },
    }
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  test('teacher creates a course and a homework quiz; student joins, answers, is graded, reads the notification', async () => {
    result = await fullFlow(env)
    expect(result.reminderDispatched).toBe(true)
  }, 120_000)

  test("teacher tools: announcements, drag-and-drop order, modules, resources, experiments, reminders, grades", async () => {
    expect(result).toBeDefined()
    await teacherToolsFlow(env, result!)
  }, 120_000)

  test('a student cannot manage a course: the page explains it', async () => {
    const page = result!.student.page
    await page.goto(`/courses/${result!.courseId}/manage`)
    await page.getByText("Only the course's teacher can manage it.").waitFor()
    await expectAccessible(page, 'manage as student')
    expectNoErrors(result!.student)
  }, 60_000)

  test('a course the person is not in shows an understandable 403 hint', async () => {
    const t = await openTab(browser, server.baseUrl)
    await fake.install(t.context)
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
