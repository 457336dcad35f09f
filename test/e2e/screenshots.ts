/**
 * Writes docs/screenshots/*.png for the pages of docs/: `bun test/e2e/screenshots.ts`
 * (`bun test/e2e/screenshots.ts --zh`: only the Chinese ones, docs/screenshots/zh-*.png).
 * It walks the same journeys as the e2e tests against the real API.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { reminderJob } from '../../src/jobs.ts'
import { fullFlow, teacherToolsFlow, type FlowEnv } from './flows.ts'
import { chineseFlow } from './i18n-flow.ts'
import { hasChromium, launchBrowser, OffsetClock, openTab, startServer } from './support.ts'

const OUT = join(import.meta.dir, '../../docs/screenshots')

// Flow moment → file name (desktop). Phone-width shots are taken at the end.
const SHOTS: Record<string, string> = {
  'courses-teacher': 'courses-teacher',
  'manage-learning': 'manage-learning',
  'manage-new-task': 'manage-new-task',
  'homeworks-student': 'homework-centre',
  'workspace-student-answered': 'workspace-student-quiz',
  'manage-grading': 'manage-grading',
  'messages-student': 'messages',
  'manage-announcements': 'manage-announcements',
  'manage-modules': 'manage-modules',
  'manage-reminders': 'manage-reminders',
  'experiment-student': 'experiment-student',
  'manage-grades': 'manage-grades',
  'workspace-teacher': 'workspace-teacher',
}

if (!hasChromium) {
  console.error('Chromium is missing at /usr/bin/chromium; install it with apt-get install -y chromium.')
  process.exit(1)
}
mkdirSync(OUT, { recursive: true })

const clock = new OffsetClock()
const server = await startServer({ clock })
const browser = await launchBrowser()

const shoot = async (page: Page, file: string, fullPage = true) => {
  await page.screenshot({ path: join(OUT, `${file}.png`), fullPage })
  console.log(`  docs/screenshots/${file}.png`)
}

const env: FlowEnv = {
  browser,
  baseUrl: server.baseUrl,
  now: () => clock.now(),
  advanceAndDispatch: async (ms) => {
    clock.advance(ms)
    await reminderJob(server.deps).run(clock.now())
    return true
  },
  snapshot: async (page, name) => {
    if (SHOTS[name]) await shoot(page, SHOTS[name]!)
  },
}

const onlyChinese = process.argv.includes('--zh')

try {
  if (!onlyChinese) await englishShots()

  // The same service in Simplified Chinese (docs/screenshots/zh-*.png).
  const zh = await chineseFlow({
    browser,
    baseUrl: server.baseUrl,
    api: server.api,
    snapshot: async (page, name) => {
      if (['zh-login', 'zh-register', 'zh-courses-teacher', 'zh-messages'].includes(name)) await shoot(page, name, name !== 'zh-login')
    },
  })
  await zh.student.page.setViewportSize({ width: 390, height: 844 })
  await zh.student.page.goto('/messages')
  await zh.student.page.waitForLoadState('networkidle')
  await shoot(zh.student.page, 'zh-phone-messages', false)
} finally {
  await browser.close()
  await server.stop()
}
process.exit(0)

async function englishShots() {
  const login = await openTab(browser, server.baseUrl)
  await login.page.goto('/login?next=%2Fhomeworks')
  await login.page.getByRole('heading', { name: 'Log in' }).waitFor()
  await shoot(login.page, 'login', false)
  await login.context.close()

  const r = await fullFlow(env)
  await teacherToolsFlow(env, r)

  for (const [who, path, file] of [
    [r.student, `/courses/${r.courseId}`, 'phone-workspace'],
    [r.student, '/homeworks', 'phone-homework-centre'],
    [r.teacher, `/courses/${r.courseId}/manage?tab=learning`, 'phone-manage-learning'],
  ] as const) {
    await who.page.setViewportSize({ width: 390, height: 844 })
    await who.page.goto(path)
    await who.page.waitForLoadState('networkidle')
    await shoot(who.page, file, false)
  }
}
