import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { defaultJobs } from '../../src/jobs.ts'
import { mailApp, mailsTo, tokenIn } from '../accounts/helpers.ts'
import { createCourse } from '../courses/world.ts'
import { TestSmtp } from '../email/smtp.ts'
import { ManualClock, signUp, uniq, type Account, type TestContext } from '../support/harness.ts'

/*
 * Issue 48, findings 3 and 4, over HTTP against a real SMTP server: a roster import enrols only
 * verified accounts (an unverified one joins when it verifies), and invitation mail has caps —
 * one a day per address whatever the course, none before the teacher's own address is verified,
 * INVITATION_MAILS_PER_DAY per teacher (3 here); what waits is listed and mailed later by the job.
 */

const clock = new ManualClock('2031-09-01T08:00:00.000Z')
const PER_DAY = 3
const DAY = 86_400_000
const mail = mailApp(clock, { invitationMailsPerDay: PER_DAY })
let ctx: TestContext
let sql: Sql
let smtp: TestSmtp

beforeAll(() => void ({ ctx, sql, smtp } = mail))

const send = mail.send
const invitationMails = (address: string) => mailsTo(smtp, address).filter((m) => m.header('Subject')?.includes('invited'))
const runInvitationJob = () => defaultJobs(ctx.deps).find((j) => j.name === 'roster-invitation-mail')!.run(clock.now())

/** Registers (a verification mail is queued) and verifies the address with the mailed link. */
async function verified(role: 'STUDENT' | 'TEACHER'): Promise<Account> {
  const a = await signUp(ctx.api, role)
  await verify(a)
  return a
}
async function verify(a: Account) {
  await send()
  const mail = mailsTo(smtp, a.email).find((m) => m.header('Subject')?.includes('Confirm'))!
  const r = await ctx.api.post('/auth/email/verify', { json: { token: tokenIn(mail, '/verify-email') } })
  expect([r.status, r.data.emailVerified]).toEqual([200, true])
}
const importRoster = (teacher: Account, courseId: string, emails: string[]) => ctx.api.post(`/courses/${courseId}/roster`, { token: teacher.token, json: { emails } })

describe('who a roster import enrols', () => {
  test('an unverified account with the address is not enrolled (nor mailed): it gets an invitation and joins when it verifies', async () => {
    const teacher = await verified('TEACHER')
    const c = await createCourse(ctx.api, teacher)
    const squatter = await signUp(ctx.api, 'STUDENT')
    const real = await verified('STUDENT')
    const res = await importRoster(teacher, c.id, [squatter.email, real.email])
    expect(res.status).toBe(200)
    expect(res.data).toEqual({ enrolled: 1, alreadyMembers: 0, invited: 1, awaitingVerification: 1, invalid: [], mailWaiting: [] })
    expect((await ctx.api.get(`/courses/${c.id}`, { token: squatter.token })).status).toBe(403)
    expect((await ctx.api.get(`/courses/${c.id}`, { token: real.token })).data.myRole).toBe('STUDENT')
    const invitations = await ctx.api.get(`/courses/${c.id}/roster/invitations`, { token: teacher.token })
    expect(invitations.data.items.map((i: any) => i.email)).toEqual([squatter.email.toLowerCase()])
    await send()
    expect(invitationMails(squatter.email)).toHaveLength(0)

    // The account is told it joins once the address is verified.
    expect((await ctx.api.get('/auth/me', { token: squatter.token })).data).toMatchObject({ emailVerified: false, pendingCourseInvitations: 1 })
    // Whoever holds the address proves it: then, and only then, the account joins.
    await verify(squatter)
    expect((await ctx.api.get('/auth/me', { token: squatter.token })).data).toMatchObject({ emailVerified: true, pendingCourseInvitations: 0 })
    const seen = await ctx.api.get(`/courses/${c.id}`, { token: squatter.token })
    expect([seen.status, seen.data.myRole]).toEqual([200, 'STUDENT'])
    expect((await ctx.api.get(`/courses/${c.id}/roster/invitations`, { token: teacher.token })).data.total).toBe(0)
  })
})

describe('invitation mail caps', () => {
  test('one invitation mail a day per address, whatever the course or the teacher', async () => {
    const [t1, t2] = [await verified('TEACHER'), await verified('TEACHER')]
    const courses = [await createCourse(ctx.api, t1), await createCourse(ctx.api, t1), await createCourse(ctx.api, t1), await createCourse(ctx.api, t2)]
    const address = `${uniq('once')}@example.test`
    for (const [i, c] of courses.entries()) {
      const res = await importRoster(i < 3 ? t1 : t2, c.id, [address])
      expect(res.data).toMatchObject({ invited: 1, mailWaiting: [] })
    }
    await send()
    expect(invitationMails(address)).toHaveLength(1)
    // A day later a new course's invitation mails the address again.
    clock.advance(DAY + 1000)
    await importRoster(t2, (await createCourse(ctx.api, t2)).id, [address])
    await send()
    expect(invitationMails(address)).toHaveLength(2)
  })

  test('a teacher whose address is unverified: the import enrols and invites, no mail until the teacher verifies, then the job mails them', async () => {
    const teacher = await signUp(ctx.api, 'TEACHER')
    const c = await createCourse(ctx.api, teacher)
    const student = await verified('STUDENT')
    const emails = [`${uniq('wait')}@example.test`, `${uniq('wait')}@example.test`]
    const res = await importRoster(teacher, c.id, [student.email, ...emails])
    expect(res.data).toEqual({
      enrolled: 1,
      alreadyMembers: 0,
      invited: 2,
      awaitingVerification: 0,
      invalid: [],
      mailWaiting: emails.map((value, i) => ({ row: i + 2, value, reason: 'TEACHER_UNVERIFIED' })),
    })
    await runInvitationJob()
    await send()
    for (const e of emails) expect(invitationMails(e)).toHaveLength(0)

    await verify(teacher)
    await runInvitationJob()
    await send()
    for (const e of emails) expect(invitationMails(e)).toHaveLength(1)
  })

  test('INVITATION_MAILS_PER_DAY per teacher: past it the import still invites, reports what waits, and the rest go out the next day', async () => {
    const teacher = await verified('TEACHER')
    const [c1, c2] = [await createCourse(ctx.api, teacher), await createCourse(ctx.api, teacher)]
    const first = Array.from({ length: 2 }, () => `${uniq('cap')}@example.test`)
    const second = Array.from({ length: 3 }, () => `${uniq('cap')}@example.test`)
    expect((await importRoster(teacher, c1.id, first)).data).toMatchObject({ invited: 2, mailWaiting: [] })
    const res = await importRoster(teacher, c2.id, second)
    expect(res.data).toMatchObject({
      invited: 3,
      mailWaiting: [
        { row: 2, value: second[1], reason: 'DAILY_LIMIT' },
        { row: 3, value: second[2], reason: 'DAILY_LIMIT' },
      ],
    })
    expect((await ctx.api.get(`/courses/${c2.id}/roster/invitations`, { token: teacher.token })).data.total).toBe(3)
    await send()
    expect([...first, ...second].map((e) => invitationMails(e).length)).toEqual([1, 1, 1, 0, 0])
    // The same day the job sends nothing more; the next day it sends the rest.
    clock.advance(60 * 60_000)
    await runInvitationJob()
    await send()
    expect(second.map((e) => invitationMails(e).length)).toEqual([1, 0, 0])
    clock.advance(DAY)
    await runInvitationJob()
    await send()
    expect(second.map((e) => invitationMails(e).length)).toEqual([1, 1, 1])
    // Nothing waits any more: the job and a re-import mail nobody again.
    await runInvitationJob()
    expect((await importRoster(teacher, c2.id, second)).data).toMatchObject({ invited: 3, mailWaiting: [] })
    await send()
    expect(second.map((e) => invitationMails(e).length)).toEqual([1, 1, 1])
  })

  test('5,000 unknown addresses from a new (unverified) teacher: no mail at all, one import', async () => {
    const teacher = await signUp(ctx.api, 'TEACHER')
    const c = await createCourse(ctx.api, teacher)
    const emails = Array.from({ length: 5000 }, (_, i) => `bulk${i}-${uniq('b')}@example.test`)
    const res = await importRoster(teacher, c.id, emails)
    expect(res.status).toBe(200)
    expect(res.data.invited).toBe(5000)
    expect(res.data.mailWaiting).toHaveLength(5000)
    const queued = await sql<{ n: number }[]>`select count(*)::int as n from email_outbox where kind = 'ROSTER_INVITATION' and to_address = any(${emails}::text[])`
    expect(queued[0]!.n).toBe(0)
  }, 60_000)
})

describe('co-teachers by address (issue 48)', () => {
  test('an account that has not verified the address cannot be added by it (409 40900); by username it can; a verified address works', async () => {
    const owner = await verified('TEACHER')
    const c = await createCourse(ctx.api, owner)
    const squatter = await signUp(ctx.api, 'TEACHER')
    const byAddress = await ctx.api.post(`/courses/${c.id}/teachers`, { token: owner.token, json: { identifier: squatter.email.toUpperCase() } })
    expect([byAddress.status, byAddress.code]).toEqual([409, 40900])
    expect(byAddress.message).toMatch(/has not confirmed the address/)
    expect((await ctx.api.get(`/courses/${c.id}`, { token: squatter.token })).status).toBe(403)
    const byName = await ctx.api.post(`/courses/${c.id}/teachers`, { token: owner.token, json: { identifier: squatter.username } })
    expect(byName.status).toBe(201)
    const colleague = await verified('TEACHER')
    expect((await ctx.api.post(`/courses/${c.id}/teachers`, { token: owner.token, json: { identifier: colleague.email } })).status).toBe(201)
  })
})
