import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { signUp } from '../support/harness.ts'
import { expectNoErrors, hasChromium, logIn, openTab, serverAndBrowser } from './support.ts'

setDefaultTimeout(90_000)

/*
 * Issue 52 in Chromium: a teacher registers an LTI tool in the course settings and adds an LTI
 * task in the task editor; a student opens it and the new window reaches the tool's login
 * initiation with the launch parameters (the protocol beyond is test/lti/ltijs.test.ts).
 */
const logins: URL[] = []
const tool = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: (r) => {
    const url = new URL(r.url)
    if (url.pathname === '/login') logins.push(url)
    return new Response('<!doctype html><title>Tool</title><p>tool login reached</p>', { headers: { 'content-type': 'text/html' } })
  },
})
const toolOrigin = `http://127.0.0.1:${tool.port}`
afterAll(() => tool.stop(true))

describe.skipIf(!hasChromium)('web front end in Chromium: LTI tools', () => {
  const ctx = serverAndBrowser()

  test('a teacher registers a tool and adds an LTI task; a student launches it', async () => {
    const { server, browser } = ctx
    const teacher = await signUp(server.api, 'TEACHER')
    const student = await signUp(server.api)
    const course = await insertCourse(server.deps.sql, teacher.id, 'Programming')
    await addStudent(server.deps.sql, course.id, student.id)
    const base = `/courses/${course.id}/learning`
    const unit = await server.api.post(`${base}/units`, { token: teacher.token, json: { title: 'Loops' } })
    await server.api.post(`${base}/units/${unit.data.id}/points`, { token: teacher.token, json: { title: 'For loops' } })

    const t = await openTab(browser, server.baseUrl)
    const p = t.page
    await logIn(p, teacher)
    await p.goto(`/courses/${course.id}/manage?tab=settings`)
    const register = p.getByRole('form', { name: 'Register a tool by hand' })
    await register.getByLabel('Name', { exact: true }).fill('Code sandbox')
    await register.getByLabel('Login initiation URL').fill(`${toolOrigin}/login`)
    await register.getByLabel('Launch URL').fill(`${toolOrigin}/launch`)
    await register.getByLabel('Public keys (JWKS) URL').fill(`${toolOrigin}/keys`)
    await register.getByRole('button', { name: 'Register' }).click()
    await p.getByTestId('lti-platform').waitFor()
    expect(await p.getByTestId('lti-platform').textContent()).toContain(`${server.baseUrl}/lti/authorize`)
    await p.getByTestId('lti-tool').getByText('Code sandbox').waitFor()

    await p.goto(`/courses/${course.id}/manage?tab=learning`)
    await p.getByRole('button', { name: /^Add task/ }).first().click()
    const form = p.getByRole('form', { name: 'New task' })
    await form.getByLabel('Task title').fill('Sandbox: loops')
    await form.getByLabel('External tool (LTI)').check()
    await form.getByLabel('Tool', { exact: true }).selectOption({ label: 'Code sandbox' })
    await form.getByRole('button', { name: /Create task|Publish/ }).click()
    await form.waitFor({ state: 'detached' })
    const tree = await server.api.get(base, { token: teacher.token })
    const task = tree.data.units[0].points[0].tasks.find((x: any) => x.title === 'Sandbox: loops')
    expect(task).toMatchObject({ taskType: 'LTI', lti: { targetLinkUri: null, custom: {} } })
    // The tool's picker (deep linking) is offered on the knowledge point.
    const pick = p.getByTestId('lti-pick').first()
    expect(await pick.getAttribute('href')).toContain(`/lti/tools/${task.lti.toolId}/deep-linking`)
    expectNoErrors(t)

    const s = await openTab(browser, server.baseUrl)
    await logIn(s.page, student)
    await s.page.goto(`/courses/${course.id}?taskId=${task.id}`)
    const link = s.page.getByTestId('lti-launch')
    await link.waitFor()
    const [popup] = await Promise.all([s.context.waitForEvent('page'), link.click()])
    await popup.waitForURL(`${toolOrigin}/login**`)
    await popup.getByText('tool login reached').waitFor()
    const login = logins.at(-1)!
    expect(login.searchParams.get('login_hint')).toBe(student.id)
    expect(login.searchParams.get('iss')).toBe(server.baseUrl)
    expect(login.searchParams.get('target_link_uri')).toBe(`${toolOrigin}/launch`)
    expectNoErrors(s)
  })
})
