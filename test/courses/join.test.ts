import { afterEach, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { AppError } from '../../src/http/errors.ts'
import { INVITE_ALPHABET, INVITE_LENGTH, normaliseInviteCode, randomInviteCode } from '../../src/modules/courses/invite-code.ts'
import * as service from '../../src/modules/courses/service.ts'
import * as hooks from '../../src/modules/reminders/hooks.ts'
import { signUp, testApp, type Account, type Client, type TestContext } from '../support/harness.ts'
import { BIG, createCourse, currentUser, join } from './world.ts'


let ctx: TestContext
let api: Client
let teacher: Account

beforeAll(async () => {
  ctx = await testApp()
  api = ctx.api
  teacher = await signUp(api, 'TEACHER')
})

const memberRows = async (courseId: string, userId: string) =>
  (await ctx.deps.sql<{ n: number }[]>`select count(*)::int as n from course_members where course_id = ${courseId} and user_id = ${userId}`)[0]!.n

describe('invite codes', () => {
  test('8 characters from the alphabet without look-alikes', () => {
    expect(INVITE_ALPHABET).not.toMatch(/[0O1IL]/)
    expect(new Set(INVITE_ALPHABET).size).toBe(INVITE_ALPHABET.length)
    for (let i = 0; i < 2000; i++) {
      const code = randomInviteCode()
      expect(code).toHaveLength(INVITE_LENGTH)
      for (const ch of code) expect(INVITE_ALPHABET).toContain(ch)
    }
  })

  test('every symbol is used, none dominates (no modulo bias to speak of)', () => {
    const counts = new Map<string, number>()
    const n = 4000
    for (let i = 0; i < n; i++) for (const ch of randomInviteCode()) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    expect(counts.size).toBe(INVITE_ALPHABET.length)
    const expected = (n * INVITE_LENGTH) / INVITE_ALPHABET.length
    for (const c of counts.values()) expect(Math.abs(c - expected) / expected).toBeLessThan(0.2)
  })

  test('what people type is normalised: trimmed, upper-cased', () => {
    expect(normaliseInviteCode('  ab3d efgh\t')).toBe('AB3D EFGH')
    expect(normaliseInviteCode('\nabcdefgh ')).toBe('ABCDEFGH')
  })

  test('a colliding code is redrawn on create and on rotation', async () => {
    const existing = await createCourse(api, teacher)
    const user = await currentUser(ctx.deps.sql, teacher)
    const fresh = [randomInviteCode(), randomInviteCode()]
    const draws = [existing.inviteCode, fresh[0]!, existing.inviteCode, fresh[1]!]
    const gen = () => draws.shift()!

    const created = await service.createCourse(ctx.deps.sql, user, { title: 'Collide', description: '' }, new Date(), gen)
    expect(created.inviteCode).toBe(fresh[0]!)
    const rotated = await service.rotateInviteCode(ctx.deps.sql, created.id, user, gen)
    expect(rotated.inviteCode).toBe(fresh[1]!)
    expect(draws).toEqual([])
  })

  test('a code source that only collides gives up with 503 instead of looping', async () => {
    const existing = await createCourse(api, teacher)
    const user = await currentUser(ctx.deps.sql, teacher)
    const stuck = () => existing.inviteCode
    const create = service.createCourse(ctx.deps.sql, user, { title: 'Stuck', description: '' }, new Date(), stuck)
    const failure = await create.then(() => null, (e: unknown) => e)
    expect(failure).toBeInstanceOf(AppError)
    expect((failure as AppError).status).toBe(503)
    const rotate = service.rotateInviteCode(ctx.deps.sql, existing.id, user, stuck)
    // Rotating to its own current code is not a collision with another course, so it "succeeds".
    expect((await rotate).inviteCode).toBe(existing.inviteCode)
  })
})

describe('POST /courses/join', () => {
  test('a student joins with the code typed in lower case with spaces around it', async () => {
    const s = await signUp(api, 'STUDENT', 'Joiner')
    const c = await createCourse(api, teacher, 'Physics')
    const res = await api.post('/courses/join', { json: { inviteCode: `  ${c.inviteCode.toLowerCase()} ` }, token: s.token })
    expect(res.status).toBe(200)
    expect(res.code).toBe(0)
    expect(res.data).toMatchObject({ id: c.id, title: 'Physics', myRole: 'STUDENT', memberCount: 2, teacher: { id: teacher.id } })
    expect(res.data).not.toHaveProperty('inviteCode')
    expect(await memberRows(c.id, s.id)).toBe(1)
    const members = await api.get(`/courses/${c.id}/members`, { token: s.token })
    expect(members.data.items.map((m: any) => [m.userId, m.role])).toEqual([
      [teacher.id, 'TEACHER'],
      [s.id, 'STUDENT'],
    ])
  })

  test('joining again changes nothing: same course, one row, first join time kept', async () => {
    const s = await signUp(api, 'STUDENT')
    const c = await createCourse(api, teacher)
    await join(api, s, c.inviteCode)
    const [before] = await ctx.deps.sql<{ joined_at: Date }[]>`select joined_at from course_members where course_id = ${c.id} and user_id = ${s.id}`
    const again = await join(api, s, c.inviteCode)
    expect(again.data.memberCount).toBe(2)
    const [after] = await ctx.deps.sql<{ joined_at: Date }[]>`select joined_at from course_members where course_id = ${c.id} and user_id = ${s.id}`
    expect(after!.joined_at.toISOString()).toBe(before!.joined_at.toISOString())
  })

  describe('the reminder hook', () => {
    afterEach(() => {
      ;(hooks.studentJoined as unknown as { mockRestore?: () => void }).mockRestore?.()
    })

    test('10 concurrent joins by one student: one member row, the hook runs once inside the transaction', async () => {
      const spy = spyOn(hooks, 'studentJoined')
      const s = await signUp(api, 'STUDENT')
      const c = await createCourse(api, teacher)
      const results = await Promise.all(
        Array.from({ length: 10 }, () => api.post('/courses/join', { json: { inviteCode: c.inviteCode }, token: s.token })),
      )
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200))
      expect(await memberRows(c.id, s.id)).toBe(1)
      expect(results.every((r) => r.data.memberCount === 2)).toBe(true)
      expect(spy).toHaveBeenCalledTimes(1)
      const [tx, courseId, userId, now] = spy.mock.calls[0]!
      expect([courseId, userId]).toEqual([c.id, s.id])
      expect(now).toBeInstanceOf(Date)
      // Called with the transaction handle, not the pool.
      expect(tx).not.toBe(ctx.deps.sql)
    })

    test('a failing hook rolls the membership back', async () => {
      spyOn(hooks, 'studentJoined').mockImplementation(async () => {
        throw new Error('reminders down')
      })
      const s = await signUp(api, 'STUDENT')
      const c = await createCourse(api, teacher)
      const res = await api.post('/courses/join', { json: { inviteCode: c.inviteCode }, token: s.token })
      expect(res.status).toBe(500)
      expect(await memberRows(c.id, s.id)).toBe(0)
    })
  })

  test('10 different students joining at once all get in', async () => {
    const students = await Promise.all(Array.from({ length: 10 }, () => signUp(api, 'STUDENT')))
    const c = await createCourse(api, teacher)
    const results = await Promise.all(students.map((s) => api.post('/courses/join', { json: { inviteCode: c.inviteCode }, token: s.token })))
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200))
    const members = await api.get(`/courses/${c.id}/members`, { token: teacher.token })
    expect(members.data.total).toBe(11)
  })

  test('a teacher account cannot join, not even another teacher\'s course', async () => {
    const other = await signUp(api, 'TEACHER')
    const c = await createCourse(api, teacher)
    for (const t of [other, teacher]) {
      const res = await api.post('/courses/join', { json: { inviteCode: c.inviteCode }, token: t.token })
      expect({ status: res.status, code: res.code }).toEqual({ status: 403, code: 40300 })
      expect(res.message).toMatch(/teacher accounts cannot join/i)
    }
    expect((await api.get(`/courses/${c.id}`, { token: other.token })).status).toBe(403)
  })

  test('unknown code → 404 (40401)', async () => {
    const s = await signUp(api, 'STUDENT')
    const res = await api.post('/courses/join', { json: { inviteCode: 'ZZZZ2222' }, token: s.token })
    expect({ status: res.status, code: res.code }).toEqual({ status: 404, code: 40401 })
    expect(res.message).toMatch(/invite code/i)
  })

  test('closed joining refuses new students with 409, keeps members, and reopens', async () => {
    const [member, late] = [await signUp(api, 'STUDENT'), await signUp(api, 'STUDENT')]
    const c = await createCourse(api, teacher)
    await join(api, member, c.inviteCode)
    await api.patch(`/courses/${c.id}`, { json: { joiningOpen: false }, token: teacher.token })

    const refused = await api.post('/courses/join', { json: { inviteCode: c.inviteCode }, token: late.token })
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 409, code: 40903 })
    expect(refused.message).toMatch(/not accepting/i)
    expect(await memberRows(c.id, late.id)).toBe(0)
    // Someone already in the course is not refused: joining again still changes nothing.
    expect((await api.post('/courses/join', { json: { inviteCode: c.inviteCode }, token: member.token })).status).toBe(200)
    expect((await api.get(`/courses/${c.id}`, { token: member.token })).status).toBe(200)

    await api.patch(`/courses/${c.id}`, { json: { joiningOpen: true }, token: teacher.token })
    expect((await join(api, late, c.inviteCode)).data.memberCount).toBe(3)
  })

  const INVALID: [name: string, body: unknown][] = [
    ['missing inviteCode', {}],
    ['empty inviteCode', { inviteCode: '   ' }],
    ['inviteCode not a string', { inviteCode: 12345678 }],
    ['200 KB inviteCode', { inviteCode: BIG }],
    ['body is an array', [{ inviteCode: 'ABCDEFGH' }]],
  ]
  test.each(INVALID)('%s → 400', async (_name, body) => {
    const s = await signUp(api, 'STUDENT')
    const res = await api.post('/courses/join', { json: body, token: s.token })
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
  })

  test('hostile input in the code is just an unknown code', async () => {
    const s = await signUp(api, 'STUDENT')
    for (const inviteCode of ["' or 1=1 --", '<script>alert(1)</script>', '%', '\u0000abc']) {
      const res = await api.post('/courses/join', { json: { inviteCode }, token: s.token })
      expect({ status: res.status, code: res.code }).toEqual({ status: 404, code: 40401 })
    }
  })
})
