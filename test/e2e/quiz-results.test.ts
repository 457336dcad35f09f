import { describe, expect, test, setDefaultTimeout } from 'bun:test'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp } from '../support/harness.ts'
import { expectNoErrors, hasChromium, logIn, openTab, PHONE, serverAndBrowser } from './support.ts'

// A browser test is many page loads: Bun's 5 s per test is too short on a loaded machine.
setDefaultTimeout(60_000)

/*
 * Issue 29.10 in Chromium at 390 px, English and Chinese: handing in a quiz whose choice
 * questions are 4 of its 10 points says so ("2 / 4 points; short answers await grading", not
 * "Auto score: 50 / 100"), and once the teacher grades it the student sees each question's points.
 */
const LANGS = [
  { locale: 'en-GB', said: 'Submitted. Choice questions: 2 / 4 points; short answers await grading.', results: ['2 / 2 points', '0 / 2 points', '4.5 / 6 points'] },
  { locale: 'zh-CN', said: '已提交。 选择题：2 / 4 分；简答题等待老师批改。', results: ['2 / 2 分', '0 / 2 分', '4.5 / 6 分'] },
] as const

describe.skipIf(!hasChromium)('web front end in Chromium: a quiz hand-in and its graded results', () => {
  const ctx = serverAndBrowser()

  for (const { locale, said, results } of LANGS) {
    test(`${locale}: the hand-in message counts choice points; per-question points after grading`, async () => {
      const { server, browser } = ctx
      const teacher = await signUp(server.api, 'TEACHER')
      const student = await signUp(server.api)
      const course = await insertCourse(server.deps.sql, teacher.id, 'Thermodynamics')
      await addStudent(server.deps.sql, course.id, student.id)
      const base = `/courses/${course.id}/learning`
      const unit = await server.api.post(`${base}/units`, { token: teacher.token, json: { title: 'Heat' } })
      const point = await server.api.post(`${base}/units/${unit.data.id}/points`, { token: teacher.token, json: { title: 'Work' } })
      const quiz = await server.api.post(`${base}/points/${point.data.id}/tasks`, {
        token: teacher.token,
        json: {
          title: 'Heat quiz',
          taskType: 'QUIZ',
          questions: [
            { type: 'SINGLE_CHOICE', stem: 'Unit of energy?', options: ['Joule', 'Watt'], correctOptions: [0], points: 2 },
            { type: 'SINGLE_CHOICE', stem: 'Unit of power?', options: ['Kelvin', 'Watt'], correctOptions: [1], points: 2 },
            { type: 'SHORT_ANSWER', stem: 'Explain the first law.', points: 6 },
          ],
        },
      })
      expect(quiz.status).toBe(201)
      const [q1, q2, q3] = quiz.data.questions

      const tab = await openTab(browser, server.baseUrl, { viewport: PHONE, locale })
      const { page } = tab
      await logIn(page, student)
      await page.goto(`/courses/${course.id}?taskId=${quiz.data.id}`)
      const form = page.locator('form.quiz')
      await form.waitFor()
      await form.getByLabel('Joule').check()
      await form.getByLabel('Kelvin').check()
      await form.locator(`[id$="${q3.id}-text"]`).first().click()
      await page.keyboard.type('Energy is conserved.')
      await form.locator('button[type="submit"]').click()
      const message = page.getByTestId('quiz-result')
      await message.waitFor()
      expect((await message.textContent())?.trim()).toBe(said)
      expect(await page.getByTestId('question-result').count()).toBe(0)

      const sheets = await server.api.get(`${base}/tasks/${quiz.data.id}/submissions`, { token: teacher.token })
      const graded = await server.api.patch(`${base}/submissions/${sheets.data.items[0].id}/grade`, {
        token: teacher.token,
        json: { questionScores: [{ questionId: q3.id, score: 4.5 }] },
      })
      expect(graded.status).toBe(200)
      expect(graded.data.questionResults.map((r: any) => r.questionId)).toEqual([q1.id, q2.id, q3.id])
      await page.reload()
      const badges = page.getByTestId('my-submission').getByTestId('question-result')
      await badges.first().waitFor()
      expect((await badges.allTextContents()).map((s) => s.trim())).toEqual([...results])
      expect(await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)).toBeLessThanOrEqual(0)
      expectNoErrors(tab)
      await tab.context.close()
    }, 60_000)
  }
})
