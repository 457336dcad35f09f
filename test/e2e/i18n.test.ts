import { afterAll, beforeAll, describe, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { chineseFlow, pickOnLoginFlow, secondDeviceFlow } from './i18n-flow.ts'
import { hasChromium, launchBrowser, startServer, type Server } from './support.ts'

describe.skipIf(!hasChromium)('web front end in Chromium: Simplified Chinese', () => {
  let server: Server
  let browser: Browser

  beforeAll(async () => {
    server = await startServer()
    browser = await launchBrowser()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  test('teacher and student: login, registration, course creation and joining, the course list and messages in Chinese; the language follows the account to another device, and a language picked on the login page is saved on an account without one', async () => {
    const env = { browser, baseUrl: server.baseUrl, api: server.api }
    const r = await chineseFlow(env)
    await r.teacher.context.close()
    await r.student.context.close()
    await secondDeviceFlow(env, r.studentName)
    await pickOnLoginFlow(env, r.teacherName)
  }, 180_000)
})
