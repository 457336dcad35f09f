import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { tokenSigner } from '../../src/http/auth.ts'
import { newId } from '../../src/lib/ids.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { testApp, testConfig, uniq, type Client, type Res } from '../support/harness.ts'
import { startService, type ServiceProcess } from '../support/processes.ts'
import { essayTask, insertResource } from '../learning/helpers.ts'

/**
 * Issue 17, findings 3 and 4: deletes racing submissions, parallel deletes and parallel
 * creations, many trials each on a real PostgreSQL server (the embedded database has one
 * connection, so nothing there runs concurrently). Also across two service processes.
 */
const TRIALS = 50
const STUDENTS = 10

/** Accounts with sessions, written directly (hashing ten passwords would cost seconds). */
async function accounts(sql: any, role: 'STUDENT' | 'TEACHER', n: number) {
  const tokens = tokenSigner(testConfig().jwtSecret!)
  return Promise.all(
    Array.from({ length: n }, async () => {
      const id = newId()
      const username = uniq(role === 'TEACHER' ? 'rt' : 'rs')
      await sql`insert into users (id, username, email, password_hash, display_name, role, created_at)
                values (${id}, ${username}, ${`${username}@x.test`}, 'x', ${username}, ${role}, now())`
      const sid = newId()
      await sql`insert into sessions (id, user_id, created_at, expires_at) values (${sid}, ${id}, now(), now() + interval '1 day')`
      return { id, token: await tokens.sign({ sid, sub: id, exp: Math.floor(Date.now() / 1000) + 86400 }) }
    }),
  )
}

const ok = (r: Res, status: number, what: string) => {
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`)
  return r.data
}

const PG = Boolean(process.env.DATABASE_URL)

describe.skipIf(!PG)('delete and submit races on PostgreSQL (issue 17)', async () => {
  if (!PG) return
  const { api, deps } = await testApp()
  const sql = deps.sql
  const [teacher] = await accounts(sql, 'TEACHER', 1)
  const students = await accounts(sql, 'STUDENT', STUDENTS)
  const course = await insertCourse(sql, teacher!.id)
  for (const s of students) await addStudent(sql, course.id, s.id)
  const base = `/courses/${course.id}/learning`
  const t = { token: teacher!.token }

  const tree = async (withTask = true) => {
    const unit = ok(await api.post(`${base}/units`, { ...t, json: { title: 'U' } }), 201, 'unit')
    const point = ok(await api.post(`${base}/units/${unit.id}/points`, { ...t, json: { title: 'P' } }), 201, 'point')
    const task = withTask ? ok(await api.post(`${base}/points/${point.id}/tasks`, { ...t, json: { title: 'T', ...essayTask } }), 201, 'task') : null
    return { unit, point, task }
  }
  const submitAll = (api: Client | Client[], taskId: string) =>
    students.map((s, i) =>
      (Array.isArray(api) ? api[i % api.length]! : api).post(`${base}/tasks/${taskId}/submissions`, {
        token: s.token,
        json: { content: '<p>my answer</p>' },
      }),
    )
  const rowsOf = async (taskId: string) =>
    (await sql<{ n: number }[]>`select count(*)::int as n from learning_submissions where task_id = ${taskId}`)[0]!.n

  /** The invariant: every 201 is a row that exists; a delete that won left no accepted work behind. */
  async function judge(kind: string, del: Res, subs: Res[], taskId: string) {
    const accepted = subs.filter((r) => r.status === 201).length
    const refused = subs.filter((r) => r.status === 404)
    expect(accepted + refused.length).toBe(subs.length)
    for (const r of refused) expect(r.code).toBe(40404)
    if (del.status === 200) {
      expect({ kind, accepted }).toEqual({ kind, accepted: 0 })
    } else {
      expect({ kind, status: del.status, code: del.code }).toEqual({ kind, status: 409, code: 40904 })
      expect(accepted).toBeGreaterThan(0)
      // The refused delete left the task in place.
      expect((await sql`select 1 from learning_tasks where id = ${taskId}`).length).toBe(1)
    }
    expect(await rowsOf(taskId)).toBe(accepted)
  }

  test(`a task, point or unit deleted while ${STUDENTS} students submit: never a 201 followed by loss (${TRIALS} trials each)`, async () => {
    const outcomes: Record<string, Record<number, number>> = { task: {}, point: {}, unit: {} }
    for (let i = 0; i < TRIALS; i++) {
      for (const kind of ['task', 'point', 'unit'] as const) {
        const { unit, point, task } = await tree()
        const path = kind === 'task' ? `${base}/tasks/${task.id}` : kind === 'point' ? `${base}/points/${point.id}` : `${base}/units/${unit.id}`
        const [del, ...subs] = await Promise.all([api.del(path, t), ...submitAll(api, task.id)])
        await judge(kind, del!, subs, task.id)
        outcomes[kind]![del!.status] = (outcomes[kind]![del!.status] ?? 0) + 1
      }
    }
    // Both outcomes happen (the race is real), and each is clean.
    console.log('delete outcomes over', TRIALS, 'trials:', JSON.stringify(outcomes))
  }, 240_000)

  test(`grading while the task is deleted: the delete answers 409 and the grade stays (${TRIALS} trials)`, async () => {
    for (let i = 0; i < TRIALS; i++) {
      const { task } = await tree()
      const sub = ok(await api.post(`${base}/tasks/${task.id}/submissions`, { token: students[0]!.token, json: { content: '<p>a</p>' } }), 201, 'submit')
      const [del, graded] = await Promise.all([
        api.del(`${base}/tasks/${task.id}`, t),
        api.patch(`${base}/submissions/${sub.id}/grade`, { ...t, json: { score: 80 } }),
      ])
      expect([del!.status, del!.code, graded!.status]).toEqual([409, 40904, 200])
      const [row] = await sql<{ score: string }[]>`select score::text from learning_submissions where id = ${sub.id}`
      expect(Number(row!.score)).toBe(80)
    }
  }, 120_000)

  test(`an experiment deleted while ${STUDENTS} students submit files: never a 201 followed by loss (${TRIALS} trials)`, async () => {
    const outcomes: Record<number, number> = {}
    for (let i = 0; i < TRIALS; i++) {
      const exp = ok(
        await api.post(`/courses/${course.id}/experiments`, { ...t, json: { title: 'E', description: '<p>x</p>', dueAt: new Date(Date.now() + 86400_000).toISOString() } }),
        201,
        'experiment',
      )
      const form = () => {
        const f = new FormData()
        f.append('file', new File(['report'], 'r.txt', { type: 'text/plain' }))
        return f
      }
      const [del, ...subs] = await Promise.all([
        api.del(`/courses/${course.id}/experiments/${exp.id}`, t),
        ...students.map((s) => api.post(`/experiments/${exp.id}/submissions`, { token: s.token, form: form() })),
      ])
      const accepted = subs.filter((r) => r.status === 201).length
      const refused = subs.filter((r) => r.status === 404)
      expect(accepted + refused.length).toBe(subs.length)
      for (const r of refused) expect(r.code).toBe(40406)
      if (del!.status === 200) expect(accepted).toBe(0)
      else {
        expect([del!.status, del!.code]).toEqual([409, 40904])
        expect(accepted).toBeGreaterThan(0)
        expect((await sql`select 1 from experiments where id = ${exp.id}`).length).toBe(1)
      }
      const [n] = await sql<{ n: number }[]>`select count(*)::int as n from experiment_submissions where experiment_id = ${exp.id}`
      expect(n!.n).toBe(accepted)
      outcomes[del!.status] = (outcomes[del!.status] ?? 0) + 1
    }
    console.log('experiment delete outcomes over', TRIALS, 'trials:', JSON.stringify(outcomes))
  }, 240_000)

  test(`two parallel deletes of one resource: one 200, the other 404 (${TRIALS} trials)`, async () => {
    for (let i = 0; i < TRIALS; i++) {
      const id = await insertResource(sql, course.id, teacher!.id, 'LINK')
      const res = await Promise.all([0, 1].map(() => api.del(`/courses/${course.id}/resources/${id}`, t)))
      expect(res.map((r) => `${r.status}/${r.code}`).sort()).toEqual(['200/0', '404/40407'])
    }
  }, 120_000)

  test(`a resource deleted while a task is saved with it: either the task keeps it (409) or the task is refused (${TRIALS} trials)`, async () => {
    const { point } = await tree(false)
    for (let i = 0; i < TRIALS; i++) {
      const id = await insertResource(sql, course.id, teacher!.id, 'FILE')
      const [del, created] = await Promise.all([
        api.del(`/courses/${course.id}/resources/${id}`, t),
        api.post(`${base}/points/${point.id}/tasks`, { ...t, json: { title: 'R', taskType: 'MEDIA', materialType: 'FILE', resourceId: id } }),
      ])
      const pair = `${del!.status}/${created!.status}`
      expect(['409/201', '200/400']).toContain(pair)
      const [n] = await sql<{ n: number }[]>`select count(*)::int as n from course_resources where id = ${id}`
      expect(n!.n).toBe(del!.status === 200 ? 0 : 1)
    }
  }, 120_000)

  test('30 parallel unit creations and 30 parallel point creations get distinct positions 1..30', async () => {
    const other = await insertCourse(sql, teacher!.id)
    const ob = `/courses/${other.id}/learning`
    const units = await Promise.all(Array.from({ length: 30 }, (_, i) => api.post(`${ob}/units`, { ...t, json: { title: `U${i}` } })))
    expect(units.map((r) => r.status)).toEqual(Array(30).fill(201))
    expect(units.map((r) => r.data.sortOrder).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
    const unitId = units[0]!.data.id
    const points = await Promise.all(Array.from({ length: 30 }, (_, i) => api.post(`${ob}/units/${unitId}/points`, { ...t, json: { title: `P${i}` } })))
    expect(points.map((r) => r.status)).toEqual(Array(30).fill(201))
    expect(points.map((r) => r.data.sortOrder).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1))
  }, 60_000)

  describe('across two service processes', () => {
    let one: ServiceProcess
    let two: ServiceProcess
    const remote = (svc: ServiceProcess): Client => svc.api
    beforeAll(async () => {
      const env = { DATABASE_URL: process.env.DATABASE_URL, JWT_SECRET: testConfig().jwtSecret }
      ;[one, two] = await Promise.all([startService({ env }), startService({ env })])
    }, 120_000)
    afterAll(async () => {
      await Promise.all([one?.stop(), two?.stop()])
    }, 60_000)

    test(`a task deleted on one instance while students submit on both (${TRIALS} trials)`, async () => {
      const [a, b] = [remote(one), remote(two)]
      for (let i = 0; i < TRIALS; i++) {
        const { task } = await tree()
        const [del, ...subs] = await Promise.all([(i % 2 ? a : b).del(`${base}/tasks/${task.id}`, t), ...submitAll([a, b], task.id)])
        await judge('task', del!, subs, task.id)
      }
    }, 240_000)
  })
})
