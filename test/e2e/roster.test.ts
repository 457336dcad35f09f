import { beforeAll, describe, expect, test } from 'bun:test'
import { insertCourse } from '../support/fixtures.ts'
import { signUp, uniq, type Account } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, loggedInTab, serverAndBrowser } from './support.ts'

/**
 * Issue 23 in Chromium: a class list of 2,100 students (search, pages, remove with a
 * confirmation), the co-teachers panel, a pasted import with its per-row report, and a student
 * leaving a course after a confirmation.
 */
const BIG = 2_100

describe.skipIf(!hasChromium)('class list, import, co-teachers and leaving in Chromium', () => {
  let teacher: Account, coTeacher: Account, student: Account
  let courseId: string

  const suite = serverAndBrowser()
  beforeAll(async () => {
    ;[teacher, coTeacher, student] = await Promise.all([
      signUp(suite.server.api, 'TEACHER', 'Tess Teacher'),
      signUp(suite.server.api, 'TEACHER', 'Cora CoTeacher'),
      signUp(suite.server.api, 'STUDENT', 'Zed Leaver'),
    ])
    courseId = (await insertCourse(suite.server.deps.sql, teacher.id, 'Big Lecture')).id
    const sql = suite.server.deps.sql
    const prefix = uniq('e2e')
    await sql`
      insert into users (id, username, email, password_hash, display_name, role)
      select gen_uuid_v7(), ${prefix} || '_' || g, ${prefix} || '_' || g || '@example.test', 'x', 'Learner ' || lpad(g::text, 4, '0'), 'STUDENT'
        from generate_series(1, ${BIG}::int) g`
    await sql`
      insert into course_members (course_id, user_id, joined_at)
      select ${courseId}, id, now() + row_number() over (order by display_name) * interval '1 millisecond'
        from users where username like ${prefix + '\\_%'}`
    // Joined after every learner (the class list orders students by join time, then id; ids made
    // in one statement share milliseconds and are random within one).
    await sql`insert into course_members (course_id, user_id, joined_at) values (${courseId}, ${student.id}, now() + interval '1 hour')`
  }, 120_000)
  async function tabOf(who: Account) {
    const tab = await loggedInTab(suite, who)
    tab.page.on('dialog', (d) => void d.accept())
    return tab
  }

  test('teacher: 2,100+ students in pages of 50, search, remove with confirmation, co-teacher, import report', async () => {
    const tab = await tabOf(teacher)
    const p = tab.page
    await p.goto(`/courses/${courseId}/manage?tab=classList`)
    const list = p.getByTestId('class-list')
    await list.getByText('Learner 0001').waitFor()
    // The owner first, then the students of page 1.
    expect(await list.locator('tbody tr').count()).toBe(50)
    await p.getByTestId('class-count').getByText(/2,?102 people/).waitFor()
    await expectAccessible(p, 'class list')

    await p.getByRole('button', { name: 'Next' }).first().click()
    await list.getByText('Learner 0050').waitFor()

    await p.getByLabel('Search by name or username').fill('Zed')
    await list.getByText('Zed Leaver').waitFor()
    await p.getByTestId('class-count').getByText('1 person').waitFor()
    await p.getByRole('button', { name: 'Remove Zed Leaver from the course' }).click()
    await p.getByTestId('class-count').getByText('0 people').waitFor()
    const [gone] = await suite.server.deps.sql`select 1 from course_members where course_id = ${courseId} and user_id = ${student.id}`
    expect(gone).toBeUndefined()

    const panel = p.getByTestId('co-teachers')
    await panel.getByLabel('Username or e-mail of a teacher account').fill(coTeacher.username)
    await panel.getByRole('button', { name: 'Add co-teacher' }).click()
    await panel.getByText('Cora CoTeacher is now a co-teacher.').waitFor()

    const form = p.getByTestId('roster-import')
    await form.getByLabel('E-mail addresses').fill(`${student.email}\nnot-an-address\n${uniq('new')}@example.test`)
    await form.getByRole('button', { name: 'Import' }).click()
    const report = p.getByTestId('roster-report')
    await report.getByText('Enrolled 1, already in the course 0, invited 1, not imported 1.').waitFor()
    await report.getByText('Not an e-mail address').waitFor()
    await p.getByTestId('invitations').getByText('@example.test').first().waitFor()
    expectNoErrors(tab)
  }, 120_000)

  test('co-teacher: the course is theirs to manage; student: leaves after a confirmation', async () => {
    const co = await tabOf(coTeacher)
    await co.page.goto(`/courses/${courseId}/manage?tab=classList`)
    await co.page.getByTestId('class-list').waitFor()
    // Only the owner manages co-teachers.
    expect(await co.page.getByRole('button', { name: 'Add co-teacher' }).count()).toBe(0)
    expectNoErrors(co)

    const st = await tabOf(student)
    await st.page.goto(`/courses/${courseId}`)
    await st.page.getByRole('button', { name: 'Leave course' }).click()
    await st.page.waitForURL('**/courses')
    const [left] = await suite.server.deps.sql`select 1 from course_members where course_id = ${courseId} and user_id = ${student.id}`
    expect(left).toBeUndefined()
    expectNoErrors(st)
  }, 120_000)
})
