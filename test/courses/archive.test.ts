import { describe, expect, test } from 'bun:test'
import { dispatch } from '../../src/modules/reminders/dispatch.ts'
import { signUp } from '../support/harness.ts'
import { brief, liveRoutes, pathFor, send, specOf, tokenFor, validBody, authorisedCaller, type LiveRoute } from '../security/routes.ts'
import { buildWorld } from '../security/world.ts'

/**
 * An archived course is read-only (409, 40908, on every write, joining included), hidden from
 * `GET /courses`, still readable by its members; archiving cancels its pending reminders and
 * unarchiving creates the ones still ahead.
 */
const w = await buildWorld()
const { api, A, sql } = w
const courseA = `/courses/${A.course.id}`
const teacher = { token: A.teacher.token }

/** Routes an archived course still accepts as writes: unarchiving (PATCH) and copying it into a new term. */
const ALLOWED_WRITES = new Set(['POST /courses/:courseId/copy'])
const courseScoped = (r: LiveRoute) => ['member', 'teacher', 'student', 'owner'].includes(specOf(r).access)
const isWrite = (r: LiveRoute) => r.method !== 'GET'

const pendingOfHomework = async () =>
  (
    await sql<{ n: number }[]>`
      select count(*)::int as n from homework_reminder_events
       where task_id = ${A.homework.id} and sent_at is null and not canceled`
  )[0]!.n

const archive = (archived: boolean, token = A.teacher.token) => api.patch(courseA, { token, json: { archived } })

describe('archiving a course', () => {
  test('PATCH { archived }: 401 anonymous, 403 a student or another teacher, 404 unknown, 400 a non-boolean', async () => {
    expect((await api.patch(courseA, { json: { archived: true } })).status).toBe(401)
    const student = await archive(true, A.student.token)
    expect([student.status, student.code]).toEqual([403, 40300])
    expect((await archive(true, w.B.teacher.token)).status).toBe(403)
    const unknown = await api.patch('/courses/01900000-0000-7000-8000-000000000000', { ...teacher, json: { archived: true } })
    expect([unknown.status, unknown.code]).toEqual([404, 40401])
    const bad = await api.patch(courseA, { ...teacher, json: { archived: 'yes' } })
    expect([bad.status, bad.code]).toEqual([400, 40001])
    const course = await api.get(courseA, teacher)
    expect(course.data.archived).toBe(false)
  })

  test('archiving cancels the pending reminders and hides the course from GET /courses', async () => {
    expect(await pendingOfHomework()).toBeGreaterThan(0)
    const res = await archive(true)
    expect([res.status, res.code]).toEqual([200, 0])
    expect(res.data.archived).toBe(true)
    expect(await pendingOfHomework()).toBe(0)

    for (const who of [A.teacher, A.student]) {
      const active = await api.get('/courses', { token: who.token })
      expect(active.data.map((c: { id: string }) => c.id)).not.toContain(A.course.id)
      const archived = await api.get('/courses?archived=true', { token: who.token })
      expect(archived.status).toBe(200)
      expect(archived.data.map((c: { id: string }) => c.id)).toEqual([A.course.id])
      expect(archived.data[0].archived).toBe(true)
    }
    expect((await api.get('/courses?archived=maybe', teacher)).status).toBe(400)
    // Archiving again changes nothing.
    expect((await archive(true)).status).toBe(200)
  })

  test('every write in the archived course answers 409 (40908), whoever may otherwise make it', async () => {
    const writes = liveRoutes(w.ctx.app).filter((r) => courseScoped(r) && isWrite(r) && !ALLOWED_WRITES.has(r.key))
    expect(writes.length).toBeGreaterThan(20)
    const refused: string[] = []
    for (const route of writes) {
      const caller = authorisedCaller(route, A, w)
      const res = await send(api, route, pathFor(route, A), { token: await tokenFor(route, caller, w), ...(await validBody(route, A, w)) })
      if (res.status !== 409 || res.code !== 40908) refused.push(`${route.key}: ${JSON.stringify(brief(res))}`)
    }
    expect(refused).toEqual([])
  })

  test('joining by invite code is refused; a member who joins again gets the course unchanged', async () => {
    const newcomer = await signUp(api, 'STUDENT')
    const res = await api.post('/courses/join', { token: newcomer.token, json: { inviteCode: A.course.inviteCode } })
    expect([res.status, res.code]).toEqual([409, 40908])
    const again = await api.post('/courses/join', { token: A.student.token, json: { inviteCode: A.course.inviteCode } })
    expect(again.status).toBe(200)
  })

  test('members still read everything', async () => {
    const reads = liveRoutes(w.ctx.app).filter((r) => courseScoped(r) && !isWrite(r) && r.path.startsWith('/courses/:courseId'))
    const failed: string[] = []
    for (const route of reads) {
      for (const who of [A.teacher, A.student]) {
        const access = specOf(route).access
        if (access === 'teacher' && who === A.student) continue
        const res = await send(api, route, pathFor(route, A), { token: who.token })
        // An LTI launch is a redirect to the tool (issue 52): 302 is its success. A tool's picker
        // (deep linking) adds tasks: the archived course refuses it (below).
        if (/\/deep-linking$/.test(route.path)) continue
        const ok = /\/lti\/launch$/.test(route.path) ? 302 : 200
        if (res.status !== ok) failed.push(`${route.key} as ${who.role}: ${JSON.stringify(brief(res))}`)
      }
    }
    expect(failed).toEqual([])
  })

  test('an LTI tool\'s picker would add tasks: refused in an archived course; the launch still opens', async () => {
    const picker = await api.get(`${courseA}/learning/points/${A.point.id}/lti/tools/${A.ltiTool.id}/deep-linking`, teacher)
    expect([picker.status, picker.code]).toEqual([409, 40908])
    const launch = await api.get(`${courseA}/learning/tasks/${A.ltiTask.id}/lti/launch`, { token: A.student.token })
    expect(launch.status).toBe(302)
  })

  test('nothing is sent from an archived course, even an event that was pending before the archive', async () => {
    const at = new Date(Date.now() - 1000)
    await sql`
      insert into homework_reminder_events (id, task_id, target_user_id, trigger_type, scheduled_at, created_at)
      values (gen_uuid_v7(), ${A.homework.id}, ${w.s3.id}, 'DUE', ${at}, ${at})`
    await dispatch(sql, new Date())
    const [row] = await sql<{ sent: boolean; canceled: boolean }[]>`
      select sent_at is not null as sent, canceled from homework_reminder_events
       where task_id = ${A.homework.id} and target_user_id = ${w.s3.id} and scheduled_at = ${at}`
    expect(row).toEqual({ sent: false, canceled: true })
  })

  test('an archived course accepts no other edit unless the same request unarchives it', async () => {
    const edit = await api.patch(courseA, { ...teacher, json: { title: 'Renamed' } })
    expect([edit.status, edit.code]).toEqual([409, 40908])
    const student = await archive(false, A.student.token)
    expect(student.status).toBe(403)
  })

  test('unarchiving creates the reminders still ahead and allows writes again', async () => {
    const res = await api.patch(courseA, { ...teacher, json: { archived: false, title: A.course.title } })
    expect([res.status, res.data.archived]).toEqual([200, false])
    // The homework opened an hour ago: START has passed; 24 h before due and due are ahead, for both students.
    const events = await sql<{ trigger_type: string; n: number }[]>`
      select trigger_type, count(*)::int as n from homework_reminder_events
       where task_id = ${A.homework.id} and sent_at is null and not canceled
       group by trigger_type order by trigger_type`
    expect([...events]).toEqual([
      { trigger_type: 'BEFORE_DUE_24H', n: 2 },
      { trigger_type: 'DUE', n: 2 },
    ])
    // Unarchiving twice creates nothing twice.
    expect((await archive(false)).status).toBe(200)
    expect(await pendingOfHomework()).toBe(4)
    const unit = await api.post(`${courseA}/learning/units`, { ...teacher, json: { title: 'After the archive' } })
    expect(unit.status).toBe(201)
    const listed = await api.get('/courses', teacher)
    expect(listed.data.map((c: { id: string }) => c.id)).toContain(A.course.id)
  })
})
