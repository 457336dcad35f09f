import { expect } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import { expectAccessible, expectNoErrors, openTab, registerViaUi, uniqueName, type Tab } from './support.ts'

/**
 * The end-to-end journeys against the real service, shared by flow.test.ts and the
 * screenshot script.
 */
export interface FlowEnv {
  browser: Browser
  baseUrl: string
  /** The server's notion of now (the test's clock). */
  now: () => Date
  /** Moves server time forward and runs the reminder scan; false when no scan is available. */
  advanceAndDispatch: (ms: number) => Promise<boolean>
  /** Called at interesting moments, e.g. to take screenshots. */
  snapshot?: (page: Page, name: string) => Promise<void>
  viewport?: { width: number; height: number }
}

/** A datetime-local value for a browser running in UTC (openTab sets timezoneId UTC). */
export const localInput = (d: Date) => d.toISOString().slice(0, 16)

async function tab(env: FlowEnv): Promise<Tab> {
  const t = await openTab(env.browser, env.baseUrl, { viewport: env.viewport })
  return t
}

async function visit(env: FlowEnv, page: Page, name: string) {
  await page.waitForLoadState('networkidle')
  await expectAccessible(page, name)
  await env.snapshot?.(page, name)
}

export interface FlowResult {
  courseId: string
  inviteCode: string
  teacher: Tab
  student: Tab
  reminderDispatched: boolean
}

/**
 * The journey: a teacher creates a course and a homework with a quiz; a student registers,
 * joins with the code, sees the homework in the centre, answers and sees the auto score; the teacher
 * grades the written answer; the student sees the score, the red dot and the notification, and
 * marks it read.
 */
export async function fullFlow(env: FlowEnv): Promise<FlowResult> {
  const teacher = await tab(env)
  const tp = teacher.page
  const title = `Databases ${uniqueName('')}`.slice(0, 40)
  const hwTitle = 'Homework 1: keys'

  // Teacher: account and course.
  await registerViaUi(tp, { username: uniqueName('teach'), role: 'TEACHER', displayName: 'Prof. Lin' })
  await tp.waitForURL('**/courses')
  await tp.getByLabel('Title').fill(title)
  await tp.getByLabel('Description').fill('Relational modelling, SQL and transactions.')
  await tp.getByRole('button', { name: 'Create course' }).click()
  const inviteCode = ((await tp.getByTestId('new-invite-code').textContent()) ?? '').trim()
  expect(inviteCode.length).toBeGreaterThanOrEqual(6)
  await tp.getByTestId('course-list').getByRole('link', { name: title }).waitFor()
  await visit(env, tp, 'courses-teacher')

  // Teacher: learning structure and a homework quiz (one choice question, one short answer).
  await tp.getByRole('link', { name: 'Set up the course' }).click()
  await tp.waitForURL(/\/courses\/[^/]+\/manage$/)
  const courseId = new URL(tp.url()).pathname.split('/')[2]!
  await tp.getByLabel('Unit title').fill('The relational model')
  await tp.getByRole('button', { name: 'Add unit' }).click()
  await tp.getByRole('heading', { name: 'Unit 1: The relational model' }).waitFor()
  await tp.getByLabel('Knowledge point title').fill('Keys')
  await tp.getByRole('button', { name: 'Add knowledge point' }).click()
  await tp.getByRole('heading', { name: 'Keys', level: 4 }).waitFor()
  await tp.getByRole('button', { name: /^Add task/ }).click()
  const form = tp.getByRole('form', { name: 'New task' })
  await form.getByLabel('Task title').fill(hwTitle)
  await form.getByLabel('Homework', { exact: true }).check()
  await form.getByLabel('Quiz', { exact: true }).check()
  await form.getByLabel('Question 1', { exact: true }).fill('Which key identifies a row of a table?')
  await form.getByLabel('Question 1 option 1').fill('A foreign key')
  await form.getByLabel('Question 1 option 2').fill('A primary key')
  await form.getByLabel('Option 2 is correct').check()
  await form.getByRole('button', { name: 'Add question' }).click()
  await form.getByLabel('Question 2 type').selectOption('SHORT_ANSWER')
  await form.getByLabel('Question 2', { exact: true }).fill('Why do foreign keys matter?')
  const opens = new Date(env.now().getTime() + 60 * 60_000)
  await form.getByLabel('Opens at').fill(localInput(opens))
  await form.getByLabel('Due at').fill(localInput(new Date(opens.getTime() + 3 * 86400_000)))
  await visit(env, tp, 'manage-new-task')
  await form.getByRole('button', { name: 'Create task' }).click()
  await tp.locator('.task-row').filter({ hasText: hwTitle }).waitFor()
  await visit(env, tp, 'manage-learning')

  // Student: account, join by code (typed in lower case), course workspace.
  const student = await tab(env)
  const sp = student.page
  await registerViaUi(sp, { username: uniqueName('stud'), role: 'STUDENT', displayName: 'Sam Student' })
  await sp.waitForURL('**/courses')
  await visit(env, sp, 'courses-student-empty')
  await sp.getByLabel('Invite code').fill(` ${inviteCode.toLowerCase()} `)
  await sp.getByRole('button', { name: 'Join course' }).click()
  await sp.waitForURL(`**/courses/${courseId}`)
  await sp.getByRole('heading', { name: title, level: 1 }).waitFor()
  await visit(env, sp, 'workspace-student-before')

  // The homework opens; the reminder scan delivers the START reminder.
  const reminderDispatched = await env.advanceAndDispatch(61 * 60_000)

  // Student: homework centre, the red dot, answer in place, auto score.
  await sp.goto('/homeworks')
  const card = sp.getByTestId('homework-list').locator('li').filter({ hasText: hwTitle })
  await card.waitFor()
  expect(await card.getByText('In progress').count()).toBe(1)
  if (reminderDispatched) await sp.getByTestId('reminder-dot').waitFor()
  await visit(env, sp, 'homeworks-student')
  await card.getByRole('link', { name: hwTitle }).click()
  await sp.waitForURL(/\?taskId=/)
  const quiz = sp.getByRole('form', { name: `Answer ${hwTitle}` })
  await quiz.getByLabel('A primary key').check()
  await quiz.getByLabel('Your answer').fill('They keep references between tables consistent.')
  await quiz.getByRole('button', { name: 'Submit answers' }).click()
  await sp.getByTestId('quiz-result').waitFor()
  // The choice question's points out of its own, not "100 / 100" (issue 29.10).
  const said = (await sp.getByTestId('quiz-result').textContent()) ?? ''
  const [, got, of] = said.match(/Choice questions: (\d+(?:\.\d+)?) \/ (\d+(?:\.\d+)?) points; short answers await grading\./) ?? []
  expect([got, said]).toEqual([of, said])
  const auto = sp.getByTestId('auto-score').first()
  await auto.waitFor()
  expect(await auto.textContent()).toMatch(/^\d+(\.\d)? \/ 100$/)
  await visit(env, sp, 'workspace-student-answered')

  // Teacher: grade the written answer.
  await tp.goto(`/courses/${courseId}/manage?tab=grading`)
  await tp.getByLabel('What to grade').selectOption({ label: `${hwTitle} (homework)` })
  const sub = tp.getByTestId('task-submission')
  await sub.getByText('They keep references between tables consistent.').waitFor()
  // Per question: half a point of one for the short answer, then the teacher overrides the total.
  await sub.getByLabel('Points for question 2 (0–1)').fill('0.5')
  await sub.getByText('Computed score: 75 / 100').waitFor()
  await sub.getByLabel('Override the computed score').check()
  await sub.getByLabel('Score (0–100)').fill('90')
  await sub.getByRole('textbox', { name: 'Feedback' }).click()
  await tp.keyboard.type('Well argued. ')
  await tp.keyboard.press('Control+b')
  await tp.keyboard.type('Keep it up.')
  await visit(env, tp, 'manage-grading')
  await sub.getByRole('button', { name: 'Save grade' }).click()
  await sub.getByText('Grade saved.').waitFor()

  // Student: the notification, the red dot, the score and the feedback; mark read.
  await sp.goto('/messages')
  const graded = sp.getByTestId('message').filter({ has: sp.locator('.badge', { hasText: /^Graded$/ }) })
  await graded.first().waitFor()
  expect(await graded.first().getAttribute('data-read')).toBe('false')
  await sp.getByTestId('unread-count').waitFor()
  if (reminderDispatched) {
    await sp.getByTestId('reminder-dot').waitFor()
    await sp.getByTestId('message').filter({ has: sp.locator('.badge', { hasText: 'Homework reminder' }) }).first().waitFor()
  }
  await visit(env, sp, 'messages-student')
  await graded.first().getByRole('button', { name: /^Mark as read/ }).click()
  await sp.waitForFunction(() => document.querySelector('[data-testid="message"][data-read="false"] .badge')?.textContent !== 'Graded')
  expect(await graded.first().getAttribute('data-read')).toBe('true')

  await sp.goto('/homeworks')
  await card.getByRole('link', { name: hwTitle }).click()
  await sp.waitForURL(/\?taskId=/)
  const score = sp.getByTestId('score').first()
  await score.waitFor()
  expect(await score.textContent()).toBe('90 / 100')
  await sp.locator('.feedback').getByText('Well argued.').first().waitFor()
  expect(await sp.locator('.feedback strong').first().textContent()).toBe('Keep it up.')

  await sp.goto('/messages')
  await sp.getByRole('button', { name: 'Mark all as read' }).click()
  await sp.getByText('0 unread').waitFor()
  await sp.getByTestId('reminder-dot').waitFor({ state: 'detached' })
  expect(await sp.getByTestId('unread-count').count()).toBe(0)
  expect(await sp.locator('[data-testid="message"][data-read="false"]').count()).toBe(0)

  expectNoErrors(teacher)
  expectNoErrors(student)
  return { courseId, inviteCode, teacher, student, reminderDispatched }
}

/**
 * The rest of the teacher's tools, after fullFlow: announcements with the rich-text editor,
 * drag-and-drop task order, workspace modules, experiments, resources with upload progress,
 * the reminder schedule and the grade overview; and the student's experiment page.
 */
export async function teacherToolsFlow(env: FlowEnv, r: FlowResult) {
  const tp = r.teacher.page
  const sp = r.student.page

  // Announcement with formatting from the editor's toolbar.
  await tp.goto(`/courses/${r.courseId}/manage?tab=announcements`)
  await tp.getByLabel('Title').fill('Welcome')
  const editor = tp.getByRole('textbox', { name: 'Message' })
  await editor.click()
  await tp.keyboard.type('Read ')
  await tp.getByRole('button', { name: 'Bold' }).click()
  await tp.keyboard.type('chapter 1')
  await tp.getByRole('button', { name: 'Bold' }).click()
  await tp.keyboard.type(' before Monday.')
  // Publishing notifies every student: the teacher confirms, told how many.
  const confirmed = new Promise<string>((resolve) =>
    tp.once('dialog', (d) => {
      resolve(d.message())
      void d.accept()
    }),
  )
  await tp.getByRole('button', { name: 'Publish' }).click()
  expect(await confirmed).toBe('Publish this announcement? 1 student will be notified.')
  await tp.locator('.announcement strong').filter({ hasText: 'chapter 1' }).waitFor()
  expect(await tp.locator('.announcement .rich').first().textContent()).toBe('Read chapter 1 before Monday.')
  await visit(env, tp, 'manage-announcements')

  // Two more tasks, then reorder by dragging the last one to the top.
  await tp.goto(`/courses/${r.courseId}/manage?tab=learning`)
  for (const [name, url] of [
    ['Reading: Codd 1970', 'https://example.org/codd'],
    ['Video: normal forms', 'https://example.org/nf'],
  ] as const) {
    await tp.getByRole('button', { name: /^Add task/ }).click()
    const f = tp.getByRole('form', { name: 'New task' })
    await f.getByLabel('Task title').fill(name)
    await f.getByLabel('Material type').selectOption('LINK')
    await f.getByLabel('Link address').fill(url)
    await f.getByRole('button', { name: 'Create task' }).click()
    await tp.locator('.task-row').filter({ hasText: name }).waitFor()
  }
  const rows = tp.locator('.task-row')
  const titles = async () => (await rows.locator('.task-title').allTextContents()).map((s) => s.trim())
  expect(await titles()).toEqual(['Homework 1: keys', 'Reading: Codd 1970', 'Video: normal forms'])
  // Both rows in view before the drag: Playwright scrolls to the target between mouse down and
  // up otherwise, and a page that scrolls mid-drag never starts one (the learning tab is taller
  // since the task form offers draft / schedule).
  await tp.locator('.task-order').first().evaluate((e) => e.scrollIntoView({ block: 'center' }))
  await rows.filter({ hasText: 'Video: normal forms' }).locator('.task-title').dragTo(rows.filter({ hasText: 'Homework 1: keys' }).locator('.task-title'))
  await tp.waitForFunction(() => document.querySelector('.task-row .task-title')?.textContent === 'Video: normal forms')
  await tp.waitForLoadState('networkidle')
  await tp.reload()
  await rows.first().waitFor()
  expect(await titles()).toEqual(['Video: normal forms', 'Homework 1: keys', 'Reading: Codd 1970'])
  // And with the keyboard: move the homework back to the top.
  await tp.getByRole('button', { name: 'Move up: Homework 1: keys' }).focus()
  await tp.keyboard.press('Enter')
  await tp.waitForFunction(() => document.querySelector('.task-row .task-title')?.textContent === 'Homework 1: keys')
  await tp.waitForLoadState('networkidle')
  await tp.reload()
  await rows.first().waitFor()
  expect(await titles()).toEqual(['Homework 1: keys', 'Video: normal forms', 'Reading: Codd 1970'])

  // The homework's reminder schedule.
  await tp.getByRole('button', { name: 'Reminders: Homework 1: keys' }).click()
  await tp.getByRole('heading', { name: 'Reminder schedule of Homework 1: keys' }).waitFor()
  await tp.getByRole('region', { name: 'Reminders of Homework 1: keys' }).waitFor()
  await visit(env, tp, 'manage-reminders')

  // Workspace modules: hide Quizzes, put Homework first.
  await tp.goto(`/courses/${r.courseId}/manage?tab=modules`)
  await tp.getByRole('checkbox', { name: 'Quizzes' }).uncheck()
  for (let i = 0; i < 2; i++) await tp.getByRole('button', { name: 'Move up: Homework' }).click()
  await tp.getByRole('button', { name: 'Save modules' }).click()
  await tp.getByText('Saved. The course page now shows these sections.').waitFor()
  await visit(env, tp, 'manage-modules')
  await sp.goto(`/courses/${r.courseId}`)
  await sp.locator('section.section').first().waitFor()
  const sections = await sp.locator('section.section h2').allTextContents()
  expect(sections[0]).toBe('Homework')
  expect(sections).not.toContain('Quizzes')

  // Resources: a file with upload progress, and a link.
  await tp.goto(`/courses/${r.courseId}/manage?tab=resources`)
  await tp.getByLabel('Name').fill('Lecture 1 slides')
  await tp.getByLabel('Category').fill('Slides')
  await tp.getByLabel('File', { exact: true }).setInputFiles({ name: 'lecture-1.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(256 * 1024, 7) })
  await tp.getByRole('button', { name: 'Add resource' }).click()
  await tp.getByRole('region', { name: 'Course resources' }).getByText('Lecture 1 slides').waitFor()
  await tp.getByLabel('Name').fill('SQL tutorial')
  await tp.getByLabel('Type').selectOption('LINK')
  await tp.getByLabel('Address').fill('https://example.org/sql')
  await tp.getByRole('button', { name: 'Add resource' }).click()
  await tp.getByRole('region', { name: 'Course resources' }).getByText('SQL tutorial').waitFor()
  await visit(env, tp, 'manage-resources')

  // Experiments: publish; the student submits a file with a note; the teacher grades it.
  await tp.goto(`/courses/${r.courseId}/manage?tab=experiments`)
  await tp.getByLabel('Title').fill('Lab 1: indexes')
  await tp.getByRole('textbox', { name: 'Description' }).click()
  await tp.keyboard.type('Measure a query before and after adding an index.')
  await tp.getByLabel('Due at').fill(localInput(new Date(env.now().getTime() + 7 * 86400_000)))
  await tp.getByRole('button', { name: 'Publish experiment' }).click()
  const expLink = tp.getByRole('link', { name: 'Lab 1: indexes' })
  await expLink.waitFor()
  await visit(env, tp, 'manage-experiments')

  await sp.goto(`/courses/${r.courseId}?module=experiments`)
  await sp.locator('#section-experiments').getByRole('link', { name: 'Lab 1: indexes' }).click()
  await sp.waitForURL(/\/experiments\/[^/]+\?courseId=/)
  await sp.getByRole('heading', { name: 'Lab 1: indexes', level: 1 }).waitFor()
  await sp.getByLabel('File', { exact: true }).setInputFiles({ name: 'lab1-report.txt', mimeType: 'text/plain', buffer: Buffer.from('EXPLAIN ANALYZE ...\n') })
  await sp.getByLabel('Note').fill('Index on orders(customer_id).')
  await sp.getByRole('button', { name: 'Submit', exact: true }).click()
  await sp.getByTestId('experiment-latest').getByText('lab1-report.txt').waitFor()
  await visit(env, sp, 'experiment-student')

  await tp.goto(`/courses/${r.courseId}/manage?tab=experiments`)
  await tp.getByRole('button', { name: 'Submissions: Lab 1: indexes' }).click()
  // One student at a time (issue 29.8): the newest file with its link, then the grade form.
  await tp.getByTestId('experiment-submission').getByRole('link', { name: 'lab1-report.txt' }).waitFor()
  await tp.getByLabel('Score (0–100)').fill('77.5')
  await tp.getByRole('button', { name: 'Save grade' }).click()
  await tp.getByText('Grade saved.').waitFor()

  // Grade overview with its CSV link.
  await tp.goto(`/courses/${r.courseId}/manage?tab=grades`)
  await tp.getByTestId('grade-overview').getByText('Sam Student').waitFor()
  expect(await tp.getByRole('link', { name: 'Download as CSV' }).getAttribute('href')).toBe(`/core/api/v1/courses/${r.courseId}/grades/overview.csv`)
  await visit(env, tp, 'manage-grades')

  // The teacher's workspace view and the student's grades.
  await tp.goto(`/courses/${r.courseId}`)
  await tp.locator('section.section').first().waitFor()
  await visit(env, tp, 'workspace-teacher')
  await sp.goto(`/courses/${r.courseId}?module=grades`)
  await sp.locator('#section-grades').getByRole('heading', { name: 'Grades and feedback' }).waitFor()
  await visit(env, sp, 'workspace-student-grades')

  expectNoErrors(r.teacher)
  expectNoErrors(r.student)
}
