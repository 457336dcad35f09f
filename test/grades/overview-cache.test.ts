import { beforeAll, describe, expect, test } from 'bun:test'
import { gradebookCacheCounts } from '../../src/metrics.ts'
import { OverviewCache } from '../../src/lib/overview-cache.ts'
import * as service from '../../src/modules/grades/service.ts'
import { createPoint, createTask, createUnit, pointIn, shortAnswer, textTask, world, type World } from '../learning/helpers.ts'
import { formOf } from '../storage/helpers.ts'
import { addStudent } from '../support/fixtures.ts'
import { signUp, testApp, usingExternalDb, type TestContext } from '../support/harness.ts'

/*
 * Issue 15: the grade overview is served from a per-instance cache while the course's gradebook
 * version (sql/030) is unchanged. Every kind of write it shows must reach the next read, on this
 * instance and on another one, and a hit must be byte for byte what a fresh build writes.
 */
let w: World
let b: TestContext // a second instance (its own cache) on the same database
let pointId: string
let homework: any

const path = () => `/courses/${w.course.id}/grades/overview`
const version = async () => (await w.deps.sql<{ v: string }[]>`select coalesce(sum(version), 0)::text as v from gradebook_versions where course_id = ${w.course.id}`)[0]!.v

/** What a build without any cache answers now. */
async function fresh(paging = {}) {
  const { columns, students, total, page, pageSize } = await service.overview(w.deps.sql, w.course.id, w.deps.clock.now(), paging)
  return JSON.parse(JSON.stringify({ columns, students, total, page, pageSize }))
}

/** Reads through both instances (warming both caches) and checks them against a fresh build. */
async function expectCurrent() {
  const want = await fresh()
  for (const api of [w.api, b.api]) {
    const r = await api.get(path(), { token: w.teacher.token })
    expect([r.status, r.code]).toEqual([200, 0])
    expect(r.data).toEqual(want)
  }
  return want
}

/** `change` must alter the overview, raise the version, and show on both instances at once. */
async function expectShown(change: () => Promise<unknown>, see: (data: any) => void) {
  const before = await expectCurrent()
  // Both caches hold `before` now: a second read is a hit.
  const h0 = (await gradebookCacheCounts()).hit
  await w.api.get(path(), { token: w.teacher.token })
  expect((await gradebookCacheCounts()).hit).toBe(h0 + 1)
  const v0 = await version()
  await change()
  expect(BigInt(await version())).toBeGreaterThan(BigInt(v0))
  const after = await expectCurrent()
  expect(after).not.toEqual(before)
  see(after)
}

const byName = (data: any, name: string) => data.students.find((s: any) => s.displayName === name)

beforeAll(async () => {
  w = await world()
  b = await testApp()
  pointId = (await pointIn(w)).point.id
  homework = await createTask(w.api, w.base, w.teacher, pointId, {
    title: 'Essay', ...textTask, taskKind: 'HOMEWORK', startAt: '2026-01-01T00:00:00Z', dueAt: '2030-01-01T00:00:00Z',
  })
}, 60_000)

describe('grade overview cache: every change the overview shows reaches the next read, on every instance', () => {
  let sheetId: string
  test('a submission (grade_totals)', async () => {
    await expectShown(
      async () => (sheetId = (await w.api.post(`${w.base}/tasks/${homework.id}/submissions`, { token: w.student.token, json: { content: 'essay' } })).data.id),
      (d) => expect(byName(d, 'Alice').submissionCount).toBe(1),
    )
  })

  test('a grade (task scores)', async () => {
    await expectShown(
      () => w.api.patch(`${w.base}/submissions/${sheetId}/grade`, { token: w.teacher.token, json: { score: 77 } }),
      (d) => expect(byName(d, 'Alice').cells[homework.id]).toBe(77),
    )
  })

  test('a task renamed (learning_tasks)', async () => {
    await expectShown(
      () => w.api.patch(`${w.base}/tasks/${homework.id}`, { token: w.teacher.token, json: { title: 'Essay, revised' } }),
      (d) => expect(d.columns.find((c: any) => c.id === homework.id).title).toBe('Essay, revised'),
    )
  })

  let unitId: string
  let quiz: any
  test('a new unit, point and quiz (learning_units, knowledge_points, learning_tasks)', async () => {
    await expectShown(
      async () => {
        unitId = (await createUnit(w.api, w.base, w.teacher, 'Unit 2')).id
        const point = await createPoint(w.api, w.base, w.teacher, unitId, 'Point 2')
        quiz = await createTask(w.api, w.base, w.teacher, point.id, { title: 'Quiz 2', taskType: 'QUIZ', questions: [shortAnswer()] })
      },
      (d) => expect(d.columns.map((c: any) => c.title)).toEqual(['Essay, revised', 'Quiz 2']),
    )
  })

  test('a unit deleted with its quiz (cascade)', async () => {
    await expectShown(
      () => w.api.del(`${w.base}/units/${unitId}`, { token: w.teacher.token }),
      (d) => expect(d.columns.map((c: any) => c.id)).not.toContain(quiz.id),
    )
  })

  let experimentId: string
  test('a new experiment (experiments)', async () => {
    await expectShown(
      async () =>
        (experimentId = (
          await w.api.post(`/courses/${w.course.id}/experiments`, { token: w.teacher.token, json: { title: 'Lab', description: '', dueAt: '2030-01-01T00:00:00Z' } })
        ).data.id),
      (d) => expect(d.columns.at(-1)).toMatchObject({ id: experimentId, kind: 'EXPERIMENT', title: 'Lab' }),
    )
  })

  let labSubmissionId: string
  test('an experiment submission (experiment_submissions)', async () => {
    await expectShown(
      async () =>
        (labSubmissionId = (
          await w.api.post(`/experiments/${experimentId}/submissions`, {
            token: w.student2.token,
            form: formOf({ file: new File(['report'], 'report.txt', { type: 'text/plain' }) }),
          })
        ).data.id),
      (d) => expect(byName(d, 'Bob').experiments).toMatchObject([{ experimentId, submissionId: labSubmissionId, score: null, feedback: null }]),
    )
  })

  test('an experiment graded with feedback', async () => {
    await expectShown(
      () => w.api.patch(`/submissions/${labSubmissionId}/grade`, { token: w.teacher.token, json: { score: 88, feedback: 'Well measured.' } }),
      (d) => {
        expect(byName(d, 'Bob').experiments[0]).toMatchObject({ score: 88, feedback: 'Well measured.' })
        expect(byName(d, 'Bob').cells[experimentId]).toBe(88)
      },
    )
  })

  test('an experiment renamed', async () => {
    await expectShown(
      () => w.api.patch(`/courses/${w.course.id}/experiments/${experimentId}`, { token: w.teacher.token, json: { title: 'Lab 1' } }),
      (d) => expect(byName(d, 'Bob').experiments[0].title).toBe('Lab 1'),
    )
  })

  test('a student joins (course_members)', async () => {
    const carol = await signUp(w.api, 'STUDENT', 'Carol')
    await expectShown(
      () => addStudent(w.deps.sql, w.course.id, carol.id),
      (d) => expect(d.students.map((s: any) => s.displayName)).toEqual(['Alice', 'Bob', 'Carol']),
    )
  })

  test('a student renames themselves (names copied onto course_members)', async () => {
    await expectShown(
      () => w.api.patch('/auth/me', { token: w.student2.token, json: { displayName: 'Bobby' } }),
      (d) => expect(d.students.map((s: any) => s.displayName)).toEqual(['Alice', 'Bobby', 'Carol']),
    )
  })
})

describe('grade overview cache: what it answers', () => {
  test('a hit is byte for byte the body of a build without cache; pages are kept apart', async () => {
    const noCache = await testApp({ config: { gradebookCacheBytes: 0 } })
    for (const q of ['', '?page=1&pageSize=2', '?page=2&pageSize=2']) {
      const url = `/core/api/v1${path()}${q}`
      const get = (ctx: TestContext) => ctx.app.handle(new Request(`http://local${url}`, { headers: { authorization: `Bearer ${w.teacher.token}` } }))
      const built = await (await get(noCache)).text()
      const first = await get(w)
      const second = await get(w)
      expect(first.headers.get('content-type')).toBe('application/json;charset=utf-8')
      expect(await first.text()).toBe(built)
      expect(await second.text()).toBe(built)
    }
  })

  test('ETag and If-None-Match: 304 while unchanged, the new body after a change, the same tag on every instance', async () => {
    const get = (api: TestContext['api'], etag?: string) =>
      api.get(path(), { token: w.teacher.token, headers: etag ? { 'if-none-match': etag } : {} })
    const first = await get(w.api)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[0-9a-z]+"$/)
    expect(first.headers.get('cache-control')).toBe('private, no-cache')
    expect((await get(b.api)).headers.get('etag')).toBe(etag)
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const r = await get(w.api, header)
      expect(r.status).toBe(304)
      expect(r.headers.get('etag')).toBe(etag)
    }
    expect((await get(w.api, '"other"')).status).toBe(200)
    await w.api.patch(`${w.base}/tasks/${homework.id}`, { token: w.teacher.token, json: { title: 'Essay, final' } })
    const changed = await get(b.api, etag)
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    expect(changed.data.columns[0].title).toBe('Essay, final')
  })

  test('requests that miss together after a change wait for one build', async () => {
    const cache = new OverviewCache(1 << 20)
    let builds = 0
    // A slow build (as a 2,000-student course's is), so that the eight requests overlap.
    const slow = async () => void (builds++, await Bun.sleep(100)) // the scenario: a slow build
    const bodies = await Promise.all(Array.from({ length: 8 }, () => service.overviewBody(w.deps.sql, w.course.id, {}, w.deps.clock.now(), cache, slow)))
    expect(builds).toBe(1)
    expect(new Set(bodies.map((b) => b.etag)).size).toBe(1)
    // Nothing cached after a change: built again, once.
    await w.api.patch(`${w.base}/tasks/${homework.id}`, { token: w.teacher.token, json: { title: 'Essay, once more' } })
    const again = await Promise.all(Array.from({ length: 8 }, () => service.overviewBody(w.deps.sql, w.course.id, {}, w.deps.clock.now(), cache, slow)))
    expect(builds).toBe(2)
    expect(new TextDecoder().decode(again[7]!.body)).toContain('Essay, once more')
  })

  test('a change in another course leaves this course’s version alone', async () => {
    const v0 = await version()
    await addStudent(w.deps.sql, w.otherCourse.id, (await signUp(w.api, 'STUDENT', 'Elsewhere')).id)
    expect(await version()).toBe(v0)
  })

  test('401, 403, 404 and 400 come before the cache', async () => {
    expect((await w.api.get(path())).status).toBe(401)
    for (const who of [w.student, w.otherTeacher]) expect((await w.api.get(path(), { token: who.token })).code).toBe(40300)
    expect((await w.api.get(`/courses/01a20000-0000-7000-8000-000000000000/grades/overview`, { token: w.teacher.token })).status).toBe(404)
    expect((await w.api.get(`${path()}?pageSize=201`, { token: w.teacher.token })).status).toBe(400)
  })
})

describe('grade overview cache: one per app (issue 28)', () => {
  // The API is mounted under /api/v1 and /core/api/v1; the route function runs for each.
  const core = (p: string) => `//core/api/v1${p}`

  test('a build through /api/v1 is a hit through /core/api/v1 (and back)', async () => {
    const app = await testApp()
    const token = { token: w.teacher.token }
    expect((await app.api.get(path(), token)).status).toBe(200)
    const h0 = (await gradebookCacheCounts()).hit
    const r = await app.api.get(core(path()), token)
    expect([r.status, r.code]).toEqual([200, 0])
    expect((await gradebookCacheCounts()).hit).toBe(h0 + 1)
    expect(r.data).toEqual(await fresh())
    expect((await app.api.get(`${path()}?page=1&pageSize=1`, token)).status).toBe(200)
    const h1 = (await gradebookCacheCounts()).hit
    expect((await app.api.get(core(`${path()}?page=1&pageSize=1`), token)).status).toBe(200)
    expect((await gradebookCacheCounts()).hit).toBe(h1 + 1)
  })

  test('both prefixes share one GRADEBOOK_CACHE_MB: an entry made through one evicts through the other', async () => {
    const token = { token: w.teacher.token }
    const whole = path()
    const page = `${path()}?page=1&pageSize=1`
    const size = async (p: string) => new TextEncoder().encode(JSON.stringify((await w.api.get(p, token)).body)).byteLength
    const [sw, sp] = [await size(whole), await size(page)]
    // Room for either overview, not for both.
    const app = await testApp({ config: { gradebookCacheBytes: Math.max(sw, sp) + 16 } })
    expect(Math.max(sw, sp) + 16).toBeLessThan(sw + sp)
    expect((await app.api.get(whole, token)).status).toBe(200) // built, kept
    expect((await app.api.get(core(page), token)).status).toBe(200) // built, kept: the whole one goes
    const m0 = (await gradebookCacheCounts()).miss
    expect((await app.api.get(whole, token)).status).toBe(200)
    // With a cache per prefix, the whole overview would still be in /api/v1's (a hit).
    expect((await gradebookCacheCounts()).miss).toBe(m0 + 1)
  })
})

describe.skipIf(!usingExternalDb())('gradebook versions under concurrent writers (PostgreSQL)', () => {
  test('ten open transactions of one course raise its version without waiting for each other', async () => {
    const v0 = BigInt(await version())
    const conns = await Promise.all(Array.from({ length: 10 }, () => w.deps.sql.reserve()))
    try {
      for (const c of conns) {
        await c`begin`
        // A writer that had to wait for another's counter would fail here instead.
        await c`set local lock_timeout = '2s'`
        await c`select gradebook_versions_raise(array[${w.course.id}]::uuid[])`
      }
      for (const c of conns) await c`commit`
    } finally {
      for (const c of conns) c.release()
    }
    expect(BigInt(await version())).toBe(v0 + 10n)
  })
})

describe('OverviewCache', () => {
  const entry = (version: string, n: number) => ({ version, body: new Uint8Array(n), etag: `"${version}"`, after: -Infinity, until: Infinity })
  test('serves an entry only for its version', () => {
    const c = new OverviewCache(1000)
    c.set('a', entry('1', 10))
    expect(c.get('a', '1', 0)?.etag).toBe('"1"')
    expect(c.get('a', '2', 0)).toBeUndefined()
  })
  test('keeps within its bytes, dropping the least recently used first', () => {
    const c = new OverviewCache(100)
    c.set('a', entry('1', 40))
    c.set('b', entry('1', 40))
    c.get('a', '1', 0)
    c.set('c', entry('1', 40))
    expect([c.get('a', '1', 0), c.get('b', '1', 0), c.get('c', '1', 0)].map(Boolean)).toEqual([true, false, true])
    expect(c.size).toEqual({ entries: 2, bytes: 80 })
    c.set('a', entry('2', 30))
    expect(c.size).toEqual({ entries: 2, bytes: 70 })
    c.set('big', entry('1', 101))
    expect(c.get('big', '1', 0)).toBeUndefined()
  })
})
