import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { rm } from 'node:fs/promises'
import type { LocalDiskStorage } from '../../src/storage/local-disk.ts'
import { NOT_A_UUID, UNKNOWN_ID, world, type World } from '../experiments/world.ts'
import { download, formOf } from '../storage/helpers.ts'
import { addStudent, insertCourse, insertHomework, insertPoint, insertSubmission } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, type Account, type TestContext } from '../support/harness.ts'

let ctx: TestContext
let w: World
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const NAMES = ['Alice', '=HYPERLINK("http://evil","x")', 'Chen, 陈']
let alice: Account
let mallory: Account
let chen: Account
const e: Record<string, string> = {}
const t: Record<string, string> = {}
const sub: Record<string, { id: string; submittedAt: string }> = {}

async function experiment(title: string, dueAt: string) {
  const res = await ctx.api.post(`/courses/${w.course.id}/experiments`, { json: { title, description: '', dueAt }, token: w.teacher.token })
  return res.data.id as string
}
async function submit(experimentId: string, student: Account) {
  clock.advance(60_000)
  const res = await ctx.api.post(`/experiments/${experimentId}/submissions`, {
    form: formOf({ file: new File(['report'], 'r.txt') }),
    token: student.token,
  })
  expect(res.status).toBe(201)
  return { id: res.data.id as string, submittedAt: res.data.submittedAt as string }
}
const grade = (submissionId: string, score: number) =>
  ctx.api.patch(`/submissions/${submissionId}/grade`, { json: { score }, token: w.teacher.token })
const gradeLearning = (id: string, score: number) =>
  ctx.deps.sql`update learning_submissions set score = ${score}, status = 'GRADED', graded_at = now() where id = ${id}`

beforeAll(async () => {
  ctx = await testApp({ clock })
  w = await world(ctx, { students: 3, names: NAMES, courseTitle: '物理实验 "A"' })
  ;[alice, mallory, chen] = w.students as [Account, Account, Account]

  // Learning tasks: Alice's newest answer to T1 is ungraded (an older one was graded), T2 graded 90.
  const { pointId } = await insertPoint(ctx.deps.sql, w.course.id)
  const window = { startAt: new Date('2026-11-20T00:00:00Z'), dueAt: new Date('2026-12-20T00:00:00Z') }
  const t1 = await insertHomework(ctx.deps.sql, w.course.id, pointId, { ...window, title: 'T1' })
  const t2 = await insertHomework(ctx.deps.sql, w.course.id, pointId, { ...window, title: 'T2' })
  t.t1 = t1.id
  t.t2 = t2.id
  const old = await insertSubmission(ctx.deps.sql, t1.id, w.course.id, alice.id, new Date('2026-11-21T00:00:00Z'))
  await gradeLearning(old.id, 50)
  await insertSubmission(ctx.deps.sql, t1.id, w.course.id, alice.id, new Date('2026-11-21T12:00:00Z'))
  const t2sub = await insertSubmission(ctx.deps.sql, t2.id, w.course.id, alice.id, new Date('2026-11-21T00:00:00Z'))
  await gradeLearning(t2sub.id, 90)

  // Experiments, by due date: E1 (formula-like title), E2, E3 (nobody submits).
  e.e2 = await experiment('Circuit', '2026-12-10T00:00:00Z')
  e.e1 = await experiment('+SUM(A1)', '2026-12-01T00:00:00Z')
  e.e3 = await experiment('Optics', '2026-12-20T00:00:00Z')
  const first = await submit(e.e1, alice)
  await grade(first.id, 10)
  sub.aliceE1 = await submit(e.e1, alice)
  await grade(sub.aliceE1.id, 80)
  sub.malloryE2 = await submit(e.e2, mallory)

  // A former student's work does not appear.
  const gone = await signUp(ctx.api, 'STUDENT')
  await addStudent(ctx.deps.sql, w.course.id, gone.id)
  await submit(e.e2, gone)
  await ctx.deps.sql`delete from course_members where course_id = ${w.course.id} and user_id = ${gone.id}`
}, 60_000)
afterAll(async () => {
  await rm((ctx.deps.storage as LocalDiskStorage).root, { recursive: true, force: true })
})

describe('GET /courses/{courseId}/grades/overview', () => {
  test('per student: newest submission per task and experiment, graded counts, average, experiment details', async () => {
    const res = await ctx.api.get(`/courses/${w.course.id}/grades/overview`, { token: w.teacher.token })
    expect(res.status).toBe(200)
    expect(res.code).toBe(0)
    const who = (u: Account) => ({ userId: u.id, username: u.username })
    // Sparse: only the columns with a score have a key.
    const cells = (c: Record<string, number>) => c
    expect(res.data).toEqual({
      columns: [
        { id: t.t1, kind: 'TASK', taskKind: 'HOMEWORK', taskType: 'MEDIA', title: 'T1', dueAt: '2026-12-20T00:00:00.000Z' },
        { id: t.t2, kind: 'TASK', taskKind: 'HOMEWORK', taskType: 'MEDIA', title: 'T2', dueAt: '2026-12-20T00:00:00.000Z' },
        { id: e.e1, kind: 'EXPERIMENT', taskKind: null, taskType: null, title: '+SUM(A1)', dueAt: '2026-12-01T00:00:00.000Z' },
        { id: e.e2, kind: 'EXPERIMENT', taskKind: null, taskType: null, title: 'Circuit', dueAt: '2026-12-10T00:00:00.000Z' },
        { id: e.e3, kind: 'EXPERIMENT', taskKind: null, taskType: null, title: 'Optics', dueAt: '2026-12-20T00:00:00.000Z' },
      ],
      students: [
        {
          ...who(mallory),
          displayName: NAMES[1],
          submissionCount: 1,
          gradedCount: 0,
          averageScore: null,
          experiments: [
            {
              experimentId: e.e2,
              title: 'Circuit',
              submissionId: sub.malloryE2!.id,
              submittedAt: sub.malloryE2!.submittedAt,
              score: null,
              feedback: null,
              gradedAt: null,
            },
          ],
          cells: cells({}),
          // Issue 29.6: why a cell has no score (nothing is past due at this time).
          status: { [e.e2!]: 'NOT_GRADED' },
          late: [],
        },
        {
          ...who(alice),
          displayName: 'Alice',
          submissionCount: 3,
          gradedCount: 2,
          averageScore: 85,
          experiments: [
            {
              experimentId: e.e1,
              title: '+SUM(A1)',
              submissionId: sub.aliceE1!.id,
              submittedAt: sub.aliceE1!.submittedAt,
              score: 80,
              feedback: null,
              gradedAt: expect.any(String),
            },
          ],
          // T1's newest answer is ungraded (the older graded one does not count).
          cells: cells({ [t.t2!]: 90, [e.e1!]: 80 }),
          status: { [t.t1!]: 'NOT_GRADED' },
          late: [],
        },
        { ...who(chen), displayName: 'Chen, 陈', submissionCount: 0, gradedCount: 0, averageScore: null, experiments: [], cells: cells({}), status: {}, late: [] },
      ],
      total: 3,
      page: 1,
      pageSize: null,
    })
  })

  test('averages keep two decimals', async () => {
    const c = await insertCourse(ctx.deps.sql, w.teacher.id, 'Averages')
    await addStudent(ctx.deps.sql, c.id, chen.id)
    const make = async (title: string) =>
      (await ctx.api.post(`/courses/${c.id}/experiments`, { json: { title, description: '', dueAt: '2026-12-01T00:00:00Z' }, token: w.teacher.token })).data.id
    for (const [title, score] of [['a', 90], ['b', 80], ['c', 85.5]] as const) {
      const s = await submit(await make(title), chen)
      await grade(s.id, score)
    }
    const res = await ctx.api.get(`/courses/${c.id}/grades/overview`, { token: w.teacher.token })
    expect(res.data.students[0]).toMatchObject({ submissionCount: 3, gradedCount: 3, averageScore: 85.17 })
  })

  test('a course without students has an empty overview', async () => {
    const c = await insertCourse(ctx.deps.sql, w.teacher.id, 'Empty')
    const res = await ctx.api.get(`/courses/${c.id}/grades/overview`, { token: w.teacher.token })
    expect(res.data).toEqual({ columns: [], students: [], total: 0, page: 1, pageSize: null })
  })

  const refusals: [string, () => string, () => string, number][] = [
    ['no credentials', () => w.course.id, () => '', 401],
    ['a student of the course', () => w.course.id, () => alice.token, 403],
    ['a teacher of another course', () => w.course.id, () => w.otherTeacher.token, 403],
    ['an unknown course', () => UNKNOWN_ID, () => w.teacher.token, 404],
    ['a non-UUID course id', () => NOT_A_UUID, () => w.teacher.token, 400],
  ]
  test.each(refusals)('overview: %s → %i', async (_, courseId, token, status) => {
    const res = await ctx.api.get(`/courses/${courseId()}/grades/overview`, { token: token() })
    expect(res.status).toBe(status)
    expect(res.code).toBeGreaterThan(0)
  })
  test.each(refusals)('CSV: %s → %i (envelope)', async (_, courseId, token, status) => {
    const res = await download(ctx, `/courses/${courseId()}/grades/overview.csv`, token())
    expect(res.status).toBe(status)
    expect(res.json.code).toBeGreaterThan(0)
  })
})

describe('GET /courses/{courseId}/grades/overview.csv', () => {
  test('UTF-8 with BOM, RFC 4180 quoting, formula-safe cells, one column pair per experiment', async () => {
    const res = await download(ctx, `/courses/${w.course.id}/grades/overview.csv`, w.teacher.token)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="grades-_ _A_-2026-11-22.csv"; filename*=UTF-8''${encodeURIComponent('grades-物理实验 _A_-2026-11-22.csv')}`,
    )
    expect([...res.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(res.bytes)
    expect(text.startsWith('\uFEFF')).toBe(true)
    expect(text.endsWith('\r\n')).toBe(true)
    const lines = text.slice(1).split('\r\n')
    expect(lines.pop()).toBe('')
    expect(lines).toEqual([
      "User ID,Username,Display name,Submissions,Graded,Average score,T1: score,T2: score,'+SUM(A1): score,'+SUM(A1): submitted at,Circuit: score,Circuit: submitted at,Optics: score,Optics: submitted at," +
        // Issue 29.6: one status column per gradebook column, after the earlier ones.
        "T1: status,T2: status,'+SUM(A1): status,Circuit: status,Optics: status",
      `${mallory.id},${mallory.username},"'=HYPERLINK(""http://evil"",""x"")",1,0,,,,,,,${sub.malloryE2!.submittedAt},,,,,,Not graded,`,
      `${alice.id},${alice.username},Alice,3,2,85,,90,80,${sub.aliceE1!.submittedAt},,,,,Not graded,Graded,Graded,,`,
      `${chen.id},${chen.username},"Chen, 陈",0,0,,,,,,,,,,,,,,`,
    ])
  })

  // Issue 26: built chunk by chunk of students (bounded memory at 100,000 students); any chunk
  // size gives the same file, the header once, every student once, in order.
  test('chunks of students give the same file as one chunk', async () => {
    const { overviewCsv } = await import('../../src/modules/grades/service.ts')
    const text = async (size: number) => new Response(await overviewCsv(ctx.deps.sql, w.course.id, ctx.deps.clock.now(), size)).text()
    const whole = await text(1000)
    for (const size of [1, 2, 3]) expect(await text(size)).toBe(whole)
    expect(whole.split('\r\n')).toHaveLength(5)
  })

  test('also under /core/api/v1', async () => {
    const res = await ctx.app.handle(
      new Request(`http://localhost/core/api/v1/courses/${w.course.id}/grades/overview.csv`, {
        headers: { authorization: `Bearer ${w.teacher.token}` },
      }),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
  })
})

/*
 * Issue 26: a whole-course overview of more than GRADEBOOK_STREAM_STUDENTS students, and every
 * CSV export, are streamed in chunks of students, each read in a short snapshot of its own. The
 * app `streaming` streams every whole-course overview (threshold 0); `ctx` builds it in memory.
 */
describe('streamed grade overview and CSV', () => {
  let streaming: TestContext
  const path = () => `/courses/${w.course.id}/grades/overview`
  const rawGet = async (app: TestContext, p: string, headers: Record<string, string> = {}) =>
    app.app.handle(new Request(`http://localhost/api/v1${p}`, { headers: { authorization: `Bearer ${w.teacher.token}`, ...headers } }))
  beforeAll(async () => {
    streaming = await testApp({ clock, config: { gradebookStreamStudents: 0 } })
  })

  test('the streamed whole-course overview is byte for byte the built one, with a weak ETag; a page is still built', async () => {
    const built = await rawGet(ctx, path())
    const streamed = await rawGet(streaming, path())
    expect([built.status, streamed.status]).toEqual([200, 200])
    expect(streamed.headers.get('content-type')).toBe('application/json;charset=utf-8')
    const text = await streamed.text()
    expect(text).toBe(await built.text())
    const body = JSON.parse(text)
    expect([body.code, body.data.total, body.data.page, body.data.pageSize]).toEqual([0, 3, 1, null])
    expect(body.data.students.map((s: any) => s.userId)).toEqual([mallory.id, alice.id, chen.id])
    expect(streamed.headers.get('etag')).toMatch(/^W\/"s[0-9a-z]+"$/)
    expect(built.headers.get('etag')).not.toStartWith('W/')
    // Any chunk size gives the same bytes (the route reads 2,000 students a chunk).
    const { overviewBody } = await import('../../src/modules/grades/service.ts')
    for (const size of [1, 2]) {
      const outcome = await overviewBody(ctx.deps.sql, w.course.id, {}, clock.now(), null, undefined, 0, size)
      if (!('open' in outcome)) throw new Error('not streamed')
      expect(await new Response(await outcome.open(() => {})).text()).toBe(text)
    }
    // A page (at most 200 students) is built and cached as before.
    const page = await rawGet(streaming, `${path()}?page=1&pageSize=2`)
    expect(page.status).toBe(200)
    expect(page.headers.get('etag')).not.toStartWith('W/')
    expect(await page.text()).toBe(await (await rawGet(ctx, `${path()}?page=1&pageSize=2`)).text())
  })

  test('the weak ETag answers 304 until the gradebook changes', async () => {
    const first = await rawGet(streaming, path())
    const etag = first.headers.get('etag')!
    await first.body?.cancel()
    const same = await rawGet(streaming, path(), { 'if-none-match': etag })
    expect(same.status).toBe(304)
    expect(same.headers.get('etag')).toBe(etag)
    const [row] = await ctx.deps.sql<{ score: string }[]>`select score from experiment_submissions where id = ${sub.aliceE1!.id}`
    await grade(sub.aliceE1!.id, 81)
    try {
      const changed = await rawGet(streaming, path(), { 'if-none-match': etag })
      expect(changed.status).toBe(200)
      expect(changed.headers.get('etag')).not.toBe(etag)
      const body = JSON.parse(await changed.text())
      expect(body.data.students[1].cells[e.e1!]).toBe(81)
    } finally {
      await grade(sub.aliceE1!.id, Number(row!.score))
    }
  })

  test('401 without a login, 403 for a student and another teacher, 404 for an unknown course, 400 for a bad page', async () => {
    const api = streaming.api
    expect((await api.get(path())).status).toBe(401)
    const student = await api.get(path(), { token: alice.token })
    expect([student.status, student.code === 0]).toEqual([403, false])
    expect((await api.get(path(), { token: w.otherTeacher.token })).status).toBe(403)
    expect((await api.get(`/courses/${UNKNOWN_ID}/grades/overview`, { token: w.teacher.token })).status).toBe(404)
    expect((await api.get(`${path()}?pageSize=201`, { token: w.teacher.token })).status).toBe(400)
    expect((await api.get(`/courses/${NOT_A_UUID}/grades/overview`, { token: w.teacher.token })).status).toBe(400)
  })

  test('pulled as read: no connection is held between chunks, and a cancelled download leaves nothing open', async () => {
    const { overviewCsv } = await import('../../src/modules/grades/service.ts')
    const stream = await overviewCsv(ctx.deps.sql, w.course.id, clock.now(), 1)
    const reader = stream.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    expect(first.split('\r\n')).toHaveLength(3) // the header and the first student
    // Between chunks the export holds no transaction: on the embedded database (one
    // connection) this request would wait for the download otherwise.
    const other = await ctx.api.get(path(), { token: w.teacher.token })
    expect(other.status).toBe(200)
    await reader.cancel()
    const [open] = await ctx.deps.sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`
    expect(open!.n).toBe(0)
    expect((await ctx.api.get(path(), { token: w.teacher.token })).status).toBe(200)
  })

  test('a failure reading the first chunk is an error response; a later one cuts the stream off, logged', async () => {
    const { overviewCsv } = await import('../../src/modules/grades/service.ts')
    const sql = ctx.deps.sql
    const errors: unknown[] = []
    const stream = await overviewCsv(sql, w.course.id, clock.now(), 1, (e) => errors.push(e))
    const reader = stream.getReader()
    expect((await reader.read()).done).toBe(false)
    // A real database error from the next chunk's statement: the table it reads is gone.
    await sql`alter table grade_totals rename to grade_totals_away`
    try {
      // One chunk is read ahead (it may have been read before the rename); then the stream fails, never ends.
      let failed: Error | null = null
      let more = 0
      for (;;) {
        const r = await reader.read().then(
          (r) => r,
          (e: unknown) => void (failed = e as Error),
        )
        if (!r || r.done) break
        more++
      }
      expect(String(failed)).toMatch(/grade_totals/)
      expect(more).toBeLessThanOrEqual(1)
      expect(errors).toHaveLength(1)
      for (const p of ['/grades/overview.csv', '/grades/overview']) {
        const res = await streaming.api.get(`/courses/${w.course.id}${p}`, { token: w.teacher.token })
        expect(res.status).toBe(500)
        expect(res.code).not.toBe(0)
      }
    } finally {
      await sql`alter table grade_totals_away rename to grade_totals`
    }
    expect((await streaming.api.get(path(), { token: w.teacher.token })).status).toBe(200)
  })
})
