import { expect } from 'bun:test'
import type { Browser, Page } from 'playwright-core'
import type { Client } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, openTab, PASSWORD, uniqueName, type Tab } from './support.ts'

/**
 * The main journey in Simplified Chinese (issue 16), shared by i18n.test.ts and the screenshot
 * script. A teacher whose browser speaks Chinese, and a student who picks 简体中文 on an English
 * browser (so the choice is saved on the account and follows them to another device).
 *
 * It drives the pages localised on the i18n branch (login, registration, course list, messages);
 * the course workspace, homework centre and manage pages get their Chinese on the web-student and
 * web-teacher branches — extend `chineseFlow` with them after the merge.
 */
export interface I18nEnv {
  browser: Browser
  baseUrl: string
  /** The API in-process, for the steps whose pages are not part of this journey (announcements). */
  api: Client
  snapshot?: (page: Page, name: string) => Promise<void>
}

const lang = (page: Page) => page.evaluate(() => document.documentElement.lang)

async function visit(env: I18nEnv, t: Tab, name: string) {
  await t.page.waitForLoadState('networkidle')
  expect(await lang(t.page)).toBe('zh-CN')
  await expectAccessible(t.page, name)
  await env.snapshot?.(t.page, name)
}

async function registerInChinese(page: Page, o: { username: string; role: 'STUDENT' | 'TEACHER'; displayName: string }) {
  await page.getByLabel('用户名', { exact: true }).fill(o.username)
  await page.getByLabel('邮箱').fill(`${o.username}@example.test`)
  await page.getByLabel('显示名称').fill(o.displayName)
  await page.getByLabel('密码', { exact: true }).fill(PASSWORD)
  await page.getByLabel('确认密码').fill(PASSWORD)
  await page.getByLabel(o.role === 'TEACHER' ? '教师' : '学生', { exact: true }).check()
  await page.getByRole('button', { name: '注册' }).click()
}

export interface I18nResult {
  teacher: Tab
  student: Tab
  courseId: string
  teacherName: string
  studentName: string
}

export async function chineseFlow(env: I18nEnv): Promise<I18nResult> {
  // Teacher: a Chinese browser. The login page is Chinese before anyone has chosen anything.
  const teacher = await openTab(env.browser, env.baseUrl, { locale: 'zh-CN', timezoneId: 'Asia/Shanghai' })
  const tp = teacher.page
  const teacherName = uniqueName('laoshi')
  await tp.goto('/login')
  await tp.getByRole('heading', { name: '登录' }).waitFor()
  await visit(env, teacher, 'zh-login')

  // A failed login: the server's own sentence comes back in Chinese (Accept-Language).
  await tp.getByLabel('用户名或邮箱').fill(teacherName)
  await tp.getByLabel('密码').fill('wrong password')
  await tp.getByRole('button', { name: '登录' }).click()
  await tp.getByRole('alert').getByText('用户名/邮箱或密码不正确。').waitFor()

  await tp.getByRole('link', { name: '注册新账号' }).click()
  await tp.getByRole('heading', { name: '注册账号' }).waitFor()
  // Checks in the browser speak Chinese too, with a plural-aware count.
  await tp.getByRole('button', { name: '注册' }).click()
  await tp.getByText('请修改下方标出的 3 处错误。').waitFor()
  await tp.getByText('请设置用户名。').waitFor()
  await registerInChinese(tp, { username: teacherName, role: 'TEACHER', displayName: '林老师' })
  await tp.waitForURL('**/courses')
  await tp.getByRole('heading', { name: '我的课程', level: 1 }).waitFor()
  await tp.getByRole('heading', { name: '我教的课程' }).waitFor()
  await tp.getByText('还没有课程，创建你的第一门课程吧。').waitFor()

  // Create a course.
  const title = `数据库原理 ${uniqueName('')}`.slice(0, 30)
  await tp.getByRole('button', { name: '创建课程' }).click()
  await tp.getByText('请填写课程名称。').waitFor()
  await tp.getByLabel('课程名称').fill(title)
  await tp.getByLabel('课程简介').fill('关系模型、SQL 与事务。')
  await tp.getByRole('button', { name: '创建课程' }).click()
  const created = tp.getByTestId('created-course')
  await created.getByText('已创建好。把这个邀请码发给你的学生：').waitFor()
  const inviteCode = ((await tp.getByTestId('new-invite-code').textContent()) ?? '').trim()
  expect(inviteCode.length).toBeGreaterThanOrEqual(6)
  const card = tp.getByTestId('course-list').locator('li').filter({ hasText: title })
  await card.getByText('你是这门课的任课教师').waitFor()
  await card.getByRole('link', { name: '管理' }).waitFor()
  const courseId = (await card.getByRole('link', { name: title }).getAttribute('href'))!.split('/')[2]!
  await visit(env, teacher, 'zh-courses-teacher')

  // Student: an English browser; 简体中文 picked on the registration page.
  const student = await openTab(env.browser, env.baseUrl, { locale: 'en-GB' })
  const sp = student.page
  const studentName = uniqueName('xuesheng')
  await sp.goto('/register')
  await sp.getByRole('heading', { name: 'Create an account' }).waitFor()
  expect(await lang(sp)).toBe('en')
  await sp.getByLabel('Language').selectOption('zh-CN')
  await sp.getByRole('heading', { name: '注册账号' }).waitFor()
  expect(await lang(sp)).toBe('zh-CN')
  await visit(env, student, 'zh-register')
  await registerInChinese(sp, { username: studentName, role: 'STUDENT', displayName: '王同学' })
  await sp.waitForURL('**/courses')
  await sp.getByRole('heading', { name: '我加入的课程' }).waitFor()
  // A new account is unverified: the empty list says an invitation needs the address verified (issue 56.2).
  await sp.getByText('你还没有加入任何课程。如果老师邀请了你的邮箱，请先验证邮箱', { exact: false }).waitFor()
  // The choice is on the account now.
  const studentLogin = await env.api.post('/auth/login', { json: { identifier: studentName, password: PASSWORD } })
  expect(studentLogin.data.user.locale).toBe('zh-CN')

  // Join: a wrong code first (the server's 404 sentence in Chinese), then the right one.
  await sp.getByLabel('邀请码').fill('NOSUCHCODE')
  await sp.getByRole('button', { name: '加入课程' }).click()
  await sp.getByRole('alert').getByText('没有课程使用这个邀请码，请向老师核对。').waitFor()
  await visit(env, student, 'zh-courses-student')
  await sp.getByLabel('邀请码').fill(inviteCode.toLowerCase())
  await sp.getByRole('button', { name: '加入课程' }).click()
  await sp.waitForURL(`**/courses/${courseId}`)

  // The teacher announces something (the announcements page is localised on the web-teacher branch).
  const teacherLogin = await env.api.post('/auth/login', { json: { identifier: teacherName, password: PASSWORD } })
  const posted = await env.api.post(`/courses/${courseId}/announcements`, {
    token: teacherLogin.data.accessToken,
    json: { title: '第一周安排', content: '<p>周三上机，请带好笔记本电脑。</p>' },
  })
  expect(posted.status).toBe(201)

  // Student: the messages page in Chinese.
  await sp.goto('/messages')
  await sp.getByRole('heading', { name: '消息', level: 1 }).waitFor()
  await sp.getByRole('status').filter({ hasText: '1 条未读' }).waitFor()
  const message = sp.getByTestId('message').first()
  await message.getByText('公告', { exact: true }).waitFor()
  await visit(env, student, 'zh-messages')
  await message.getByRole('button', { name: /^标为已读/ }).click()
  await sp.getByText('0 条未读').waitFor()
  await message.getByText('· 已读于').waitFor()
  expect(await sp.getByRole('button', { name: '全部标为已读' }).isDisabled()).toBe(true)
  await sp.getByLabel('只看未读').check()
  await sp.getByText('没有未读消息。').waitFor()

  // Teacher's list shows the new member, counted in Chinese.
  await tp.reload()
  await tp.getByTestId('course-list').locator('li').filter({ hasText: title }).getByText(/\d+ 名成员/).waitFor()

  expectNoErrors(teacher)
  expectNoErrors(student)
  return { teacher, student, courseId, teacherName, studentName }
}

/**
 * The student's language follows them: another device whose browser is English shows Chinese
 * as soon as they log in; switching to English in the header saves that on the account.
 */
export async function secondDeviceFlow(env: I18nEnv, username: string) {
  const device = await openTab(env.browser, env.baseUrl, { locale: 'en-GB' })
  const p = device.page
  await p.goto('/login')
  await p.getByRole('heading', { name: 'Log in' }).waitFor()
  await p.getByLabel('Username or email').fill(username)
  await p.getByLabel('Password').fill(PASSWORD)
  await p.getByRole('button', { name: 'Log in' }).click()
  await p.waitForURL('**/courses')
  await p.getByRole('heading', { name: '我的课程', level: 1 }).waitFor()
  expect(await lang(p)).toBe('zh-CN')

  await p.getByLabel('语言').selectOption('en')
  await p.getByRole('heading', { name: 'My courses', level: 1 }).waitFor()
  expect(await lang(p)).toBe('en')
  await p.waitForLoadState('networkidle')
  const me = await env.api.post('/auth/login', { json: { identifier: username, password: PASSWORD } })
  expect(me.data.user.locale).toBe('en')
  expectNoErrors(device)
  await device.context.close()
}

/**
 * The teacher's account has no language yet (their browser chose Chinese). On an English
 * browser they pick 简体中文 on the login page before logging in: the account takes it.
 */
export async function pickOnLoginFlow(env: I18nEnv, username: string) {
  const before = await env.api.post('/auth/login', { json: { identifier: username, password: PASSWORD } })
  expect(before.data.user.locale).toBeNull()
  const device = await openTab(env.browser, env.baseUrl, { locale: 'en-GB' })
  const p = device.page
  await p.goto('/login')
  await p.getByRole('heading', { name: 'Log in' }).waitFor()
  await p.getByLabel('Language').selectOption('zh-CN')
  await p.getByRole('heading', { name: '登录' }).waitFor()
  await p.getByLabel('用户名或邮箱').fill(username)
  await p.getByLabel('密码').fill(PASSWORD)
  await p.getByRole('button', { name: '登录' }).click()
  await p.waitForURL('**/courses')
  await p.getByRole('heading', { name: '我的课程', level: 1 }).waitFor()
  await p.waitForLoadState('networkidle')
  const after = await env.api.post('/auth/login', { json: { identifier: username, password: PASSWORD } })
  expect(after.data.user.locale).toBe('zh-CN')
  expectNoErrors(device)
  await device.context.close()
}
