import { beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp, type Account } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, loggedInTab, PHONE, serverAndBrowser } from './support.ts'

// A browser test is many page loads: Bun's 5 s per test is too short on a loaded machine.
setDefaultTimeout(90_000)

/**
 * Issue 56 in Chromium, the student's side (and the teacher's where it is the same state):
 * 1. a quiz row on the Grades page shows its score, as homework rows do;
 * 5a. a question added after the sheet was handed in is "new", not wrong;
 * 5b/5c. a student's overdue homework is "Missing" on the course page as in the homework centre,
 *   and its form warns that the hand-in will be late;
 * 3. an archived course says it is read-only, its homework is closed, nothing can be handed in
 *   or typed, and it leaves the homework centre;
 * 2. an invited student who has not verified their address is told to verify it; the roster says
 *   invited people join once they register and verify.
 * Desktop in English and a 390 px phone in Chinese wherever the item is about words or layout.
 */
const DESKTOP = { width: 1280, height: 860 }
const DAY = 86400_000

describe.skipIf(!hasChromium)('teaching behaviour (issue 56) in Chromium', () => {
  let teacher: Account, sam: Account, mei: Account, newbie: Account
  let course: { id: string }
  let archived: { id: string }

  const suite = serverAndBrowser()
  beforeAll(async () => {
    const api = suite.server.api
    ;[teacher, sam, mei, newbie] = await Promise.all([
      signUp(api, 'TEACHER', 'Prof. Lin'),
      signUp(api, 'STUDENT', 'Sam Student'),
      signUp(api, 'STUDENT', 'Mei Student'),
      signUp(api, 'STUDENT', 'New Student'),
    ])
    course = await insertCourse(suite.server.deps.sql, teacher.id, 'Thermodynamics')
    archived = await insertCourse(suite.server.deps.sql, teacher.id, 'Last term')
    for (const s of [sam, mei]) {
      await addStudent(suite.server.deps.sql, course.id, s.id)
      await addStudent(suite.server.deps.sql, archived.id, s.id)
    }
    const T = { token: teacher.token }
    const task = async (courseId: string, json: Record<string, unknown>) => {
      const unit = (await api.post(`/courses/${courseId}/learning/units`, { ...T, json: { title: 'Heat' } })).data
      const point = (await api.post(`/courses/${courseId}/learning/units/${unit.id}/points`, { ...T, json: { title: 'Temperature' } })).data
      const r = await api.post(`/courses/${courseId}/learning/points/${point.id}/tasks`, { ...T, json })
      if (r.status !== 201) throw new Error(`task: ${r.status} ${JSON.stringify(r.body)}`)
      return r.data
    }
    // A quiz (no homework) of 3 + 1 points: one right, one wrong → 75, graded at once.
    const quiz = await task(course.id, {
      title: 'Quiz: units',
      taskType: 'QUIZ',
      questions: [
        { type: 'SINGLE_CHOICE', stem: 'Unit of heat?', options: ['Joule', 'Kelvin'], correctOptions: [0], points: 3 },
        { type: 'SINGLE_CHOICE', stem: 'Unit of temperature?', options: ['Joule', 'Kelvin'], correctOptions: [1], points: 1 },
      ],
    })
    for (const s of [sam, mei]) {
      const r = await api.post(`/courses/${course.id}/learning/tasks/${quiz.id}/submissions`, {
        token: s.token,
        json: { answers: [{ questionId: quiz.questions[0].id, selectedOptions: [0] }, { questionId: quiz.questions[1].id, selectedOptions: [0] }] },
      })
      if (r.data?.score !== 75) throw new Error(`quiz: ${JSON.stringify(r.body)}`)
    }
    // Then the teacher adds a question (5a): the sheets handed in were not asked it.
    await new Promise((r) => setTimeout(r, 5))
    const qs = quiz.questions.map(({ id, type, stem, options, correctOptions, points }: any) => ({ id, type, stem, options, correctOptions, points }))
    const edited = await api.patch(`/courses/${course.id}/learning/tasks/${quiz.id}`, {
      ...T,
      json: { questions: [...qs, { type: 'SINGLE_CHOICE', stem: 'Added later: unit of power?', options: ['Watt', 'Volt'], correctOptions: [0], points: 1 }] },
    })
    if (edited.status !== 200) throw new Error(`edit: ${JSON.stringify(edited.body)}`)
    const now = Date.now()
    await task(course.id, {
      title: 'Essay: past due',
      taskKind: 'HOMEWORK',
      taskType: 'MEDIA',
      materialType: 'TEXT',
      content: '<p>Explain the zeroth law.</p>',
      startAt: new Date(now - 3 * DAY).toISOString(),
      dueAt: new Date(now - DAY).toISOString(),
    })
    await task(archived.id, {
      title: 'Essay: last term',
      taskKind: 'HOMEWORK',
      taskType: 'MEDIA',
      materialType: 'TEXT',
      content: '<p>Explain entropy.</p>',
      dueAt: new Date(now + 7 * DAY).toISOString(),
    })
    const a = await api.patch(`/courses/${archived.id}`, { ...T, json: { archived: true } })
    if (a.status !== 200) throw new Error(`archive: ${JSON.stringify(a.body)}`)
  }, 120_000)

  const tabOf = (who: Account, opts: { phone?: boolean; zh?: boolean } = {}) => loggedInTab(suite, who, { viewport: opts.phone ? PHONE : DESKTOP, zh: opts.zh })
  const summary = (p: Page, title: string) => p.locator('details.task').filter({ hasText: title }).first().locator('summary')
  const noSideScroll = async (p: Page) => expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)

  test('1 + 5a: a quiz row on Grades shows its score; a question added later is new, not wrong (desktop en, phone zh)', async () => {
    for (const [who, opts, score, added] of [
      [sam, {}, 'Score 75', 'New: added after you handed in, not counted'],
      [mei, { phone: true, zh: true }, '75 分', '新题：在你提交后新增，不计分'],
    ] as const) {
      const tab = await tabOf(who, opts)
      const p = tab.page
      await p.goto(`/courses/${course.id}?module=grades`)
      const row = summary(p, 'Quiz: units')
      await row.waitFor()
      // Without opening the row.
      await row.getByText(score, { exact: true }).waitFor()
      await row.click()
      const sheet = p.getByTestId('my-submission')
      await sheet.waitFor()
      const addedRow = sheet.locator('ol.answers > li').filter({ hasText: 'Added later: unit of power?' })
      await addedRow.getByText(added).waitFor()
      expect(await addedRow.getByTestId('question-result').count()).toBe(0)
      expect(await sheet.getByTestId('question-result').count()).toBe(2)
      await expectAccessible(p, 'grades with a quiz score')
      if (opts.phone) await noSideScroll(p)
      expectNoErrors(tab)
    }
  })

  test('5a: the teacher grading the old sheet sees the new question as added after it, not wrong', async () => {
    const tab = await tabOf(teacher)
    const p = tab.page
    await p.goto(`/courses/${course.id}/manage?tab=grading`)
    await p.getByLabel('What to grade').selectOption({ label: 'Quiz: units' })
    const sub = p.getByTestId('task-submission')
    const q3 = sub.locator('.question-score').filter({ hasText: 'Added later: unit of power?' })
    await q3.getByText('added after this hand-in: not asked, not counted').waitFor()
    expect(await q3.getByText('wrong', { exact: true }).count()).toBe(0)
    expectNoErrors(tab)
  })

  test('5b + 5c: overdue homework is Missing on the course page as in the centre; its form warns before the hand-in', async () => {
    for (const [who, opts, missing, warning] of [
      [sam, {}, 'Missing', 'The due time has passed. You can still hand in; it will be marked late.'],
      [mei, { phone: true, zh: true }, '缺交', '已过截止时间。仍可提交，但会记为迟交。'],
    ] as const) {
      const tab = await tabOf(who, opts)
      const p = tab.page
      await p.goto(`/courses/${course.id}?module=homework`)
      const row = summary(p, 'Essay: past due')
      await row.click()
      // 5c: said before anything is typed or handed in.
      await p.getByTestId('late-warning').getByText(warning).waitFor()
      // 5b: the same word here and in the homework centre.
      expect((await row.locator('[data-status="MISSING"]').innerText()).trim()).toBe(missing)
      await p.goto('/homeworks')
      const card = p.locator('.homework-card').filter({ hasText: 'Essay: past due' })
      expect((await card.locator('[data-status="MISSING"]').innerText()).trim()).toBe(missing)
      if (opts.phone) await noSideScroll(p)
      await expectAccessible(p, 'overdue homework form')
      expectNoErrors(tab)
    }
  })

  test('3: an archived course is read-only: notice, homework closed, no hand-in, gone from the centre (phone en, desktop zh)', async () => {
    for (const [who, opts, notice, closed] of [
      [sam, { phone: true }, 'This course is archived (read-only).', 'Closed'],
      [mei, { zh: true }, '本课程已归档（只读）。', '已关闭'],
    ] as const) {
      const tab = await tabOf(who, opts)
      const p = tab.page
      await p.goto(`/courses/${archived.id}?module=homework`)
      expect(await p.getByTestId('archived-banner').innerText()).toContain(notice)
      const row = summary(p, 'Essay: last term')
      expect((await row.locator('[data-status="CLOSED"]').innerText()).trim()).toBe(closed)
      expect(await row.innerText()).not.toMatch(/In progress|进行中|left|剩余/)
      await row.click()
      await p.getByTestId('archived-no-hand-in').waitFor()
      expect(await p.locator('form.answer-form').count()).toBe(0)
      expect(await p.getByRole('button', { name: /Hand in|提交/ }).count()).toBe(0)
      // The homework centre lists only courses that take work.
      await p.goto('/homeworks')
      await p.locator('.homework-card').filter({ hasText: 'Essay: past due' }).waitFor()
      expect(await p.getByText('Essay: last term').count()).toBe(0)
      if (opts.phone) await noSideScroll(p)
      expectNoErrors(tab)
    }
    // The teacher's manage page: the notice, every form control disabled, nothing typed in vain.
    const tt = await tabOf(teacher)
    const tp = tt.page
    await tp.goto(`/courses/${archived.id}/manage?tab=announcements`)
    expect(await tp.getByTestId('archived-banner').innerText()).toContain('This course is archived (read-only).')
    await tp.getByRole('textbox', { name: 'Message' }).waitFor()
    expect(await tp.getByLabel('Title').isDisabled()).toBe(true)
    expect(await tp.getByRole('button', { name: 'Publish' }).isDisabled()).toBe(true)
    expect(await tp.getByRole('textbox', { name: 'Message' }).getAttribute('contenteditable')).toBe('false')
    await tp.goto(`/courses/${archived.id}/manage?tab=learning`)
    expect(await tp.getByRole('button', { name: /^Add task/ }).first().isDisabled()).toBe(true)
    // Settings keeps its way out: unarchiving.
    await tp.goto(`/courses/${archived.id}/manage?tab=settings`)
    expect(await tp.getByRole('textbox', { name: 'Course title' }).isDisabled()).toBe(true)
    expect(await tp.getByRole('button', { name: /Unarchive/ }).isEnabled()).toBe(true)
    expectNoErrors(tt)
  })

  test('2: an invited student who has not verified is told to verify; the roster says register and verify (desktop en, phone zh)', async () => {
    for (const [opts, text] of [
      [{}, 'If your teacher invited your e-mail address, verify it'],
      [{ phone: true, zh: true }, '如果老师邀请了你的邮箱，请先验证邮箱'],
    ] as const) {
      const tab = await tabOf(newbie, opts)
      await tab.page.getByText(text).waitFor()
      if (opts.phone) await noSideScroll(tab.page)
      expectNoErrors(tab)
    }
    for (const [opts, text] of [
      [{}, 'joins the course once they verify that address'],
      [{ phone: true, zh: true }, '完成邮箱验证'],
    ] as const) {
      const tab = await tabOf(teacher, opts)
      await tab.page.goto(`/courses/${course.id}/manage?tab=classList`)
      await tab.page.getByTestId('invitations').getByText(text, { exact: false }).waitFor()
      expectNoErrors(tab)
    }
  })
})
