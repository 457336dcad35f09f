import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { deflateSync } from 'node:zlib'
import type { Page } from 'playwright-core'
import { choice, createPoint, createTask, createUnit, textTask } from '../learning/helpers.ts'
import { formOf } from '../storage/helpers.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, type Account } from '../support/harness.ts'
import { eventually } from '../support/wait.ts'
import { expectAccessible, expectNoErrors, hasChromium, logInAs, OffsetClock, openTab, serverAndBrowser, type Tab } from './support.ts'

/**
 * Issue 29.6 and 29.8 in Chromium: the gradebook at class size (44 students: sticky header and
 * name column, names whole, sort, filter) with Missing / Late / Not graded and column kinds
 * (issue 27.9), the same labels in the homework centre, and experiments graded one student at
 * a time with the file in the page, where a typed but unsaved grade survives "Next student"
 * and leaving the page asks first. Desktop, 390 px, English and Chinese; axe on every page.
 * Screenshots for docs/web.md: SHOTS=1 bun test test/e2e/grading.test.ts
 */
const SHOTS = process.env.SHOTS ? join(import.meta.dir, '../../docs/screenshots') : null

/** A small chart as a PNG (bars of a pendulum's measured periods), so no fixture file is needed. */
function chartPng(w = 320, h = 180): Buffer {
  const raw = Buffer.alloc((w * 3 + 1) * h, 250)
  const bars = [120, 131, 126, 140, 135]
  for (let y = 0; y < h; y++) {
    raw[y * (w * 3 + 1)] = 0
    for (let x = 0; x < w; x++) {
      const i = Math.floor((x - 20) / 60)
      const inBar = i >= 0 && i < bars.length && (x - 20) % 60 < 40 && y > h - bars[i]!
      if (inBar) raw.set([37, 99, 235], y * (w * 3 + 1) + 1 + x * 3)
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data])
    const out = Buffer.alloc(12 + data.length)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(Bun.hash.crc32(body), 8 + data.length)
    return out
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))])
}

/** Words of the element's text that the layout broke over two lines (none wanted). */
const brokenWords = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const broken: string[] = []
    for (const el of document.querySelectorAll(sel)) {
      const text = el.firstChild
      if (!text || text.nodeType !== Node.TEXT_NODE) continue
      const s = text.textContent ?? ''
      for (const m of s.matchAll(/\S+/g)) {
        const r = document.createRange()
        r.setStart(text, m.index!)
        r.setEnd(text, m.index! + m[0].length)
        const tops = new Set([...r.getClientRects()].map((x) => Math.round(x.top)))
        if (tops.size > 1) broken.push(m[0])
      }
    }
    return broken
  }, selector)

/** Elements under `root` whose right edge is past the viewport, outside a scrolling table frame. */
const overflowing = (page: Page, root: string) =>
  page.evaluate(
    (sel) =>
      [...document.querySelectorAll(`${sel} *`)]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !e.parentElement?.closest('.table-wrap'))
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
    root,
  )

const LEARNERS = 41

describe.skipIf(!hasChromium)('grading at class size in Chromium', () => {
  let teacher: Account, alice: Account, bob: Account, chen: Account
  let courseId: string
  let essay: any, check: any, project: any, labId: string
  let aliceLab: string
  const clock = new OffsetClock()

  async function tabFor(who: Account, opts: { viewport?: { width: number; height: number }; zh?: boolean } = {}) {
    const tab = await openTab(suite.browser, suite.server.baseUrl, opts.viewport ? { viewport: opts.viewport } : {})
    suite.tabs.push(tab)
    if (opts.zh) await tab.context.addInitScript(() => localStorage.setItem('cls.locale', 'zh-CN'))
    await logInAs(tab.page, who, { zh: opts.zh, landing: /\/(courses|homeworks)/ })
    return tab
  }
  const gradebook = (p: Page) => p.getByTestId('grade-overview')
  const row = (p: Page, name: string) => gradebook(p).locator('tbody tr').filter({ hasText: name })
  const statuses = (p: Page, name: string, columnId: string) =>
    row(p, name).locator(`td[data-cell="${columnId}"] [data-status]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))

  const suite = serverAndBrowser({ clock })
  beforeAll(async () => {
    const { api, deps } = suite.server
    ;[teacher, alice, bob, chen] = await Promise.all([
      signUp(api, 'TEACHER', 'Tess Teacher'),
      signUp(api, 'STUDENT', 'Alice Wang'),
      signUp(api, 'STUDENT', 'Bob Li'),
      signUp(api, 'STUDENT', 'Chen Jie'),
    ])
    courseId = (await insertCourse(deps.sql, teacher.id, 'Mechanics')).id
    for (const s of [alice, bob, chen]) await addStudent(deps.sql, courseId, s.id)
    // 41 more, with long usernames (the ones that broke mid-word in a 70 px column).
    const prefix = `lab${Date.now().toString(36)}`
    const learners = await deps.sql<{ id: string }[]>`
      insert into users (id, username, email, password_hash, display_name, role)
      select gen_uuid_v7(), ${prefix} || '_experimental_physics_' || g, ${prefix} || '_' || g || '@example.test', 'x', 'Learner ' || lpad(g::text, 2, '0') || ' Montgomery', 'STUDENT'
        from generate_series(1, ${LEARNERS}) g
      returning id`
    for (const l of learners) await addStudent(deps.sql, courseId, l.id)

    const base = `/courses/${courseId}/learning`
    const unit = await createUnit(api, base, teacher, 'Oscillations')
    const point = await createPoint(api, base, teacher, unit.id, 'Pendulum')
    const now = clock.now().getTime()
    const window = { startAt: new Date(now - 3600_000).toISOString(), dueAt: new Date(now + 3600_000).toISOString() }
    essay = await createTask(api, base, teacher, point.id, { title: 'Essay', ...textTask, taskKind: 'HOMEWORK', ...window })
    check = await createTask(api, base, teacher, point.id, { title: 'Check', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [0])] })
    project = await createTask(api, base, teacher, point.id, {
      title: 'Project',
      ...textTask,
      taskKind: 'HOMEWORK',
      startAt: window.startAt,
      dueAt: new Date(now + 30 * 86400_000).toISOString(),
    })
    labId = (await api.post(`/courses/${courseId}/experiments`, { token: teacher.token, json: { title: 'Pendulum lab', description: '', dueAt: window.dueAt } })).data.id

    // Alice: everything on time; essay graded 88. Bob: essay and lab late. Chen: nothing.
    const hand = async (who: Account, taskId: string, json: unknown) => {
      const r = await api.post(`${base}/tasks/${taskId}/submissions`, { token: who.token, json })
      expect(r.status).toBe(201)
      return r.data
    }
    const e = await hand(alice, essay.id, { content: '<p>Period grows with length.</p>' })
    await api.patch(`${base}/submissions/${e.id}/grade`, { token: teacher.token, json: { score: 88 } })
    await hand(alice, check.id, { answers: [{ questionId: check.questions[0].id, selectedOptions: [0] }] })
    const lab = await api.post(`/experiments/${labId}/submissions`, {
      token: alice.token,
      form: formOf({ file: new File([new Uint8Array(chartPng())], 'periods.png', { type: 'image/png' }), note: 'Five lengths, ten swings each.' }),
    })
    expect(lab.status).toBe(201)
    aliceLab = lab.data.id
    clock.advance(2 * 3600_000)
    await hand(bob, essay.id, { content: '<p>Late, sorry.</p>' })
    const late = await api.post(`/experiments/${labId}/submissions`, { token: bob.token, form: formOf({ file: new File(['t,s\n1,2.0\n'], 'data.csv', { type: 'text/csv' }) }) })
    expect([late.status, late.data.late]).toEqual([201, true])
  }, 120_000)

  test('gradebook at 44 students: labels, column kinds, sticky header and names, names whole, sort, filter', async () => {
    const tab = await tabFor(teacher)
    const p = tab.page
    await p.goto(`/courses/${courseId}/manage?tab=grades`)
    await row(p, 'Alice Wang').waitFor()
    expect(await p.getByTestId('gradebook-count').textContent()).toBe('44 students')
    // Issue 27.9: each column says what it is.
    expect(await gradebook(p).getByTestId('column-kind').allTextContents()).toEqual([
      expect.stringMatching(/^Homework · due /),
      'Quiz',
      expect.stringMatching(/^Homework · due /),
      expect.stringMatching(/^Experiment · due /),
    ])
    expect(await p.getByText('Homework or quiz').count()).toBe(0)
    // Issue 29.6: Missing, Late, Not graded; a score; "—" where nothing is due yet.
    expect(await statuses(p, 'Alice Wang', essay.id)).toEqual([])
    expect(await row(p, 'Alice Wang').locator(`td[data-cell="${essay.id}"]`).textContent()).toBe('88')
    expect(await statuses(p, 'Bob Li', essay.id)).toEqual(['NOT_GRADED', 'LATE'])
    expect(await statuses(p, 'Bob Li', labId)).toEqual(['NOT_GRADED', 'LATE'])
    expect(await statuses(p, 'Alice Wang', labId)).toEqual(['NOT_GRADED'])
    expect(await statuses(p, 'Chen Jie', essay.id)).toEqual(['MISSING'])
    expect(await statuses(p, 'Learner 07 Montgomery', labId)).toEqual(['MISSING'])
    expect(await row(p, 'Chen Jie').locator(`td[data-cell="${project.id}"] [aria-hidden="true"]`).textContent()).toBe('—')
    expect(await statuses(p, 'Chen Jie', project.id)).toEqual([])
    expect(await row(p, 'Bob Li').locator(`td[data-cell="${essay.id}"]`).innerText()).toBe('Not graded Late')
    expect(await row(p, 'Chen Jie').locator(`td[data-cell="${essay.id}"]`).innerText()).toBe('Missing')

    // The gradebook no longer grows with the class (the page was 7,500 px at 44 students): the
    // table scrolls in a frame of at most three quarters of the window.
    const frame = p.locator('.table-wrap:has(> .gradebook)')
    expect((await frame.boundingBox())!.height).toBeLessThanOrEqual(860 * 0.75 + 1)
    expect(await frame.evaluate((el) => el.scrollHeight)).toBeGreaterThan(1500)
    await frame.evaluate((el) => el.scrollTo(0, 800))
    const header = await gradebook(p).locator('thead th').first().boundingBox()
    const frameBox = (await frame.boundingBox())!
    expect(Math.abs(header!.y - frameBox.y)).toBeLessThan(3)
    await frame.evaluate((el) => el.scrollTo(5000, 0))
    expect(await frame.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0)
    const name = await row(p, 'Alice Wang').locator('th').boundingBox()
    expect(Math.abs(name!.x - frameBox.x)).toBeLessThan(3)
    await frame.evaluate((el) => el.scrollTo(0, 0))
    // Names and usernames are never broken inside a word.
    expect(await brokenWords(p, '.gradebook .student-name')).toEqual([])
    expect(await brokenWords(p, '.gradebook .student-username')).toEqual([])

    // Sort by the essay, highest first: Alice (88), Bob (not graded), then the missing ones.
    await p.getByRole('button', { name: 'Sort by Essay' }).click()
    await p.getByRole('button', { name: 'Sort by Essay' }).click()
    expect(await gradebook(p).locator(`th[data-column="${essay.id}"]`).getAttribute('aria-sort')).toBe('descending')
    expect((await gradebook(p).locator('tbody th .student-name').allTextContents()).slice(0, 3)).toEqual(['Alice Wang', 'Bob Li', 'Chen Jie'])
    if (SHOTS) {
      await p.locator('h1').first().click()
      await p.screenshot({ path: join(SHOTS, 'gradebook-class.png') })
    }
    await p.getByRole('button', { name: 'Sort by Essay' }).click()
    expect((await gradebook(p).locator('tbody th .student-name').allTextContents()).slice(-2)).toEqual(['Bob Li', 'Alice Wang'])
    // Filter by name (or username).
    await p.getByLabel('Filter students by name').fill('bob')
    await p.getByTestId('gradebook-count').getByText('Showing 1 of 44 students').waitFor()
    expect(await gradebook(p).locator('tbody tr').count()).toBe(1)
    await p.getByLabel('Filter students by name').fill('montgomery')
    await p.getByTestId('gradebook-count').getByText(`Showing ${LEARNERS} of 44 students`).waitFor()
    await p.getByLabel('Filter students by name').fill('')
    // Nothing of the table (the screen-reader text of "—" included) leaks past the frame.
    await p.setViewportSize({ width: 390, height: 844 })
    expect(await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0)
    await p.setViewportSize({ width: 1280, height: 860 })
    await expectAccessible(p, 'gradebook at 44 students')
    expectNoErrors(tab)
  }, 90_000)

  test('gradebook at 390 px: no page overflow, the name column stays while the table scrolls; in Chinese', async () => {
    const tab = await tabFor(teacher, { viewport: { width: 390, height: 844 }, zh: true })
    const p = tab.page
    await p.goto(`/courses/${courseId}/manage?tab=grades`)
    await row(p, 'Alice Wang').waitFor()
    // Nothing of the gradebook reaches past the screen: the table scrolls inside its frame. (The
    // manage tab bar's own width in Chinese is issue 29.10's, not checked here.)
    expect(await overflowing(p, '.panel')).toEqual([])
    expect(await gradebook(p).getByTestId('column-kind').allTextContents()).toEqual([
      expect.stringMatching(/^作业 · /),
      '测验',
      expect.stringMatching(/^作业 · /),
      expect.stringMatching(/^实验 · /),
    ])
    expect(await row(p, 'Bob Li').locator(`td[data-cell="${essay.id}"]`).innerText()).toBe('未批改 迟交')
    expect(await row(p, 'Chen Jie').locator(`td[data-cell="${essay.id}"]`).innerText()).toBe('缺交')
    const frame = p.locator('.table-wrap:has(> .gradebook)')
    await frame.evaluate((el) => el.scrollTo(5000, 0))
    const frameBox = (await frame.boundingBox())!
    const name = (await row(p, 'Alice Wang').locator('th').boundingBox())!
    expect(Math.abs(name.x - frameBox.x)).toBeLessThan(3)
    // The name column leaves most of a phone's width to the scores.
    expect(name.width).toBeLessThan(160)
    expect(await brokenWords(p, '.gradebook .student-username')).toEqual([])
    await p.getByLabel('按姓名筛选学生').fill('Chen')
    await p.getByTestId('gradebook-count').getByText('显示 1 / 44 名学生').waitFor()
    await expectAccessible(p, 'gradebook at phone width in Chinese')
    expectNoErrors(tab)
  }, 60_000)

  test('experiment graded one student at a time: file in the page, unsaved grade kept on Next, leaving asks first', async () => {
    const tab = await tabFor(teacher)
    const p = tab.page
    await p.goto(`/courses/${courseId}/manage?tab=grading&experimentId=${labId}`)
    const roster = p.getByTestId('grading-roster')
    await roster.getByText('Alice Wang').waitFor()
    expect(await p.getByTestId('grading-summary').textContent()).toBe('2 of 44 submitted · 1 late · 0 graded')
    // Newest hand-in first (Bob, late), then Alice, then those who handed in nothing (Missing: the lab is past due).
    expect((await roster.locator('.roster-name').allTextContents()).slice(0, 3)).toEqual(['Bob Li', 'Alice Wang', 'Chen Jie'])
    expect(await roster.locator('li').nth(2).textContent()).toContain('Missing')
    // One student's sheet, not every form stacked.
    expect(await p.locator('form.grade-form').count()).toBe(1)
    await p.getByTestId('grading-sheet').getByRole('heading', { name: 'Bob Li' }).waitFor()
    await p.getByRole('button', { name: /Next student/ }).click()
    await p.getByTestId('grading-sheet').getByRole('heading', { name: 'Alice Wang' }).waitFor()
    // The picture is shown in the page.
    const img = p.getByTestId('experiment-submission').locator('img.file-view-image')
    await img.waitFor()
    await p.waitForFunction(() => (document.querySelector('img.file-view-image') as HTMLImageElement | null)?.naturalWidth === 320)
    await p.getByText('Note: Five lengths, ten swings each.').waitFor()

    // Type a grade, go on without saving: kept, marked, there when coming back.
    const sheet = p.getByTestId('experiment-submission')
    await sheet.getByLabel('Score (0–100)').fill('77')
    await sheet.locator('[contenteditable="true"]').click()
    await p.keyboard.type('Clear chart; add error bars.')
    await p.getByTestId('unsaved-grade').waitFor()
    // A long roster scrolls inside itself: the page stays about one screen tall.
    expect(await p.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(1400)
    if (SHOTS) await p.screenshot({ path: join(SHOTS, 'grading-experiment.png'), fullPage: true })
    await p.getByRole('button', { name: /Next student/ }).click()
    await p.getByTestId('grading-sheet').getByRole('heading', { name: 'Chen Jie' }).waitFor()
    await roster.locator('li').filter({ hasText: 'Alice Wang' }).getByText('Unsaved').waitFor()
    await p.getByRole('button', { name: /Previous student/ }).click()
    await p.getByTestId('grading-sheet').getByRole('heading', { name: 'Alice Wang' }).waitFor()
    expect(await sheet.getByLabel('Score (0–100)').inputValue()).toBe('77')
    await sheet.getByText('Clear chart; add error bars.').waitFor()

    // Leaving the page in the app asks; "Cancel" stays.
    const asked: string[] = []
    p.once('dialog', (d) => {
      asked.push(d.message())
      void d.dismiss()
    })
    await p.locator('nav.tabs').getByRole('link', { name: 'Gradebook', exact: true }).click()
    for (let i = 0; i < 50 && asked.length === 0; i++) await p.waitForTimeout(100)
    expect(asked).toEqual(['You have unsaved changes. Leave this page and lose them?'])
    expect(p.url()).toContain(`experimentId=${labId}`)
    // A reload asks the browser's own question; the draft is still there afterwards.
    p.once('dialog', (d) => void d.accept())
    await p.reload()
    await p.getByTestId('grading-sheet').getByRole('heading', { name: 'Alice Wang' }).waitFor()
    expect(await p.getByTestId('experiment-submission').getByLabel('Score (0–100)').inputValue()).toBe('77')

    // Saved: the mark goes, the server has it.
    await p.getByTestId('experiment-submission').getByRole('button', { name: 'Save grade' }).click()
    await p.getByText('Grade saved.').waitFor()
    await roster.locator('li').filter({ hasText: 'Alice Wang' }).getByText('Graded 77').waitFor()
    expect(await roster.getByText('Unsaved').count()).toBe(0)
    const stored = await suite.server.api.get(`/experiments/${labId}/submissions?pageSize=50`, { token: teacher.token })
    expect(stored.data.items.find((s: any) => s.id === aliceLab)).toMatchObject({ score: 77, feedback: expect.stringContaining('error bars') })
    await expectAccessible(p, 'grading an experiment')
    // Quizzes and homework keep an unsaved grade the same way.
    await p.getByLabel('What to grade').selectOption({ label: 'Essay (homework)' })
    await p.getByTestId('grading-sheet').getByRole('heading', { name: 'Bob Li' }).waitFor()
    await p.getByTestId('task-submission').getByLabel('Score (0–100)').fill('64')
    await p.keyboard.press('Tab')
    await p.getByRole('button', { name: /Next student/ }).click()
    await p.getByTestId('grading-sheet').getByRole('heading', { name: 'Alice Wang' }).waitFor()
    // Alice has no draft: her saved 88 is shown, not Bob's unsaved 64 carried over.
    await eventually(async () => expect(await p.getByTestId('task-submission').getByLabel('Score (0–100)').inputValue()).toBe('88'), { timeoutMs: 3000 })
    await p.getByRole('button', { name: /Previous student/ }).click()
    // Read Bob's sheet once it is shown (read at once, the input could still be Alice's 88).
    await p.getByTestId('grading-sheet').getByRole('heading', { name: 'Bob Li' }).waitFor()
    expect(await p.getByTestId('task-submission').getByLabel('Score (0–100)').inputValue()).toBe('64')
    expectNoErrors(tab)
  }, 120_000)

  test('experiment grading at 390 px in Chinese', async () => {
    const tab = await tabFor(teacher, { viewport: { width: 390, height: 844 }, zh: true })
    const p = tab.page
    await p.goto(`/courses/${courseId}/manage?tab=grading&experimentId=${labId}&student=${bob.id}`)
    await p.getByTestId('grading-sheet').getByRole('heading', { name: 'Bob Li' }).waitFor()
    await p.getByTestId('grading-roster').getByText('缺交').first().waitFor()
    await p.getByRole('button', { name: /下一位学生/ }).waitFor()
    expect(await overflowing(p, '.panel')).toEqual([])
    await expectAccessible(p, 'experiment grading at phone width in Chinese')
    expectNoErrors(tab)
  }, 60_000)

  test('homework centre: the student sees Missing, Late and Not graded (phone, English and Chinese)', async () => {
    const bobTab = await tabFor(bob, { viewport: { width: 390, height: 844 } })
    let p = bobTab.page
    await p.goto('/homeworks')
    const card = (title: string) => p.locator('.homework-card').filter({ has: p.getByRole('link', { name: title, exact: true }) })
    await card('Essay').waitFor()
    const marks = (title: string) => card(title).locator('[data-status]').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))
    expect(await marks('Essay')).toEqual(['LATE', 'NOT_GRADED'])
    expect(await marks('Pendulum lab')).toEqual(['LATE', 'NOT_GRADED'])
    expect(await marks('Project')).toEqual([])
    expect(await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0)
    await expectAccessible(p, 'homework centre with late work')
    expectNoErrors(bobTab)

    const chenTab = await tabFor(chen, { viewport: { width: 390, height: 844 }, zh: true })
    p = chenTab.page
    await p.goto('/homeworks')
    await card('Essay').waitFor()
    expect(await marks('Essay')).toEqual(['MISSING'])
    expect(await card('Essay').innerText()).toContain('缺交')
    expect(await marks('Pendulum lab')).toEqual(['MISSING'])
    await expectAccessible(p, 'homework centre with missing work, in Chinese')
    expectNoErrors(chenTab)
  }, 60_000)
})
