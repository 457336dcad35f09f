import { beforeAll, describe, expect, test } from 'bun:test'
import { resetLink } from '../../src/cli/reset-link.ts'
import type { Sql } from '../../src/db/connect.ts'
import { ManualClock, uniq, type CallOptions, type TestContext } from '../support/harness.ts'
import { TestSmtp } from '../email/smtp.ts'
import { freshIp, mailApp, mailsTo, tokenIn } from './helpers.ts'

/*
 * Issue 48, finding 1: someone who once knew the password asks for an address change to their
 * own address and keeps the mailed link. Every recovery of the account (a reset by mail, a
 * password change, an operator's reset link) must kill that link, and the other things a former
 * holder of the password could keep: sessions, reset links, the calendar URL. Real SMTP server.
 */

const clock = new ManualClock('2031-07-01T08:00:00.000Z')
const PASSWORD = 'correct horse battery'
const mail = mailApp(clock)
let ctx: TestContext
let sql: Sql
let smtp: TestSmtp

beforeAll(() => void ({ ctx, sql, smtp } = mail))

const send = mail.send

async function lastMailTo(address: string) {
  await send()
  const mails = mailsTo(smtp, address)
  expect(mails.length).toBeGreaterThan(0)
  return mails[mails.length - 1]!
}

/** One machine (its own client address, so the per-address limits never mix). */
function machine(ip = freshIp()) {
  const h = (o: CallOptions = {}) => ({ ...o, headers: { 'x-forwarded-for': ip, ...o.headers } })
  return {
    get: (p: string, o?: CallOptions) => ctx.api.get(p, h(o)),
    post: (p: string, o?: CallOptions) => ctx.api.post(p, h(o)),
  }
}

/** A student who registered and verified the address with the mailed link, and is logged in. */
async function owner() {
  const m = machine()
  const username = uniq('own')
  const email = `${username}@school.test`
  const r = await m.post('/auth/register', { json: { username, email, password: PASSWORD } })
  expect(r.status).toBe(201)
  const v = await m.post('/auth/email/verify', { json: { token: tokenIn(await lastMailTo(email), '/verify-email') } })
  expect(v.data.emailVerified).toBe(true)
  const login = await m.post('/auth/login', { json: { identifier: username, password: PASSWORD } })
  return { m, id: r.data.id as string, username, email, token: login.data.accessToken as string }
}

/**
 * The attacker, on their own machine, logs in with the password they knew and asks for the
 * account's address to become theirs; they keep the link mailed to their address.
 */
async function plantChangeLink(victim: { username: string }) {
  const m = machine()
  const login = await m.post('/auth/login', { json: { identifier: victim.username, password: PASSWORD } })
  expect(login.status).toBe(200)
  const token = login.data.accessToken as string
  const mine = `${uniq('thief')}@attacker.test`
  const asked = await m.post('/auth/email/change', { token, json: { newEmail: mine, currentPassword: PASSWORD } })
  expect(asked.status).toBe(202)
  const link = tokenIn(await lastMailTo(mine), '/verify-email')
  return { m, token, address: mine, link }
}

async function addressOf(userId: string) {
  return (await sql<{ email: string; email_verified: boolean }[]>`select email, email_verified from users where id = ${userId}`)[0]!
}

describe('an address-change link does not survive a recovery (400 40002)', () => {
  test('a password reset by mail: the change link, the old sessions and the calendar URL all stop working', async () => {
    const victim = await owner()
    const feed = (await victim.m.get('/me/calendar', { token: victim.token })).data.url as string
    const thief = await plantChangeLink(victim)

    const forgot = await victim.m.post('/auth/password/forgot', { json: { identifier: victim.email } })
    expect(forgot.status).toBe(202)
    const reset = await victim.m.post('/auth/password/reset', { json: { token: tokenIn(await lastMailTo(victim.email), '/reset-password'), newPassword: 'a brand new secret' } })
    expect(reset.status).toBe(200)

    const used = await thief.m.post('/auth/email/verify', { json: { token: thief.link } })
    expect([used.status, used.code, used.data]).toEqual([400, 40002, null])
    expect(await addressOf(victim.id)).toEqual({ email: victim.email, email_verified: true })
    expect((await thief.m.get('/auth/me', { token: thief.token })).status).toBe(401)
    // The private calendar URL they could read while logged in is gone; the owner gets a new one.
    expect((await ctx.app.handle(new Request(feed))).status).toBe(404)
    const fresh = await ctx.api.post('/auth/login', { json: { identifier: victim.username, password: 'a brand new secret' } })
    const again = (await ctx.api.get('/me/calendar', { token: fresh.data.accessToken })).data.url as string
    expect(again).not.toBe(feed)
    expect((await ctx.app.handle(new Request(again))).status).toBe(200)
  })

  test('a password change (POST /auth/password/change) kills the change link; the owner’s own later change still works', async () => {
    const victim = await owner()
    const thief = await plantChangeLink(victim)
    const changed = await victim.m.post('/auth/password/change', { token: victim.token, json: { currentPassword: PASSWORD, newPassword: 'another new secret' } })
    expect(changed.status).toBe(200)
    const used = await thief.m.post('/auth/email/verify', { json: { token: thief.link } })
    expect([used.status, used.code]).toEqual([400, 40002])
    expect((await addressOf(victim.id)).email).toBe(victim.email)
    expect((await thief.m.get('/auth/me', { token: thief.token })).status).toBe(401)
    expect((await victim.m.get('/auth/me', { token: victim.token })).status).toBe(200)

    // A link asked for after the change (same instant) is alive: only older links died.
    clock.advance(2 * 60_000)
    const mine = `${uniq('new')}@school.test`
    expect((await victim.m.post('/auth/email/change', { token: victim.token, json: { newEmail: mine, currentPassword: 'another new secret' } })).status).toBe(202)
    const ok = await victim.m.post('/auth/email/verify', { json: { token: tokenIn(await lastMailTo(mine), '/verify-email') } })
    expect([ok.status, ok.data.email]).toEqual([200, mine])
  })

  test('an operator’s reset link (src/cli/reset-link.ts) kills the change link', async () => {
    const victim = await owner()
    const thief = await plantChangeLink(victim)
    const issued = await resetLink(sql, victim.username, ctx.deps.config, clock.now())
    const token = new URL(issued!.link).searchParams.get('token')!
    expect((await ctx.api.post('/auth/password/reset', { json: { token, newPassword: 'set by the owner' } })).status).toBe(200)
    const used = await thief.m.post('/auth/email/verify', { json: { token: thief.link } })
    expect([used.status, used.code]).toEqual([400, 40002])
    expect((await addressOf(victim.id)).email).toBe(victim.email)
  })

  test('a change link sent before the password changed is dead even if nothing retired it', async () => {
    const victim = await owner()
    const thief = await plantChangeLink(victim)
    clock.advance(1000)
    expect((await victim.m.post('/auth/password/change', { token: victim.token, json: { currentPassword: PASSWORD, newPassword: 'changed meanwhile' } })).status).toBe(200)
    // As if some path had changed the password without retiring the link (sql/052 password_changed_at).
    await sql`update email_tokens set used_at = null where user_id = ${victim.id} and purpose = 'CHANGE_EMAIL'`
    const used = await thief.m.post('/auth/email/verify', { json: { token: thief.link } })
    expect([used.status, used.code]).toEqual([400, 40002])
    expect((await addressOf(victim.id)).email).toBe(victim.email)
  })
})

describe('forgot password: bad input', () => {
  test('a NUL (or other control character) in the identifier → 400 40001 on the field (not a 202 with an error in the log behind it)', async () => {
    const m = machine()
    for (const identifier of ['a\u0000b', 'name\u0007', '\u0000']) {
      const r = await m.post('/auth/password/forgot', { json: { identifier } })
      expect([r.status, r.code, r.data?.fields?.[0]?.field]).toEqual([400, 40001, 'identifier'])
    }
    await ctx.deps.background.settled()
  })
})
