import { describe, test } from 'bun:test'
import { chineseFlow, pickOnLoginFlow, secondDeviceFlow } from './i18n-flow.ts'
import { hasChromium, serverAndBrowser } from './support.ts'

describe.skipIf(!hasChromium)('web front end in Chromium: Simplified Chinese', () => {
  const suite = serverAndBrowser()

  test('teacher and student: login, registration, course creation and joining, the course list and messages in Chinese; the language follows the account to another device, and a language picked on the login page is saved on an account without one', async () => {
    const env = { browser: suite.browser, baseUrl: suite.server.baseUrl, api: suite.server.api }
    const r = await chineseFlow(env)
    await r.teacher.context.close()
    await r.student.context.close()
    await secondDeviceFlow(env, r.studentName)
    await pickOnLoginFlow(env, r.teacherName)
  }, 180_000)
})
