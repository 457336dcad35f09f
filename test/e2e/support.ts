import { afterAll, beforeAll } from 'bun:test'
import { existsSync } from 'node:fs'
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core'
import type { Clock } from '../../src/lib/clock.ts'
import { testApp, type TestContext } from '../support/harness.ts'

/** Debian's chromium; `.ci/run` installs it when test/e2e/.needs-chromium exists. Never downloaded by the tests. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
/** In CI the browser tests must run: a missing Chromium fails them instead of skipping them. */
export const requireChromium = ['1', 'true', 'yes'].includes((process.env.CI ?? '').toLowerCase())
if (!hasChromium && requireChromium) {
  throw new Error(`[e2e] ${CHROMIUM} is missing and CI is set: the browser tests cannot be skipped in CI. Install Debian's chromium (apt-get install -y chromium).`)
}
if (!hasChromium) {
  console.warn(`[e2e] ${CHROMIUM} is missing: browser tests are skipped. Install Debian's chromium (apt-get install -y chromium) to run them.`)
}

export interface Server extends TestContext {
  baseUrl: string
  stop(): Promise<void>
}

/** The real app (test harness deps, embedded or external database) listening on a free port. */
export async function startServer(opts: { clock?: Clock } = {}): Promise<Server> {
  const ctx = await testApp({ clock: opts.clock })
  const app = ctx.app.listen({ port: 0, hostname: '127.0.0.1' })
  const port = app.server!.port
  return {
    ...ctx,
    baseUrl: `http://127.0.0.1:${port}`,
    stop: async () => {
      await app.stop(true)
    },
  }
}

/**
 * The usual set-up of a browser test file: the real app on a free port and one Chromium,
 * started before its tests and stopped after them. Read `ctx.server` and `ctx.browser` in tests.
 */
export function serverAndBrowser(opts: { clock?: Clock } = {}) {
  const ctx = { tabs: [] } as unknown as BrowserSuite
  beforeAll(async () => {
    ctx.server = await startServer(opts)
    ctx.browser = await launchBrowser()
  }, 60_000)
  afterAll(async () => {
    for (const t of ctx.tabs) await t.context.close().catch(() => {})
    await ctx.browser?.close()
    await ctx.server?.stop()
  })
  return ctx
}

export interface BrowserSuite {
  server: Server
  browser: Browser
  /** Tabs to close after the file's tests (`loggedInTab` adds its tabs here). */
  tabs: Tab[]
}

/** A phone's viewport (the issue 29.10 tests' 390 px). */
export const PHONE = { width: 390, height: 844 }

/**
 * Opens /login, logs `who` in by the form's labels (the Chinese ones with `zh`) and waits for the
 * landing page (the course list unless `landing` says otherwise).
 */
export async function logInAs(page: Page, who: { username: string; password: string }, opts: { zh?: boolean; landing?: string | RegExp } = {}) {
  await page.goto('/login')
  if (opts.zh) {
    await page.getByLabel('用户名或邮箱').fill(who.username)
    await page.getByLabel('密码').fill(who.password)
    await page.getByRole('button', { name: '登录' }).click()
  } else await loginViaUi(page, who.username, who.password)
  await page.waitForURL(opts.landing ?? '**/courses')
}

/** Logs `who` in by the login form's inputs, whatever the page's language, and waits for the course list. */
export async function logIn(page: Page, who: { username: string; password: string }) {
  await page.goto('/login')
  await page.locator('input').first().fill(who.username)
  await page.locator('input[type="password"]').fill(who.password)
  await page.locator('button[type="submit"]').click()
  await page.waitForURL('**/courses')
}

/**
 * A new tab of the suite (closed after the file) with `who` logged in (`logInAs`): in Chinese
 * labels and the zh-CN locale with `zh`, at `viewport` (desktop by default).
 */
export async function loggedInTab(
  suite: BrowserSuite,
  who: { username: string; password: string },
  opts: { viewport?: { width: number; height: number }; zh?: boolean; locale?: string; landing?: string | RegExp } = {},
): Promise<Tab> {
  const t = await openTab(suite.browser, suite.server.baseUrl, { viewport: opts.viewport, locale: opts.locale ?? (opts.zh ? 'zh-CN' : undefined) })
  suite.tabs.push(t)
  await logInAs(t.page, who, { zh: opts.zh, landing: opts.landing })
  return t
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
  })
}

export interface Tab {
  context: BrowserContext
  page: Page
  /** Uncaught exceptions and console errors, collected for the whole life of the tab. */
  errors: string[]
}

/**
 * Chromium logs every 4xx answer of a fetch as a console error ("Failed to load resource").
 * Those are expected API outcomes (a 401 before login, a 404 for an unknown id), not script
 * errors, so they alone are tolerated; anything else on the console fails the test.
 */
function tolerated(msg: ConsoleMessage, allowDocument404: boolean) {
  const text = msg.text()
  const url = msg.location()?.url ?? ''
  if (!/^Failed to load resource: the server responded with a status of 4\d\d/.test(text)) return false
  if (url.includes('/core/api/v1/')) return true
  return allowDocument404 && !url.includes('/assets/')
}

export async function openTab(
  browser: Browser,
  baseUrl: string,
  opts: { viewport?: { width: number; height: number }; allowDocument404?: boolean; locale?: string; timezoneId?: string } = {},
): Promise<Tab> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: opts.viewport ?? { width: 1280, height: 860 },
    locale: opts.locale ?? 'en-GB',
    timezoneId: opts.timezoneId ?? 'UTC',
  })
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !tolerated(msg, Boolean(opts.allowDocument404))) errors.push(`console.error: ${msg.text()} (${msg.location()?.url ?? ''})`)
  })
  page.setDefaultTimeout(15_000)
  return { context, page, errors }
}

const AXE_SOURCE = await Bun.file(Bun.resolveSync('axe-core/axe.min.js', import.meta.dir)).text()

export interface AxeViolation {
  id: string
  impact: string
  help: string
  nodes: string[]
}

/**
 * Runs axe-core in the page and returns its serious and critical violations. The source is
 * evaluated through the DevTools protocol, which the page's CSP (no inline scripts) allows.
 */
export async function seriousA11yViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate('typeof window.axe')
  if (loaded === 'undefined') await page.evaluate(AXE_SOURCE)
  const result = (await page.evaluate(`window.axe.run(document, { resultTypes: ['violations'] })`)) as {
    violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[]
  }
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }))
}

/** Runs axe and throws with a readable list when anything serious or critical is found. */
export async function expectAccessible(page: Page, label: string) {
  const violations = await seriousA11yViolations(page)
  if (violations.length) {
    throw new Error(`Accessibility violations on ${label} (${page.url()}):\n${violations.map((v) => `  [${v.impact}] ${v.id}: ${v.help}\n    ${v.nodes.join('\n    ')}`).join('\n')}`)
  }
}

export function expectNoErrors(tab: Tab) {
  if (tab.errors.length) throw new Error(`Browser errors:\n  ${tab.errors.join('\n  ')}`)
}

let n = 0
export const uniqueName = (prefix: string) => `${prefix}${Date.now().toString(36)}${(n++).toString(36)}${Math.random().toString(36).slice(2, 5)}`

export const PASSWORD = 'correct horse battery'

export async function registerViaUi(page: Page, o: { username: string; role: 'STUDENT' | 'TEACHER'; displayName?: string }) {
  await page.goto('/register')
  await page.getByLabel('Username').fill(o.username)
  await page.getByLabel('Email').fill(`${o.username}@example.test`)
  if (o.displayName) await page.getByLabel('Display name').fill(o.displayName)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Repeat password').fill(PASSWORD)
  await page.getByLabel(o.role === 'TEACHER' ? 'Teacher' : 'Student', { exact: true }).check()
  await page.getByRole('button', { name: 'Create account' }).click()
}

/**
 * Waits until the page is at `path` (path name only). A glob such as '**\/settings' also matches
 * '/login?next=/settings', so it returns before the login has happened.
 */
export async function waitForPath(page: Page, path: string) {
  await page.waitForURL((url) => url.pathname === path)
}

export async function loginViaUi(page: Page, identifier: string, password = PASSWORD) {
  await page.getByLabel('Username or email').fill(identifier)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Log in' }).click()
}

const ID = '00000000-0000-7000-8000-000000000000'

/** The routes the issue's journey (fullFlow) drives. */
export class OffsetClock {
  offsetMs = 0
  now() {
    return new Date(Date.now() + this.offsetMs)
  }
  advance(ms: number) {
    this.offsetMs += ms
  }
}
