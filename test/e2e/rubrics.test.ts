import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Keyboard, Locator, Page } from 'playwright-core'
import { courseWithEssay, createTask } from '../learning/helpers.ts'
import { formOf } from '../storage/helpers.ts'
import { signUp, uniq, type Account } from '../support/harness.ts'
import { tokenSigner } from '../../src/http/auth.ts'
import { newId } from '../../src/lib/ids.ts'
import { insertUser } from '../../src/modules/auth/queries.ts'
import { startSession } from '../../src/modules/auth/session.ts'
import type { Deps } from '../../src/deps.ts'
import { expectAccessible, expectNoErrors, hasChromium, loggedInTab, serverAndBrowser } from './support.ts'

/*
 * Issue 54, the web app's rubrics in Chromium: the teacher writes rubrics in the editor (homework,
 * a quiz's short answer, an experiment: add, reorder, remove criteria and levels), grades a quiz's
 * short answer and an experiment by rubric from the keyboard, and the student sees the rubric
 * before handing in and the chosen levels after. Then 40 students of a MANUAL homework graded by
 * keyboard alone (digits + Enter, keystrokes counted per student through a counter wrapping
 * page.keyboard), the grades released, the charts drawn. SHOTS=1 writes
 * docs/screenshots/rubric-editor.png, rubric-grading.png and charts.png.
 */

const SHOTS = Boolean(process.env.SHOTS)
const shot = (page: Page, name: string) => page.screenshot({ path: join(import.meta.dir, `../../docs/screenshots/${name}.png`), fullPage: true })

/** page.keyboard with every keystroke counted: press and down count one, type and insertText one per character. */
function countingKeyboard(keyboard: Keyboard) {
  let count = 0
  const counted = {
    press: (key: string) => {
      count++
      return keyboard.press(key)
    },
    down: (key: string) => {
      count++
      return keyboard.down(key)
    },
    up: (key: string) => keyboard.up(key),
    type: (text: string) => {
      count += [...text].length
      return keyboard.type(text)
    },
    insertText: (text: string) => {
      count += [...text].length
      return keyboard.insertText(text)
    },
  }
  return {
    keyboard: counted,
    /** Keystrokes since the last call. */
    take() {
      const n = count
      count = 0
      return n
    },
  }
}

/**
 * `n` students "Student 01"… with sessions, written with the service's own statements
 * (auth/queries.ts `insertUser`, auth/session.ts `startSession`, http/auth.ts `tokenSigner`) and
 * one shared argon2id hash: registering and logging in 40 students over HTTP costs 80 argon2id
 * runs, ~0.9 s each on the shared 2-core box (50 s measured). Their hand-ins go through the API.
 */
async function seedStudents(deps: Deps, n: number): Promise<Account[]> {
  const password = 'correct horse battery'
  const passwordHash = await Bun.password.hash(password, { algorithm: 'argon2id' })
  const { sign } = tokenSigner(deps.config.jwtSecret!)
  const now = new Date()
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const username = uniq('s')
      const email = `${username}@example.test`
      const row = await insertUser(deps.sql, { id: newId(), username, email, passwordHash, displayName: `Student ${String(i + 1).padStart(2, '0')}`, role: 'STUDENT', now, locale: null })
      const session = await startSession(deps.sql, { userId: row!.id, now, ip: null, userAgent: null }, { sign, config: deps.config })
      return { id: row!.id, username, email, role: 'STUDENT' as const, token: session.accessToken, password }
    }),
  )
}

/** Fills level `level` of criterion `criterion` in a rubric editor: its title and points. */
async function fillLevel(editor: Locator, criterion: number, level: number, title: string, points: number) {
  await editor.getByLabel(`Criterion ${criterion}, level ${level}: title`).fill(title)
  await editor.getByLabel(`Criterion ${criterion}, level ${level}: points`).fill(String(points))
}

/** The element with the focus is in the first criterion of the rubric form named `name`. */
const firstCriterionFocused = (page: Page, name: string) =>
  page.waitForFunction((n) => {
    const el = document.activeElement
    return el?.closest('fieldset[data-criterion]')?.getAttribute('data-criterion') === '0' && el.closest('form')?.getAttribute('aria-label') === n
  }, name)

describe.skipIf(!hasChromium)('rubrics in the web app (Chromium)', () => {
  const ctx = serverAndBrowser()

  test('the editor on a homework, a quiz and an experiment; quiz and experiment graded by rubric; the student sees the rubric, then the levels', async () => {
    const { server } = ctx
    const { api } = server
    const [teacher, alice] = await Promise.all([signUp(api, 'TEACHER', 'Tess Teacher'), signUp(api, 'STUDENT', 'Alice Wang')])
    const { courseId, base, point, essay, now } = await courseWithEssay(server, teacher, [alice], { course: 'Rhetoric', unit: 'Argument', point: 'Claims', essay: 'Essay 5' })
    const quiz = await createTask(api, base, teacher, point.id, {
      title: 'Claims quiz',
      taskType: 'QUIZ',
      questions: [
        { type: 'SINGLE_CHOICE', stem: 'A claim needs?', options: ['Evidence', 'Volume'], correctOptions: [0], points: 4 },
        { type: 'SHORT_ANSWER', stem: 'Defend a claim.', points: 6 },
      ],
    })
    const [choiceQ, shortQ] = quiz.questions as { id: string }[]
    const lab = await api.post(`/courses/${courseId}/experiments`, {
      token: teacher.token,
      json: { title: 'Prism lab', description: '<p>Measure</p>', dueAt: new Date(now + 86400_000).toISOString() },
    })
    expect(lab.status).toBe(201)

    const tt = await loggedInTab(ctx, teacher)
    const p = tt.page

    // Homework: two criteria written, a third added and removed, the second moved up, a level added and moved.
    await p.goto(`/courses/${courseId}/manage?tab=grading&taskId=${essay.id}`)
    await p.getByText('No rubric yet: add one').first().waitFor()
    await p.getByText('No rubric yet: add one').click()
    const editor = p.getByRole('form', { name: 'Rubric of Essay 5' })
    for (let i = 0; i < 3; i++) await editor.getByRole('button', { name: 'Add a criterion' }).click()
    await editor.getByLabel('Criterion 1: title').fill('Style')
    await editor.getByLabel('Criterion 2: title').fill('Argument')
    await editor.getByLabel('Criterion 3: title').fill('Spare')
    await editor.getByRole('button', { name: 'Remove criterion 3' }).click()
    await editor.getByRole('button', { name: 'Move criterion 2 up' }).click()
    expect(await editor.getByLabel('Criterion 1: title').inputValue()).toBe('Argument')
    await editor.getByLabel('Criterion 1: description').fill('Claims backed by evidence')
    await fillLevel(editor, 1, 1, 'Beginning', 0)
    await fillLevel(editor, 1, 2, 'Exemplary', 6)
    await editor.getByRole('button', { name: 'Add a level to criterion 2' }).click()
    await fillLevel(editor, 2, 1, 'Elegant', 4)
    await fillLevel(editor, 2, 2, 'Rough', 0)
    await fillLevel(editor, 2, 3, 'Clear', 2)
    // Elegant goes last: down, and down again.
    await editor.getByRole('button', { name: 'Move level 1 of criterion 2 down' }).click()
    await editor.getByRole('button', { name: 'Move level 2 of criterion 2 down' }).click()
    expect(await Promise.all([1, 2, 3].map((m) => editor.getByLabel(`Criterion 2, level ${m}: title`).inputValue()))).toEqual(['Rough', 'Clear', 'Elegant'])
    // A missing title is said before anything is sent.
    await editor.getByRole('button', { name: 'Add a level to criterion 1' }).click()
    await editor.getByRole('button', { name: 'Save rubric' }).click()
    await editor.getByText('Enter a title.').first().waitFor()
    await editor.getByRole('button', { name: 'Remove level 3 of criterion 1' }).click()
    await expectAccessible(p, 'rubric editor (homework)')
    if (SHOTS) await shot(p, 'rubric-editor')
    await editor.getByRole('button', { name: 'Save rubric' }).click()
    await editor.getByText('Rubric saved.').waitFor()
    await p.getByText('Rubric: 2 criteria (edit)').waitFor()
    const saved = await api.get(`${base}/tasks/${essay.id}`, { token: teacher.token })
    const shape = (r: any) => r.criteria.map((c: any) => ({ title: c.title, levels: c.levels.map((l: any) => [l.title, l.points]) }))
    expect(shape(saved.data.rubric)).toEqual([
      { title: 'Argument', levels: [['Beginning', 0], ['Exemplary', 6]] },
      { title: 'Style', levels: [['Rough', 0], ['Clear', 2], ['Elegant', 4]] },
    ])
    expect(saved.data.rubric.criteria[0].description).toBe('Claims backed by evidence')
    // Saved again unchanged, the ids stay (graded sheets keep pointing at their levels). "Rubric
    // saved." is still shown from the first save: wait for the second save's answer itself.
    const resaved = p.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith(`/tasks/${essay.id}/rubric`))
    await editor.getByRole('button', { name: 'Save rubric' }).click()
    expect((await resaved).status()).toBe(200)
    const again = await api.get(`${base}/tasks/${essay.id}`, { token: teacher.token })
    expect(again.data.rubric.criteria.map((c: any) => c.id)).toEqual(saved.data.rubric.criteria.map((c: any) => c.id))

    // Alice sees the homework's rubric before handing in.
    const st = await loggedInTab(ctx, alice, { landing: /\/(courses|homeworks)/ })
    const sp = st.page
    await sp.goto(`/courses/${courseId}?taskId=${essay.id}`)
    const before = sp.getByTestId('rubric-view').first()
    await before.getByText('Your teacher grades this with the rubric below: one level per criterion.').waitFor()
    await before.getByText('Exemplary (6 points)').waitFor()

    // Quiz: a criterion names the short-answer question.
    await p.goto(`/courses/${courseId}/manage?tab=grading&taskId=${quiz.id}`)
    await p.getByText('No rubric yet: add one').click()
    const quizEditor = p.getByRole('form', { name: 'Rubric of Claims quiz' })
    await quizEditor.getByRole('button', { name: 'Add a criterion' }).click()
    await quizEditor.getByLabel('Criterion 1: title').fill('Reasoning')
    expect(await quizEditor.getByLabel('Criterion 1: question it grades').inputValue()).toBe(shortQ!.id)
    await fillLevel(quizEditor, 1, 1, 'Weak', 1)
    await fillLevel(quizEditor, 1, 2, 'Strong', 5)
    await expectAccessible(p, 'rubric editor (quiz)')
    await quizEditor.getByRole('button', { name: 'Save rubric' }).click()
    await quizEditor.getByText('Rubric saved.').waitFor()
    const q = await api.get(`${base}/tasks/${quiz.id}`, { token: teacher.token })
    expect(q.data.rubric.criteria.map((c: any) => [c.title, c.questionId])).toEqual([['Reasoning', shortQ!.id]])

    // Experiment.
    await p.goto(`/courses/${courseId}/manage?tab=grading&experimentId=${lab.data.id}`)
    await p.getByText('No rubric yet: add one').click()
    const labEditor = p.getByRole('form', { name: 'Rubric of Prism lab' })
    await labEditor.getByRole('button', { name: 'Add a criterion' }).click()
    await labEditor.getByLabel('Criterion 1: title').fill('Method')
    await fillLevel(labEditor, 1, 1, 'Sketchy', 1)
    await fillLevel(labEditor, 1, 2, 'Careful', 4)
    await labEditor.getByRole('button', { name: 'Save rubric' }).click()
    await labEditor.getByText('Rubric saved.').waitFor()
    const l = await api.get(`/courses/${courseId}/experiments/${lab.data.id}`, { token: teacher.token })
    expect(shape(l.data.rubric)).toEqual([{ title: 'Method', levels: [['Sketchy', 1], ['Careful', 4]] }])

    // Alice hands in the quiz (choice right: 4 points) and the lab.
    const qs = await api.post(`${base}/tasks/${quiz.id}/submissions`, {
      token: alice.token,
      json: { answers: [ { questionId: choiceQ!.id, selectedOptions: [0] }, { questionId: shortQ!.id, text: '<p>Because evidence.</p>' } ] },
    })
    expect([qs.status, qs.code]).toEqual([201, 0])
    const ls = await api.post(`/experiments/${lab.data.id}/submissions`, { token: alice.token, form: formOf({ file: new File(['%PDF-1.4 lab'], 'lab.pdf', { type: 'application/pdf' }) }) })
    expect(ls.status).toBe(201)

    // The quiz's short answer by rubric: "2" (Strong, 5 of 6) → (4 + 5) ÷ 10 = 90, Enter saves.
    await p.goto(`/courses/${courseId}/manage?tab=grading&taskId=${quiz.id}&student=${alice.id}`)
    await p.getByRole('form', { name: 'Grade Alice Wang by the rubric' }).waitFor()
    await firstCriterionFocused(p, 'Grade Alice Wang by the rubric')
    await p.getByText('grades question 2').waitFor()
    await p.keyboard.press('2')
    await p.getByTestId('rubric-score').getByText('Score by the rubric: 90 / 100').waitFor()
    await expectAccessible(p, 'quiz graded by rubric')
    await p.keyboard.press('Enter')
    await p.getByRole('form', { name: 'Grade Alice Wang by the rubric' }).getByText('Saved.').waitFor()
    const qg = await api.get(`${base}/tasks/${quiz.id}/submissions`, { token: teacher.token })
    expect([qg.data.items[0].status, qg.data.items[0].score, qg.data.items[0].rubricChoices.length]).toEqual(['GRADED', 90, 1])
    expect(qg.data.items[0].questionScores).toEqual([{ questionId: shortQ!.id, score: 5 }])

    // The experiment by rubric: "1" (Sketchy, 1 of 4) → 25.
    await p.goto(`/courses/${courseId}/manage?tab=grading&experimentId=${lab.data.id}&student=${alice.id}`)
    await firstCriterionFocused(p, 'Grade Alice Wang by the rubric')
    await p.keyboard.press('1')
    await p.getByTestId('rubric-score').getByText('Score by the rubric: 25 / 100').waitFor()
    await expectAccessible(p, 'experiment graded by rubric')
    await p.keyboard.press('Enter')
    await p.getByRole('form', { name: 'Grade Alice Wang by the rubric' }).getByText('Saved.').waitFor()
    const lg = await api.get(`/experiments/${lab.data.id}/submissions/latest`, { token: alice.token })
    expect([lg.data.score, lg.data.rubricChoices.length]).toEqual([25, 1])

    // Alice sees the levels picked: on the quiz and on the experiment page.
    await sp.goto(`/courses/${courseId}?taskId=${quiz.id}`)
    const quizView = sp.getByTestId('rubric-view').first()
    await quizView.getByText('Rubric: your levels (5 of 5 points)').waitFor()
    expect(await quizView.locator('[data-chosen="true"]').allTextContents()).toEqual(['Strong (5 points) Your level'])
    await sp.goto(`/experiments/${lab.data.id}?courseId=${courseId}`)
    const labView = sp.getByTestId('rubric-view')
    await labView.getByText('Rubric: your levels (1 of 4 points)').waitFor()
    expect(await labView.locator('[data-chosen="true"]').allTextContents()).toEqual(['Sketchy (1 point) Your level'])
    await expectAccessible(sp, 'experiment page with the rubric levels')
    expectNoErrors(tt)
    expectNoErrors(st)
    await tt.context.close()
    await st.context.close()
  }, 180_000)

  test('40 students of a MANUAL homework graded by keyboard (≤ 4 keys + the digits each), released, charted', async () => {
    const { server } = ctx
    const { api, deps } = server
    const STUDENTS = 40
    const teacher = await signUp(api, 'TEACHER', 'Tess Teacher')
    const students = await seedStudents(deps, STUDENTS)
    const { courseId, base, essay } = await courseWithEssay(server, teacher, students, { course: 'Composition', unit: 'Essays', point: 'Week 9', essay: 'Essay 9' }, { gradeRelease: 'MANUAL' })
    const put = await api.put(`${base}/tasks/${essay.id}/rubric`, {
      token: teacher.token,
      json: {
        rubric: {
          criteria: [
            { title: 'Thesis', levels: [ { title: 'Missing', points: 0 }, { title: 'Vague', points: 2 }, { title: 'Clear', points: 4 } ] },
            { title: 'Evidence', levels: [ { title: 'None', points: 0 }, { title: 'Some', points: 3 }, { title: 'Strong', points: 6 } ] },
            { title: 'Style', levels: [ { title: 'Rough', points: 0 }, { title: 'Clear', points: 5 }, { title: 'Elegant', points: 10 } ] },
          ],
        },
      },
    })
    expect([put.status, put.code]).toEqual([200, 0])
    const points = [[0, 2, 4], [0, 3, 6], [0, 5, 10]]
    const sheets = new Map<string, string>()
    for (let i = 0; i < STUDENTS; i += 8) {
      await Promise.all(
        students.slice(i, i + 8).map(async (s) => {
          const r = await api.post(`${base}/tasks/${essay.id}/submissions`, { token: s.token, json: { content: `<p>${s.username} argues</p>` } })
          expect([r.status, r.code]).toEqual([201, 0])
          sheets.set(s.id, r.data.id)
        }),
      )
    }
    // Each student's digits (levels 1-3 per criterion), from their number: every combination shows up.
    const byName = new Map(students.map((s, i) => [`Student ${String(i + 1).padStart(2, '0')}`, { s, digits: [1 + (i % 3), 1 + (Math.floor(i / 3) % 3), 1 + (Math.floor(i / 9) % 3)] }]))
    const expected = (digits: number[]) => Math.round((digits.reduce((a, d, c) => a + points[c]![d - 1]!, 0) / 20) * 10000) / 100

    const tt = await loggedInTab(ctx, teacher)
    const p = tt.page
    await p.goto(`/courses/${courseId}/manage?tab=grading&taskId=${essay.id}`)
    const counter = countingKeyboard(p.keyboard)
    const sheet = p.getByTestId('grading-sheet')
    const perStudent: number[] = []
    const graded = new Set<string>()
    for (let n = 0; n < STUDENTS; n++) {
      const name = (await sheet.locator('h3').textContent())!
      const who = byName.get(name)
      expect(who).toBeDefined()
      expect(graded.has(name)).toBe(false)
      const formName = `Grade ${name} by the rubric`
      await firstCriterionFocused(p, formName)
      counter.take()
      for (const d of who!.digits) await counter.keyboard.press(String(d))
      await sheet.getByTestId('rubric-score').getByText(`Score by the rubric: ${expected(who!.digits)} / 100`).waitFor()
      if (n === 4) {
        await expectAccessible(p, 'grading by rubric, 40 students')
        if (SHOTS) await shot(p, 'rubric-grading')
      }
      await counter.keyboard.press('Enter')
      const keys = counter.take()
      perStudent.push(keys)
      expect(keys).toBeLessThanOrEqual(4 + who!.digits.length)
      graded.add(name)
      // Saved: the next student opens (the last stays, saved).
      if (n < STUDENTS - 1) await sheet.locator('h3').filter({ hasNotText: name }).waitFor()
      else await p.getByRole('form', { name: formName }).getByText('Saved.').waitFor()
    }
    expect(perStudent).toEqual(Array(STUDENTS).fill(4))

    // Every score saved: the sums of the chosen levels (held until the release).
    const list = await api.get(`${base}/tasks/${essay.id}/submissions`, { token: teacher.token })
    expect(list.status).toBe(200)
    const items = list.data.items as { id: string; status: string; score: number; released: boolean; rubricChoices: unknown[] }[]
    for (const [, { s, digits }] of byName) {
      const it = items.find((x) => x.id === sheets.get(s.id))!
      expect([it.status, it.score, it.released, it.rubricChoices.length]).toEqual(['GRADED', expected(digits), false, 3])
    }
    const first = byName.get('Student 01')!
    const mine = await api.get(`${base}/tasks/${essay.id}/submissions`, { token: first.s.token })
    expect([mine.data.items[0].score, mine.data.items[0].rubricChoices]).toEqual([null, []])

    // Release: 40 grades out; the student then sees the levels.
    await p.getByTestId('release-bar').getByText(`${STUDENTS} grades wait for release: students see them only after you release them.`).waitFor()
    await p.getByRole('button', { name: 'Release grades' }).click()
    await p.getByTestId('released').getByText(`${STUDENTS} grades released; ${STUDENTS} student(s) notified.`).waitFor()
    const st = await loggedInTab(ctx, first.s, { landing: /\/(courses|homeworks)/ })
    const sp = st.page
    await sp.goto(`/courses/${courseId}?taskId=${essay.id}`)
    const view = sp.getByTestId('rubric-view').first()
    await view.getByText('Rubric: your levels (0 of 20 points)').waitFor()
    expect(await view.locator('[data-chosen="true"]').count()).toBe(3)

    // The charts: 40 graded in the score distribution, bars as their table says.
    await p.goto(`/courses/${courseId}/manage?tab=charts&taskId=${essay.id}`)
    const scores = p.getByTestId('chart-scores')
    await scores.locator('rect.chart-bar').first().waitFor({ state: 'attached' })
    const bars = await scores.locator('rect.chart-bar').evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('data-value'))))
    expect(bars.reduce((a, b) => a + b, 0)).toBe(STUDENTS)
    const buckets = Array(10).fill(0)
    for (const [, { digits }] of byName) buckets[Math.min(9, Math.floor(expected(digits) / 10))]++
    expect(bars).toEqual(buckets)
    await p.getByTestId('chart-totals').locator('rect.chart-bar').first().waitFor({ state: 'attached' })
    await expectAccessible(p, 'charts, 40 students')
    if (SHOTS) await shot(p, 'charts')
    expectNoErrors(tt)
    expectNoErrors(st)
    await tt.context.close()
    await st.context.close()
  }, 180_000)
})
