import { describe, expect, test } from 'bun:test'
import { unsubscribeToken } from '../../src/modules/email/tokens.ts'
import { signUp } from '../support/harness.ts'
import { expectAccessible, expectNoErrors, hasChromium, openTab, serverAndBrowser } from './support.ts'

/*
 * Issue 27 item 7 in Chromium: the unsubscribe link of a mail's body opens a page that asks;
 * opening it (as a link scanner would) turns nothing off, the button press does. No login.
 */
describe.skipIf(!hasChromium)('web front end in Chromium: the unsubscribe page', () => {
  const ctx = serverAndBrowser()

  test('opening /unsubscribe?token= changes nothing until the button is pressed (no login, both languages)', async () => {
    const { server, browser } = ctx
    const student = await signUp(server.api)
    const emailPrefs = async () => (await server.api.get('/me/notification-preferences', { token: student.token })).data.email
    const before = await emailPrefs()
    expect(before.HOMEWORK_REMINDER).toBe(true)
    const token = unsubscribeToken(server.deps.config.jwtSecret, student.id, 'HOMEWORK_REMINDER')

    const tab = await openTab(browser, server.baseUrl)
    const { page } = tab
    const res = await page.goto(`/unsubscribe?token=${encodeURIComponent(token)}`)
    expect(res?.status()).toBe(200)
    await page.getByRole('heading', { name: 'Turn these e-mails off' }).waitFor()
    await page.getByText('Stop e-mailing you homework reminders?').waitFor()
    const button = page.getByRole('button', { name: 'Turn them off' })
    await button.waitFor()
    await expectAccessible(page, 'unsubscribe')
    // Opened and rendered, not pressed: still on.
    expect(await emailPrefs()).toEqual(before)

    await button.click()
    await page.getByTestId('unsubscribed').waitFor()
    expect(await page.getByTestId('unsubscribed').textContent()).toContain('homework reminders')
    expect(await emailPrefs()).toEqual({ ...before, HOMEWORK_REMINDER: false })
    await expectAccessible(page, 'unsubscribed')
    expectNoErrors(tab)
    await tab.context.close()

    // In Chinese; a forged token is refused with the server's message, nothing changes.
    const zh = await openTab(browser, server.baseUrl, { locale: 'zh-CN' })
    const forged = `${student.id}.SUBMISSION_GRADED.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`
    await zh.page.goto(`/unsubscribe?token=${encodeURIComponent(forged)}`)
    await zh.page.getByRole('heading', { name: '不再接收此类邮件' }).waitFor()
    await zh.page.getByText('不再通过邮件向你发送评分通知？').waitFor()
    await zh.page.getByRole('button', { name: '确认关闭' }).click()
    await zh.page.getByRole('alert').waitFor()
    expect(await emailPrefs()).toEqual({ ...before, HOMEWORK_REMINDER: false })
    await zh.context.close()
  }, 60_000)
})
