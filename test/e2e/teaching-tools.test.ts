import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { ConsoleMessage, Page } from 'playwright-core'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, type Account } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, logInAs, openTab, PASSWORD, PHONE, serverAndBrowser } from './support.ts'

// A browser test is many page loads: Bun's 5 s per test is too short on a loaded machine.
setDefaultTimeout(90_000)

/**
 * Issue 56 in Chromium, the teacher's tools and the shell:
 * 4. announcements: a draft (marked, hidden from students, nobody notified) published later
 *    with one notification each; a scheduled one published by the publisher job; (5h) the
 *    "saved" message goes once the next one is typed;
 * 5e. the homework form names its instructions; 5i. no linkifyjs warnings with two editors;
 * 5d. sessions read "Chrome on Linux", not a raw User-Agent;
 * 5f. at 390 px the course tabs start at their first tab and "No file chosen" is whole;
 * 5g. a page whose code cannot load (the server is down) keeps the header, with a reload.
 */
const DESKTOP = { width: 1280, height: 860 }
const localInput = (d: Date) => d.toISOString().slice(0, 16) // the browser runs in UTC (openTab)

describe.skipIf(!hasChromium)('teaching tools (issue 56) in Chromium', () => {
  let teacher: Account, sam: Account, mei: Account
  let course: { id: string }
  const warnings: string[] = []

  const suite = serverAndBrowser()
  beforeAll(async () => {
    ;[teacher, sam, mei] = await Promise.all([signUp(suite.server.api, 'TEACHER', 'Prof. Lin'), signUp(suite.server.api, 'STUDENT', 'Sam Student'), signUp(suite.server.api, 'STUDENT', 'Mei Student')])
    course = await insertCourse(suite.server.deps.sql, teacher.id, 'Thermodynamics')
    for (const s of [sam, mei]) await addStudent(suite.server.deps.sql, course.id, s.id)
  }, 120_000)

  async function tabOf(who: Account, opts: { phone?: boolean; zh?: boolean } = {}) {
    const t = await openTab(suite.browser, suite.server.baseUrl, { viewport: opts.phone ? PHONE : DESKTOP, ...(opts.zh ? { locale: 'zh-CN' } : {}) })
    suite.tabs.push(t)
    t.page.on('console', (m: ConsoleMessage) => {
      if (m.type() === 'warning') warnings.push(m.text())
    })
    await logInAs(t.page, who, { zh: opts.zh })
    return t
  }
  const notices = async (title: string) =>
    (await suite.server.deps.sql<{ n: number }[]>`select count(*)::int as n from notifications where notification_type = 'ANNOUNCEMENT' and params ->> 'courseId' = ${course.id} and params ->> 'announcementTitle' = ${title}`)[0]!.n
  const studentSees = async (p: Page, title: string) => {
    await p.goto(`/courses/${course.id}?module=announcements`)
    await p.locator('#section-announcements').waitFor()
    await p.waitForLoadState('networkidle')
    return (await p.getByRole('heading', { name: title }).count()) > 0
  }
  const row = (p: Page, title: string) => p.getByTestId('announcement').filter({ has: p.getByRole('heading', { name: title }) })

  test('4 + 5h: a draft announcement is marked, hidden and silent until published now, then notifies once (desktop en)', async () => {
    const tt = await tabOf(teacher)
    const tp = tt.page
    const dialogs: string[] = []
    tp.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.accept()
    })
    await tp.goto(`/courses/${course.id}/manage?tab=announcements`)
    await tp.getByLabel('Title').fill('Exam rules')
    await tp.getByRole('textbox', { name: 'Message' }).click()
    await tp.keyboard.type('Bring a pencil.')
    await tp.getByLabel('Save as draft').check()
    await tp.getByRole('button', { name: 'Save draft' }).click()
    await tp.getByText('Draft saved. Students do not see it.').waitFor()
    expect(dialogs).toEqual([])
    expect(await row(tp, 'Exam rules').getByTestId('publish-state').getAttribute('data-state')).toBe('DRAFT')
    await expectAccessible(tp, 'announcements with a draft')
    // 5h: the message belongs to the last save; typing the next one takes it away.
    await tp.getByLabel('Title').fill('Next one')
    await tp.getByText('Draft saved. Students do not see it.').waitFor({ state: 'detached' })

    const st = await tabOf(sam, { phone: true })
    expect(await studentSees(st.page, 'Exam rules')).toBe(false)
    expect(await notices('Exam rules')).toBe(0)

    await row(tp, 'Exam rules').getByRole('button', { name: 'Publish now: Exam rules' }).click()
    await row(tp, 'Exam rules').getByTestId('publish-state').waitFor({ state: 'detached' })
    expect(dialogs).toEqual(['Publish this announcement? 2 students will be notified.'])
    expect(await studentSees(st.page, 'Exam rules')).toBe(true)
    expect(await notices('Exam rules')).toBe(2)
    expectNoErrors(tt)
    expectNoErrors(st)
  })

  test('4: a scheduled announcement (phone zh) appears for students when the publisher runs, notified once', async () => {
    const tt = await tabOf(teacher, { phone: true, zh: true })
    const tp = tt.page
    await tp.goto(`/courses/${course.id}/manage?tab=announcements`)
    await tp.getByLabel('标题', { exact: true }).fill('第二周开始')
    await tp.getByRole('textbox', { name: '内容' }).click()
    await tp.keyboard.type('请阅读第二章。')
    await tp.getByRole('radio', { name: '定时发布' }).check()
    const at = new Date(Date.now() + 2 * 3600_000)
    await tp.getByLabel('发布时间').fill(localInput(at))
    await tp.getByRole('button', { name: '定时发布' }).click()
    await row(tp, '第二周开始').getByTestId('publish-state').waitFor()
    expect(await row(tp, '第二周开始').getByTestId('publish-state').getAttribute('data-state')).toBe('SCHEDULED')
    expect(await tp.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
    await expectAccessible(tp, 'announcements with a scheduled one (phone, zh)')

    const st = await tabOf(mei, { zh: true })
    expect(await studentSees(st.page, '第二周开始')).toBe(false)
    const { publishScheduledAnnouncements } = await import('../../src/modules/announcements/service.ts')
    expect(await publishScheduledAnnouncements(suite.server.deps.sql, new Date(at.getTime() + 1000), suite.server.deps.channels)).toEqual({ published: 1 })
    expect(await studentSees(st.page, '第二周开始')).toBe(true)
    expect(await notices('第二周开始')).toBe(2)
    expectNoErrors(tt)
    expectNoErrors(st)
  })

  test('5i + 5e: two editors on a page log no linkifyjs warning; the homework form names its instructions', async () => {
    const tt = await tabOf(teacher)
    const tp = tt.page
    const posted = await suite.server.api.post(`/courses/${course.id}/announcements`, { token: teacher.token, json: { title: 'Lab safety', content: '<p>Goggles on.</p>' } })
    expect(posted.status).toBe(201)
    // The announcements tab has its editor; an edit form opens a second one.
    await tp.goto(`/courses/${course.id}/manage?tab=announcements`)
    await tp.getByRole('textbox', { name: 'Message' }).click()
    // Typing a link runs linkify (autolink); an editor created after that used to warn.
    await tp.keyboard.type('See https://example.org for the rules. ')
    await tp.getByRole('button', { name: 'Edit announcement Lab safety' }).click()
    await tp.getByRole('textbox', { name: 'Message' }).nth(1).waitFor()
    expect(warnings.filter((w) => /linkify/i.test(w))).toEqual([])

    const unit = (await suite.server.api.post(`/courses/${course.id}/learning/units`, { token: teacher.token, json: { title: 'Heat' } })).data
    await suite.server.api.post(`/courses/${course.id}/learning/units/${unit.id}/points`, { token: teacher.token, json: { title: 'Temperature' } })
    await tp.goto(`/courses/${course.id}/manage?tab=learning`)
    await tp.getByRole('button', { name: /^Add task/ }).click()
    const form = tp.getByRole('form', { name: 'New task' })
    await form.getByLabel('Homework', { exact: true }).check()
    await form.getByLabel('Instructions given as').waitFor()
    expect(await form.getByLabel('Instructions given as').locator('option:checked').innerText()).toBe('Text written here')
    await form.getByRole('textbox', { name: 'Instructions' }).waitFor()
    expect(await form.getByRole('textbox', { name: 'Text', exact: true }).count()).toBe(0)
    expectNoErrors(tt)
  })

  test('5d: sessions are named by browser and system, in English and Chinese', async () => {
    // A session from a program: Bun's fetch says "Bun/1.4.5".
    const login = await fetch(`${suite.server.baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: teacher.username, password: PASSWORD }),
    })
    expect(login.status).toBe(200)
    for (const [opts, chrome, program] of [
      [{}, 'Chrome on Linux', /^Bun [\d.]+ \(a program, not a browser\)$/],
      [{ phone: true, zh: true }, 'Linux 上的 Chrome', /^Bun [\d.]+（程序，非浏览器）$/],
    ] as const) {
      const tab = await tabOf(teacher, opts)
      await tab.page.goto('/settings')
      const list = tab.page.getByTestId('sessions')
      await list.locator('li').first().waitFor()
      const text = await list.innerText()
      expect(text).toContain(chrome)
      expect(text).not.toMatch(/Mozilla\/5\.0|HeadlessChrome|AppleWebKit/)
      const names = await list.locator('strong').allInnerTexts()
      expect(names.some((n) => program.test(n.trim()))).toBe(true)
      expectNoErrors(tab)
    }
  })

  test('5f: at 390 px the course tabs start at the first one and "No file chosen" is whole (en, zh)', async () => {
    const T = { token: teacher.token }
    const unit = (await suite.server.api.post(`/courses/${course.id}/learning/units`, { ...T, json: { title: 'Work' } })).data
    const point = (await suite.server.api.post(`/courses/${course.id}/learning/units/${unit.id}/points`, { ...T, json: { title: 'Energy' } })).data
    const hw = await suite.server.api.post(`/courses/${course.id}/learning/points/${point.id}/tasks`, {
      ...T,
      json: { title: 'Photo of your notes', taskKind: 'HOMEWORK', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>Hand in a photo.</p>', dueAt: new Date(Date.now() + 7 * 86400_000).toISOString() },
    })
    expect(hw.status).toBe(201)
    const wholeName = async (p: Page, none: string) => {
      const name = p.locator('.file-input-name').first()
      await name.waitFor()
      expect((await name.innerText()).trim()).toBe(none)
      expect(await name.evaluate((n) => n.scrollWidth <= n.clientWidth)).toBe(true)
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)
    }
    for (const [opts, first, none] of [
      [{ phone: true }, 'Overview', 'No file chosen'],
      [{ phone: true, zh: true }, '概览', '未选择文件'],
    ] as const) {
      const tab = await tabOf(teacher, opts)
      const p = tab.page
      await p.goto(`/courses/${course.id}`)
      const tabsNav = p.locator('nav.module-tabs')
      await tabsNav.locator('[aria-current="page"]').waitFor()
      await p.waitForTimeout(300)
      expect(await tabsNav.evaluate((n) => n.scrollLeft)).toBe(0)
      expect(await p.evaluate(() => window.scrollX)).toBe(0)
      const firstTab = tabsNav.locator('a').first()
      expect((await firstTab.innerText()).trim()).toBe(first)
      const box = (await firstTab.boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      // The second tab active: it is in view from the start, so the row does not move.
      await tabsNav.locator('a').nth(1).click()
      await tabsNav.locator('a').nth(1).and(p.locator('[aria-current="page"]')).waitFor()
      await p.waitForTimeout(300)
      expect(await tabsNav.evaluate((n) => n.scrollLeft)).toBe(0)
      // A tab far right (Announcements) is brought into view.
      await p.goto(`/courses/${course.id}?module=announcements`)
      await tabsNav.locator('a').last().and(p.locator('[aria-current="page"]')).waitFor()
      await p.waitForTimeout(300)
      const last = (await tabsNav.locator('a').last().boundingBox())!
      expect(last.x + last.width).toBeLessThanOrEqual(PHONE.width)
      await p.goto(`/courses/${course.id}/manage?tab=resources`)
      await wholeName(p, none)
      expectNoErrors(tab)
    }
    // The student's hand-in form.
    for (const [opts, none] of [
      [{ phone: true }, 'No file chosen'],
      [{ phone: true, zh: true }, '未选择文件'],
    ] as const) {
      const st = await tabOf(sam, opts)
      await st.page.goto(`/courses/${course.id}?taskId=${hw.data.id}`)
      await wholeName(st.page, none)
      expectNoErrors(st)
    }
  })

  test('5g: a page not loaded yet while the server is down keeps the header and offers a reload (phone en)', async () => {
    const tab = await openTab(suite.browser, suite.server.baseUrl, { viewport: PHONE, allowDocument404: true })
    suite.tabs.push(tab)
    const p = tab.page
    await logInAs(p, teacher)
    // The server goes away: every request fails as with a refused connection.
    await p.route('**/*', (r) => r.abort('connectionrefused'))
    await p.getByTestId('nav-settings').click()
    const notice = p.getByTestId('chunk-error')
    await notice.waitFor()
    await p.getByRole('banner').getByTestId('nav-settings').waitFor()
    expect(await p.locator('main').getByTestId('chunk-error').count()).toBe(1)
    await p.unroute('**/*')
    await notice.getByRole('button', { name: 'Reload' }).click()
    await p.getByTestId('email-preferences').waitFor()
    // The failed fetches were this test's doing; nothing else went wrong.
    expect(tab.errors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED|Failed to fetch|dynamically imported/i.test(e))).toEqual([])
  })
})
