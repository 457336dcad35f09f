import { beforeAll, describe, expect, test } from 'bun:test'
import { addStudent, insertHomework, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, uniq, type Account, type Client, type TestContext } from '../support/harness.ts'
import { createCourse, join } from '../courses/world.ts'

const NOT_A_UUID = 'not-a-uuid'
const UNKNOWN = '01900000-0000-7000-8000-000000000000'

let ctx: TestContext
let api: Client
let clock: ManualClock
let owner: Account, coTeacher: Account, student: Account, student2: Account, outsider: Account, otherTeacher: Account
let course: { id: string; inviteCode: string }

const members = async (courseId: string, token: string, qs = '') => (await api.get(`/courses/${courseId}/members${qs}`, { token })).data
const memberCount = async (courseId: string, token: string) => (await api.get(`/courses/${courseId}`, { token })).data.memberCount

beforeAll(async () => {
  clock = new ManualClock('2026-11-22T08:00:00.000Z')
  ctx = await testApp({ clock })
  api = ctx.api
  ;[owner, coTeacher, student, student2, outsider, otherTeacher] = await Promise.all([
    signUp(api, 'TEACHER', 'Owner O'),
    signUp(api, 'TEACHER', 'Co Teacher'),
    signUp(api, 'STUDENT', 'Stu One'),
    signUp(api, 'STUDENT', 'Stu Two'),
    signUp(api, 'STUDENT', 'Outsider'),
    signUp(api, 'TEACHER', 'Other Teacher'),
  ])
  course = await createCourse(api, owner, 'Rosters 101')
  await join(api, student, course.inviteCode)
  await join(api, student2, course.inviteCode)
  const add = await api.post(`/courses/${course.id}/teachers`, { token: owner.token, json: { identifier: coTeacher.username } })
  expect(add.status).toBe(201)
}, 120_000)

describe('co-teachers', () => {
  test('the owner adds a TEACHER account by username or e-mail (any case): 201, a TEACHER member, not owner', async () => {
    const t = await signUp(api, 'TEACHER', 'By Mail')
    const c = await createCourse(api, owner)
    const res = await api.post(`/courses/${c.id}/teachers`, { token: owner.token, json: { identifier: `  ${t.email.toUpperCase()} ` } })
    expect(res.status).toBe(201)
    expect(res.code).toBe(0)
    expect(res.data).toEqual({ userId: t.id, username: t.username, displayName: 'By Mail', role: 'TEACHER', owner: false, joinedAt: clock.now().toISOString() })
    const list = await members(c.id, owner.token)
    expect(list.items.map((m: any) => [m.userId, m.role, m.owner])).toEqual([
      [owner.id, 'TEACHER', true],
      [t.id, 'TEACHER', false],
    ])
    expect(list.total).toBe(2)
    expect(await memberCount(c.id, owner.token)).toBe(2)
  })

  test('already a teacher → 409 40906 (co-teacher again, or the owner); a student account → 409 40907; unknown → 404', async () => {
    const again = await api.post(`/courses/${course.id}/teachers`, { token: owner.token, json: { identifier: coTeacher.email } })
    expect([again.status, again.code]).toEqual([409, 40906])
    const self = await api.post(`/courses/${course.id}/teachers`, { token: owner.token, json: { identifier: owner.username } })
    expect([self.status, self.code]).toEqual([409, 40906])
    const stu = await api.post(`/courses/${course.id}/teachers`, { token: owner.token, json: { identifier: outsider.username } })
    expect([stu.status, stu.code]).toEqual([409, 40907])
    const nobody = await api.post(`/courses/${course.id}/teachers`, { token: owner.token, json: { identifier: uniq('nobody') } })
    expect([nobody.status, nobody.code]).toEqual([404, 40400])
  })

  test('401 without credentials; 403 for a co-teacher, a student, an outsider; 404 unknown course; 400 bad input', async () => {
    const url = `/courses/${course.id}/teachers`
    expect((await api.post(url, { json: { identifier: 'x' } })).status).toBe(401)
    for (const who of [coTeacher, student, otherTeacher]) {
      const r = await api.post(url, { token: who.token, json: { identifier: otherTeacher.username } })
      expect([r.status, r.code]).toEqual([403, 40300])
    }
    expect((await api.post(`/courses/${UNKNOWN}/teachers`, { token: owner.token, json: { identifier: 'x' } })).status).toBe(404)
    for (const body of [{}, { identifier: '' }, { identifier: 42 }, { identifier: 'x'.repeat(300) }]) {
      const r = await api.post(url, { token: owner.token, json: body })
      expect([r.status, r.code]).toEqual([400, 40001])
    }
    expect((await api.post(`/courses/${NOT_A_UUID}/teachers`, { token: owner.token, json: { identifier: 'x' } })).status).toBe(400)
  })

  test('a co-teacher has every teacher right: course list as TEACHER with the code, edit, homework counts; not managing co-teachers', async () => {
    const mine = (await api.get('/courses', { token: coTeacher.token })).data
    const c = mine.find((x: any) => x.id === course.id)
    expect(c).toMatchObject({ myRole: 'TEACHER', inviteCode: course.inviteCode, joiningOpen: true, memberCount: 4 })
    const patch = await api.patch(`/courses/${course.id}`, { token: coTeacher.token, json: { description: 'Edited by the co-teacher' } })
    expect(patch.status).toBe(200)
    const { pointId } = await insertPoint(ctx.deps.sql, course.id)
    const due = new Date(clock.now().getTime() + 7 * 86_400_000)
    await insertHomework(ctx.deps.sql, course.id, pointId, { startAt: clock.now(), dueAt: due })
    const hw = await api.get(`/courses/${course.id}/homeworks`, { token: coTeacher.token })
    expect(hw.status).toBe(200)
    expect(hw.data.items[0]).toMatchObject({ studentCount: 2, submittedCount: 0 })
    const gb = await api.get(`/courses/${course.id}/grades/overview`, { token: coTeacher.token })
    expect(gb.status).toBe(200)
    // Not a student: cannot leave or hand in.
    expect((await api.post(`/courses/${course.id}/leave`, { token: coTeacher.token })).status).toBe(403)
  })

  test("students' notifications never go to co-teachers (an announcement reaches the students only)", async () => {
    const before = (await api.get('/notifications', { token: coTeacher.token })).data.total
    const r = await api.post(`/courses/${course.id}/announcements`, { token: coTeacher.token, json: { title: 'Hello', content: '<p>Hi</p>' } })
    expect(r.status).toBe(201)
    expect((await api.get('/notifications', { token: coTeacher.token })).data.total).toBe(before)
    const s = (await api.get('/notifications', { token: student.token })).data.items
    expect(s.some((n: any) => n.type === 'ANNOUNCEMENT')).toBe(true)
  })

  test('DELETE: the owner removes a co-teacher (200), who then is an outsider; 404 when not a co-teacher; 403 for others', async () => {
    const t = await signUp(api, 'TEACHER')
    const c = await createCourse(api, owner)
    await api.post(`/courses/${c.id}/teachers`, { token: owner.token, json: { identifier: t.username } })
    expect((await api.get(`/courses/${c.id}`, { token: t.token })).status).toBe(200)
    expect((await api.del(`/courses/${c.id}/teachers/${t.id}`, { token: t.token })).status).toBe(403)
    expect((await api.del(`/courses/${c.id}/teachers/${t.id}`)).status).toBe(401)
    const del = await api.del(`/courses/${c.id}/teachers/${t.id}`, { token: owner.token })
    expect([del.status, del.code, del.data]).toEqual([200, 0, null])
    expect((await api.get(`/courses/${c.id}`, { token: t.token })).status).toBe(403)
    expect((await api.get('/courses', { token: t.token })).data.some((x: any) => x.id === c.id)).toBe(false)
    expect((await api.del(`/courses/${c.id}/teachers/${t.id}`, { token: owner.token })).status).toBe(404)
    expect((await api.del(`/courses/${c.id}/teachers/${owner.id}`, { token: owner.token })).status).toBe(404)
    expect((await api.del(`/courses/${c.id}/teachers/${NOT_A_UUID}`, { token: owner.token })).status).toBe(400)
    expect((await api.del(`/courses/${UNKNOWN}/teachers/${t.id}`, { token: owner.token })).status).toBe(404)
  })
})

describe('leave and remove', () => {
  async function courseWithHomework() {
    const c = await createCourse(api, owner)
    const s = await signUp(api, 'STUDENT', 'Leaver')
    const { pointId } = await insertPoint(ctx.deps.sql, c.id)
    const hw = await insertHomework(ctx.deps.sql, c.id, pointId, {
      startAt: new Date(clock.now().getTime() + 86_400_000),
      dueAt: new Date(clock.now().getTime() + 7 * 86_400_000),
    })
    await join(api, s, c.inviteCode)
    return { c, s, hw }
  }
  const pendingOf = async (userId: string, taskId: string) =>
    (
      await ctx.deps.sql<{ n: number }[]>`
        select count(*)::int as n from homework_reminder_events
         where target_user_id = ${userId} and task_id = ${taskId} and sent_at is null and not canceled`
    )[0]!.n

  test('a student leaves: 200; pending reminders canceled; gone from roster, counts, overviews, homework counts; work kept and back on rejoin', async () => {
    const { c, s, hw } = await courseWithHomework()
    await insertSubmission(ctx.deps.sql, hw.id, c.id, s.id, clock.now())
    expect(await pendingOf(s.id, hw.id)).toBe(3)
    expect(await memberCount(c.id, owner.token)).toBe(2)
    // Read (and cached) before the leave: the gradebook version must move with it (sql/030).
    expect(JSON.stringify((await api.get(`/courses/${c.id}/grades/overview`, { token: owner.token })).data)).toContain(s.id)
    const feedUrl = new URL((await api.get('/me/calendar', { token: s.token })).data.url)
    const feed = async () => (await ctx.app.handle(new Request(`http://localhost${feedUrl.pathname}`))).text()
    expect(await feed()).toContain(hw.id)

    const res = await api.post(`/courses/${c.id}/leave`, { token: s.token })
    expect([res.status, res.code, res.data]).toEqual([200, 0, null])
    expect(await pendingOf(s.id, hw.id)).toBe(0)
    expect(await memberCount(c.id, owner.token)).toBe(1)
    expect((await members(c.id, owner.token)).items.map((m: any) => m.userId)).toEqual([owner.id])
    expect((await api.get(`/courses/${c.id}/homeworks`, { token: owner.token })).data.items[0]).toMatchObject({ studentCount: 0, submittedCount: 0 })
    const overview = (await api.get(`/courses/${c.id}/grades/overview`, { token: owner.token })).data
    expect(JSON.stringify(overview)).not.toContain(s.id)
    const learning = (await api.get(`/courses/${c.id}/learning/overview`, { token: owner.token })).data
    expect(JSON.stringify(learning)).not.toContain(s.id)
    expect((await api.get('/courses', { token: s.token })).data.some((x: any) => x.id === c.id)).toBe(false)
    expect((await api.get(`/courses/${c.id}`, { token: s.token })).status).toBe(403)
    expect((await api.get('/homeworks/mine', { token: s.token })).data.items.some((h: any) => h.taskId === hw.id)).toBe(false)
    expect(await feed()).not.toContain(hw.id)

    // Rejoin: the submission is there again, the counts too.
    await join(api, s, c.inviteCode)
    expect((await api.get(`/courses/${c.id}/homeworks`, { token: owner.token })).data.items[0]).toMatchObject({ studentCount: 1, submittedCount: 1 })
    const mine = (await api.get('/homeworks/mine', { token: s.token })).data.items.find((h: any) => h.taskId === hw.id)
    expect(mine.status).toBe('SUBMITTED')
  })

  test('leave: 401, 403 for the owner / a co-teacher / an outsider, 404 unknown course, 400 bad id', async () => {
    expect((await api.post(`/courses/${course.id}/leave`)).status).toBe(401)
    for (const who of [owner, coTeacher, outsider]) expect((await api.post(`/courses/${course.id}/leave`, { token: who.token })).status).toBe(403)
    expect((await api.post(`/courses/${UNKNOWN}/leave`, { token: student.token })).status).toBe(404)
    expect((await api.post(`/courses/${NOT_A_UUID}/leave`, { token: student.token })).status).toBe(400)
  })

  test('a teacher (owner or co-teacher) removes a student: 200, as a leave', async () => {
    const { c, s, hw } = await courseWithHomework()
    await api.post(`/courses/${c.id}/teachers`, { token: owner.token, json: { identifier: coTeacher.username } })
    const res = await api.del(`/courses/${c.id}/members/${s.id}`, { token: coTeacher.token })
    expect([res.status, res.code]).toEqual([200, 0])
    expect(await pendingOf(s.id, hw.id)).toBe(0)
    expect(await memberCount(c.id, owner.token)).toBe(2)
    expect((await api.get(`/courses/${c.id}`, { token: s.token })).status).toBe(403)
    // Not a student any more → 404.
    const again = await api.del(`/courses/${c.id}/members/${s.id}`, { token: owner.token })
    expect([again.status, again.code]).toEqual([404, 40400])
  })

  test('remove: the owner or a co-teacher → 409; 401; 403 for students and outsiders; 404 unknown; 400 bad ids', async () => {
    for (const target of [owner, coTeacher]) {
      const r = await api.del(`/courses/${course.id}/members/${target.id}`, { token: owner.token })
      expect([r.status, r.code]).toEqual([409, 40900])
    }
    const url = `/courses/${course.id}/members/${student2.id}`
    expect((await api.del(url)).status).toBe(401)
    for (const who of [student, outsider, otherTeacher]) expect((await api.del(url, { token: who.token })).status).toBe(403)
    expect((await api.del(`/courses/${course.id}/members/${UNKNOWN}`, { token: owner.token })).status).toBe(404)
    expect((await api.del(`/courses/${UNKNOWN}/members/${student2.id}`, { token: owner.token })).status).toBe(404)
    expect((await api.del(`/courses/${course.id}/members/${NOT_A_UUID}`, { token: owner.token })).status).toBe(400)
  })
})

describe('members list: counter, keyset cursor, search', () => {
  test('pages by page number and by cursor give the same rows; search filters names; total from the counter', async () => {
    const c = await createCourse(api, owner)
    const ids: string[] = []
    for (let i = 0; i < 7; i++) {
      const u = { id: crypto.randomUUID(), username: uniq('kp') }
      await ctx.deps.sql`insert into users (id, username, email, password_hash, display_name, role)
                         values (${u.id}, ${u.username}, ${u.username + '@example.test'}, 'x', ${'Name ' + i}, 'STUDENT')`
      await addStudent(ctx.deps.sql, c.id, u.id, new Date(Date.UTC(2026, 10, 22, 9, i)))
      ids.push(u.id)
    }
    const byPage = [
      ...(await members(c.id, owner.token, '?pageSize=3')).items,
      ...(await members(c.id, owner.token, '?page=2&pageSize=3')).items,
      ...(await members(c.id, owner.token, '?page=3&pageSize=3')).items,
    ].map((m: any) => m.userId)
    expect(byPage).toEqual([owner.id, ...ids])
    const byCursor: string[] = []
    let p = await members(c.id, owner.token, '?pageSize=3')
    byCursor.push(...p.items.map((m: any) => m.userId))
    while (p.nextCursor) {
      p = await members(c.id, owner.token, `?pageSize=3&after=${p.nextCursor}`)
      byCursor.push(...p.items.map((m: any) => m.userId))
    }
    expect(byCursor).toEqual(byPage)
    expect(p.total).toBe(8)

    const found = await members(c.id, owner.token, '?q=NAME%203')
    expect(found.items.map((m: any) => m.userId)).toEqual([ids[3]])
    expect(found.total).toBe(1)
    expect((await members(c.id, owner.token, '?q=owner')).items.map((m: any) => m.userId)).toEqual([owner.id])
    const bad = await api.get(`/courses/${c.id}/members?after=garbage`, { token: owner.token })
    expect([bad.status, bad.code]).toEqual([400, 40001])
  })
})

describe('roster import', () => {
  test('JSON: students enrolled (as a join, with late-joiner reminders), members counted, teachers/malformed/duplicates reported, unknown invited; again changes nothing', async () => {
    const c = await createCourse(api, owner)
    const [a, b] = [await signUp(api, 'STUDENT'), await signUp(api, 'STUDENT')]
    await join(api, b, c.inviteCode)
    const { pointId } = await insertPoint(ctx.deps.sql, c.id)
    const hw = await insertHomework(ctx.deps.sql, c.id, pointId, {
      startAt: new Date(clock.now().getTime() + 86_400_000),
      dueAt: new Date(clock.now().getTime() + 7 * 86_400_000),
    })
    const newcomer = `${uniq('new')}@Example.test`
    const emails = [a.email.toUpperCase(), b.email, otherTeacher.email, 'not an address', newcomer, a.email]
    const res = await api.post(`/courses/${c.id}/roster`, { token: owner.token, json: { emails } })
    expect(res.status).toBe(200)
    expect(res.data).toEqual({
      enrolled: 1,
      alreadyMembers: 1,
      invited: 1,
      awaitingVerification: 0,
      invalid: [
        { row: 3, value: otherTeacher.email, reason: 'TEACHER_ACCOUNT' },
        { row: 4, value: 'not an address', reason: 'MALFORMED' },
        { row: 6, value: a.email, reason: 'DUPLICATE' },
      ],
      mailWaiting: [],
    })
    const events = await ctx.deps.sql<{ n: number }[]>`
      select count(*)::int as n from homework_reminder_events where task_id = ${hw.id} and target_user_id = ${a.id} and not canceled`
    expect(events[0]!.n).toBe(3)
    expect(await memberCount(c.id, owner.token)).toBe(3)
    const inv = await api.get(`/courses/${c.id}/roster/invitations`, { token: owner.token })
    expect(inv.data).toMatchObject({ total: 1, page: 1, pageSize: 50 })
    expect(inv.data.items).toEqual([{ id: expect.any(String), email: newcomer.toLowerCase(), invitedAt: clock.now().toISOString() }])

    const again = await api.post(`/courses/${c.id}/roster`, { token: owner.token, json: { emails } })
    expect(again.data).toMatchObject({ enrolled: 0, alreadyMembers: 2, invited: 1 })
    expect(await memberCount(c.id, owner.token)).toBe(3)
    expect((await api.get(`/courses/${c.id}/roster/invitations`, { token: owner.token })).data.total).toBe(1)
    // No SMTP_URL here: no invitation mail is queued (with one: invitation-mail.test.ts).
    const queued = await ctx.deps.sql<{ n: number }[]>`select count(*)::int as n from email_outbox where to_address = ${newcomer.toLowerCase()}`
    expect(queued[0]!.n).toBe(0)

    // The invited address registers: enrolled at once, the invitation gone.
    const username = uniq('inv')
    const reg = await api.post('/auth/register', { json: { username, email: newcomer, password: 'correct horse battery' } })
    expect(reg.status).toBe(201)
    expect(await memberCount(c.id, owner.token)).toBe(4)
    expect((await members(c.id, owner.token)).items.some((m: any) => m.username === username)).toBe(true)
    expect((await api.get(`/courses/${c.id}/roster/invitations`, { token: owner.token })).data).toMatchObject({ total: 0, items: [] })
  })

  test('CSV with an email column (quoted, other columns, CRLF): rows are line numbers', async () => {
    const c = await createCourse(api, owner)
    const s = await signUp(api, 'STUDENT')
    const csv = `name,"E-Mail ignored",email\r\n"Doe, Jane",x,${s.email}\r\n\r\nBob,y,bad@\r\n`
    const res = await api.post(`/courses/${c.id}/roster`, { token: owner.token, raw: csv, headers: { 'content-type': 'text/csv; charset=utf-8' } })
    expect(res.status).toBe(200)
    expect(res.data).toEqual({ enrolled: 1, alreadyMembers: 0, invited: 0, awaitingVerification: 0, invalid: [{ row: 4, value: 'bad@', reason: 'MALFORMED' }], mailWaiting: [] })
    const noColumn = await api.post(`/courses/${c.id}/roster`, { token: owner.token, raw: 'name\nx', headers: { 'content-type': 'text/csv' } })
    expect([noColumn.status, noColumn.code]).toEqual([400, 40001])
  })

  test('401, 403 (student, outsider teacher), 404 unknown course, 400 (empty, too many, not strings, malformed JSON), 415 other types', async () => {
    const url = `/courses/${course.id}/roster`
    expect((await api.post(url, { json: { emails: ['a@b.test'] } })).status).toBe(401)
    for (const who of [student, otherTeacher]) expect((await api.post(url, { token: who.token, json: { emails: ['a@b.test'] } })).status).toBe(403)
    expect((await api.post(`/courses/${UNKNOWN}/roster`, { token: owner.token, json: { emails: ['a@b.test'] } })).status).toBe(404)
    for (const body of [{}, { emails: [] }, { emails: [1] }, { emails: Array(5001).fill('a@b.test') }, []]) {
      const r = await api.post(url, { token: owner.token, json: body })
      expect([r.status, r.code]).toEqual([400, 40001])
    }
    const tooManyCsv = 'email\n' + 'a@b.test\n'.repeat(5001)
    expect((await api.post(url, { token: owner.token, raw: tooManyCsv, headers: { 'content-type': 'text/csv' } })).status).toBe(400)
    const broken = await api.post(url, { token: owner.token, raw: '{"emails": [', headers: { 'content-type': 'application/json' } })
    expect([broken.status, broken.code]).toEqual([400, 40000])
    expect((await api.post(url, { token: owner.token, raw: 'email\nx@y.test', headers: { 'content-type': 'text/plain' } })).status).toBe(415)
    // text/csv is accepted on the roster route only.
    expect((await api.post(`/courses/${course.id}/announcements`, { token: owner.token, raw: 'email', headers: { 'content-type': 'text/csv' } })).status).toBe(415)
  })

  test('invitations: paged list and revoke (200, then 404); 401/403/404/400', async () => {
    const c = await createCourse(api, owner)
    const emails = Array.from({ length: 5 }, (_, i) => `${uniq('p' + i)}@example.test`)
    await api.post(`/courses/${c.id}/roster`, { token: owner.token, json: { emails } })
    const p2 = await api.get(`/courses/${c.id}/roster/invitations?page=2&pageSize=2`, { token: owner.token })
    expect(p2.data).toMatchObject({ total: 5, page: 2, pageSize: 2 })
    expect(p2.data.items).toHaveLength(2)
    const id = p2.data.items[0].id
    const url = `/courses/${c.id}/roster/invitations/${id}`
    expect((await api.del(url)).status).toBe(401)
    expect((await api.del(url, { token: student.token })).status).toBe(403)
    expect((await api.get(`/courses/${c.id}/roster/invitations`, { token: outsider.token })).status).toBe(403)
    expect((await api.get(`/courses/${c.id}/roster/invitations`)).status).toBe(401)
    expect((await api.get(`/courses/${c.id}/roster/invitations?pageSize=0`, { token: owner.token })).status).toBe(400)
    expect((await api.del(`/courses/${c.id}/roster/invitations/${NOT_A_UUID}`, { token: owner.token })).status).toBe(400)
    // Another course's invitation is unknown here.
    expect((await api.del(`/courses/${course.id}/roster/invitations/${id}`, { token: owner.token })).status).toBe(404)
    const del = await api.del(url, { token: owner.token })
    expect([del.status, del.code]).toEqual([200, 0])
    expect((await api.del(url, { token: owner.token })).status).toBe(404)
    expect((await api.get(`/courses/${c.id}/roster/invitations`, { token: owner.token })).data.total).toBe(4)
  })
})
