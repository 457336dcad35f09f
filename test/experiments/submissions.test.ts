import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { appOn, BACKENDS, discardStorage, download, formOf, sampleBytes, serialised, storedFiles } from '../storage/helpers.ts'
import { ManualClock, signUp, testApp, type TestContext } from '../support/harness.ts'
import { NOT_A_UUID, UNKNOWN_ID, world, type World } from './world.ts'

let ctx: TestContext
let w: World
let experimentId: string
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const DUE = '2026-11-25T00:00:00.000Z'
const REPORT = sampleBytes(70_000)
const UNICODE_NAME = '实验报告 v2.pdf'

describe.each(BACKENDS)('%s storage', (backend) => {
// (not indented, to keep the diff against the single-backend version small)
beforeAll(async () => {
  clock.set('2026-11-22T08:00:00.000Z')
  ctx = await appOn(backend, { clock })
  w = await world(ctx, { students: 3 })
  const res = await ctx.api.post(`/courses/${w.course.id}/experiments`, {
    json: { title: 'Ohm', description: '<p>Measure</p>', dueAt: DUE },
    token: w.teacher.token,
  })
  experimentId = res.data.id
}, 60_000)
afterAll(async () => {
  await discardStorage(ctx.deps.storage)
}, 60_000)

const submit = (form: FormData, token: string, id = experimentId) => ctx.api.post(`/experiments/${id}/submissions`, { form, token })
const reportForm = (note?: string, bytes: Uint8Array<ArrayBuffer> = REPORT, name = UNICODE_NAME) =>
  formOf({ file: new File([bytes], name, { type: 'application/pdf' }), ...(note === undefined ? {} : { note }) })

describe('POST /experiments/{experimentId}/submissions', () => {
  test('a student submits a file with a note; the Unicode file name is kept', async () => {
    const s = w.students[0]!
    const before = (await storedFiles(ctx)).length
    const res = await submit(reportForm('  first try <b>not html</b>  '), s.token)
    expect(res.status).toBe(201)
    expect(res.code).toBe(0)
    expect(res.data).toEqual({
      id: expect.any(String),
      experimentId,
      student: { id: s.id, username: s.username, displayName: s.username },
      fileName: UNICODE_NAME,
      fileSize: REPORT.length,
      contentType: 'application/pdf',
      note: 'first try <b>not html</b>',
      late: false,
      submittedAt: '2026-11-22T08:00:00.000Z',
      score: null,
      feedback: null,
      gradedAt: null,
      rubricChoices: [],
      fileUrl: `/api/v1/submissions/${res.data.id}/file`,
      files: [{ position: 1, fileName: UNICODE_NAME, fileSize: REPORT.length, contentType: 'application/pdf', fileUrl: `/api/v1/submissions/${res.data.id}/file` }],
    })
    expect((await storedFiles(ctx)).length).toBe(before + 1)
  })

  test('at exactly dueAt a submission is on time; one millisecond later it is late (issue 17)', async () => {
    const s = await signUp(ctx.api, 'STUDENT')
    await ctx.deps.sql`insert into course_members (course_id, user_id) values (${w.course.id}, ${s.id})`
    clock.set(DUE)
    const onTime = await submit(reportForm('on the dot', sampleBytes(10, 1), 'a.txt'), s.token)
    clock.set(new Date(new Date(DUE).getTime() + 1).toISOString())
    const late = await submit(reportForm('just after', sampleBytes(10, 2), 'b.txt'), s.token)
    clock.set('2026-11-22T09:00:00.000Z')
    expect([onTime.status, onTime.data.late]).toEqual([201, false])
    expect([late.status, late.data.late]).toEqual([201, true])
  })

  test('every attempt is kept; one after dueAt is late; latest and the detail show the newest', async () => {
    const s = w.students[1]!
    const first = await submit(reportForm(), s.token)
    clock.set('2026-11-26T00:00:00.000Z')
    const second = await submit(reportForm('late one', sampleBytes(100, 3), 'v3.txt'), s.token)
    clock.set('2026-11-22T09:00:00.000Z')
    expect(first.data.late).toBe(false)
    expect(second.data.late).toBe(true)
    expect(second.data.note).toBe('late one')
    expect(first.data.note).toBeNull()

    const mine = await ctx.api.get(`/experiments/${experimentId}/submissions`, { token: s.token })
    expect(mine.status).toBe(200)
    expect(mine.data).toMatchObject({ total: 2, page: 1, pageSize: 50 })
    expect(mine.data.items.map((x: any) => x.id)).toEqual([second.data.id, first.data.id])

    const latest = await ctx.api.get(`/experiments/${experimentId}/submissions/latest`, { token: s.token })
    expect(latest.status).toBe(200)
    expect(latest.data).toEqual(second.data)

    const detail = await ctx.api.get(`/courses/${w.course.id}/experiments/${experimentId}`, { token: s.token })
    expect(detail.data.mySubmission).toEqual(second.data)
  })

  const refusals: [string, () => string, number, number][] = [
    ['no credentials', () => '', 401, 40100],
    ['the course teacher', () => w.teacher.token, 403, 40300],
    ['a teacher of another course', () => w.otherTeacher.token, 403, 40300],
    ['a student of another course', () => w.outsider.token, 403, 40300],
  ]
  test.each(refusals)('%s is refused and nothing is stored', async (_, token, status, code) => {
    const before = await storedFiles(ctx)
    const res = await submit(reportForm(), token())
    expect(res.status).toBe(status)
    expect(res.code).toBe(code)
    expect(await storedFiles(ctx)).toEqual(before)
  })

  const invalid: [string, () => FormData, string][] = [
    ['no file', () => formOf({ note: 'forgot it' }), 'file'],
    ['a text field named file', () => formOf({ file: 'not a file' }), 'file'],
    ['an untouched browser file input', () => formOf({ file: new File([], '') }), 'file'],
    ['a note over 2,000 characters', () => reportForm('x'.repeat(2001)), 'note'],
    ['a 200 KB note', () => reportForm('x'.repeat(200_000)), 'note'],
    ['an empty file', () => formOf({ file: new File([], 'empty.txt') }), 'file'],
  ]
  test.each(invalid)('400 for %s, and nothing is stored', async (_, form, field) => {
    const before = await storedFiles(ctx)
    const res = await submit(form(), w.students[2]!.token)
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
    expect(res.data.fields.map((f: any) => f.field)).toContain(field)
    expect(await storedFiles(ctx)).toEqual(before)
  })

  test('a JSON body is 415; a broken multipart body is 400', async () => {
    const json = await ctx.api.post(`/experiments/${experimentId}/submissions`, { json: { file: 'x' }, token: w.students[2]!.token })
    expect(json.status).toBe(415)
    expect(json.code).toBe(41500)
    const broken = await ctx.api.post(`/experiments/${experimentId}/submissions`, {
      raw: 'garbage',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      token: w.students[2]!.token,
    })
    expect(broken.status).toBe(400)
    expect(broken.code).toBe(40000)
  })

  test('unknown experiment → 404, non-UUID → 400', async () => {
    const unknown = await submit(reportForm(), w.students[2]!.token, UNKNOWN_ID)
    expect(unknown.status).toBe(404)
    expect(unknown.code).toBe(40406)
    expect((await submit(reportForm(), w.students[2]!.token, NOT_A_UUID)).status).toBe(400)
  })
})

describe('upload size limit', () => {
  const LIMIT = 8 * 1024
  let small: TestContext
  let sw: World
  let expId: string
  beforeAll(async () => {
    small = await appOn(backend, { clock, config: { maxUploadBytes: LIMIT } })
    sw = await world(small, { students: 1 })
    expId = (
      await small.api.post(`/courses/${sw.course.id}/experiments`, {
        json: { title: 'Small', description: '', dueAt: DUE },
        token: sw.teacher.token,
      })
    ).data.id
  }, 60_000)
  afterAll(async () => {
    await discardStorage(small.deps.storage)
  })
  const post = (init: { body: BodyInit; headers?: Record<string, string> }) =>
    small.app.handle(
      new Request(`http://localhost/api/v1/experiments/${expId}/submissions`, {
        method: 'POST',
        body: init.body,
        headers: { authorization: `Bearer ${sw.students[0]!.token}`, ...init.headers },
      }),
    )

  test('a file of exactly MAX_UPLOAD_BYTES is accepted', async () => {
    const res = await small.api.post(`/experiments/${expId}/submissions`, {
      form: formOf({ file: new File([sampleBytes(LIMIT)], 'max.bin') }),
      token: sw.students[0]!.token,
    })
    expect(res.status).toBe(201)
    expect(res.data.fileSize).toBe(LIMIT)
  })

  test('one byte more → 413 in the envelope, nothing stored (body without Content-Length)', async () => {
    const before = await storedFiles(small)
    const res = await small.api.post(`/experiments/${expId}/submissions`, {
      form: formOf({ file: new File([sampleBytes(LIMIT + 1)], 'big.bin') }),
      token: sw.students[0]!.token,
    })
    expect(res.status).toBe(413)
    expect(res.code).toBe(41300)
    expect(res.data).toEqual({ limitBytes: LIMIT })
    expect(await storedFiles(small)).toEqual(before)
  })

  test('a chunked body far over the limit is cut off while reading → 413, nothing stored', async () => {
    const before = await storedFiles(small)
    const { body, contentType } = await serialised(formOf({ file: new File([sampleBytes(500_000)], 'huge.bin') }))
    let sent = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= body.length) return c.close()
        c.enqueue(body.subarray(sent, sent + 16_384))
        sent += 16_384
      },
    })
    const res = await post({ body: stream, headers: { 'content-type': contentType } })
    expect(res.status).toBe(413)
    expect((await res.json()).code).toBe(41300)
    expect(sent).toBeLessThan(body.length)
    expect(await storedFiles(small)).toEqual(before)
  })

  test('a declared Content-Length over the limit → 413 before the body is read', async () => {
    let pulled = false
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          pulled = true
          c.enqueue(new Uint8Array(10))
          c.close()
        },
      },
      { highWaterMark: 0 },
    )
    const res = await post({
      body: stream,
      headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(LIMIT + 1024 * 1024) },
    })
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ code: 41300, data: { limitBytes: LIMIT } })
    expect(pulled).toBe(false)
  })

  test('a body with an honest Content-Length within the limit is accepted', async () => {
    const { body, contentType } = await serialised(formOf({ file: new File([sampleBytes(1000)], 'ok.bin') }))
    const res = await post({ body, headers: { 'content-type': contentType, 'content-length': String(body.length) } })
    expect(res.status).toBe(201)
  })

  test('a refused caller with an oversized upload gets the permission error and nothing is stored', async () => {
    const before = await storedFiles(small)
    const res = await small.api.post(`/experiments/${expId}/submissions`, {
      form: formOf({ file: new File([sampleBytes(LIMIT * 4)], 'big.bin') }),
      token: sw.teacher.token,
    })
    expect(res.status).toBe(403)
    expect(await storedFiles(small)).toEqual(before)
  })
})

describe('GET submissions (list, latest)', () => {
  test('the teacher sees every submission, newest first, paginated', async () => {
    const all = await ctx.api.get(`/experiments/${experimentId}/submissions`, { token: w.teacher.token })
    expect(all.status).toBe(200)
    const students = new Set(all.data.items.map((x: any) => x.student.id))
    expect(students.has(w.students[0]!.id)).toBe(true)
    expect(students.has(w.students[1]!.id)).toBe(true)
    const times = all.data.items.map((x: any) => x.submittedAt)
    expect([...times].sort().reverse()).toEqual(times)
    const page1 = await ctx.api.get(`/experiments/${experimentId}/submissions?page=1&pageSize=1`, { token: w.teacher.token })
    const page2 = await ctx.api.get(`/experiments/${experimentId}/submissions?page=2&pageSize=1`, { token: w.teacher.token })
    expect(page1.data.total).toBe(all.data.total)
    expect(page1.data.items).toHaveLength(1)
    expect(page2.data.items[0].id).toBe(all.data.items[1].id)
  })

  test('a student sees only their own; without submissions the list is empty and latest is null', async () => {
    const own = await ctx.api.get(`/experiments/${experimentId}/submissions`, { token: w.students[0]!.token })
    expect(own.data.items.every((x: any) => x.student.id === w.students[0]!.id)).toBe(true)
    const none = await ctx.api.get(`/experiments/${experimentId}/submissions`, { token: w.students[2]!.token })
    expect(none.data).toEqual({ items: [], total: 0, page: 1, pageSize: 50 })
    const latest = await ctx.api.get(`/experiments/${experimentId}/submissions/latest`, { token: w.students[2]!.token })
    expect(latest.status).toBe(200)
    expect(latest.code).toBe(0)
    expect(latest.data).toBeNull()
  })

  const cases: [string, string, () => string, number][] = [
    ['list: no credentials', 'submissions', () => '', 401],
    ['list: a non-member', 'submissions', () => w.outsider.token, 403],
    ['list: pageSize 0', 'submissions?pageSize=0', () => w.teacher.token, 400],
    ['list: pageSize 500', 'submissions?pageSize=500', () => w.teacher.token, 400],
    ['list: page abc', 'submissions?page=abc', () => w.teacher.token, 400],
    ['latest: no credentials', 'submissions/latest', () => '', 401],
    ['latest: a non-member', 'submissions/latest', () => w.otherTeacher.token, 403],
  ]
  test.each(cases)('%s → %i', async (_, suffix, token, status) => {
    expect((await ctx.api.get(`/experiments/${experimentId}/${suffix}`, { token: token() })).status).toBe(status)
  })

  test('unknown or malformed experiment ids', async () => {
    for (const suffix of ['submissions', 'submissions/latest']) {
      const unknown = await ctx.api.get(`/experiments/${UNKNOWN_ID}/${suffix}`, { token: w.teacher.token })
      expect(unknown.status).toBe(404)
      expect(unknown.code).toBe(40406)
      expect((await ctx.api.get(`/experiments/${NOT_A_UUID}/${suffix}`, { token: w.teacher.token })).status).toBe(400)
    }
  })
})

describe('GET /submissions/{submissionId}/file', () => {
  let id: string
  let path: string
  beforeAll(async () => {
    id = (await submit(reportForm(), w.students[0]!.token)).data.id
    path = `/submissions/${id}/file`
  }, 60_000)

  test('the submitting student and the teacher download the exact bytes with safe headers', async () => {
    for (const token of [w.students[0]!.token, w.teacher.token]) {
      const res = await download(ctx, path, token)
      expect(res.status).toBe(200)
      expect(res.bytes).toEqual(REPORT)
      expect(res.headers.get('content-type')).toBe('application/pdf')
      expect(res.headers.get('content-length')).toBe(String(REPORT.length))
      expect(res.headers.get('accept-ranges')).toBe('bytes')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="_ v2.pdf"; filename*=UTF-8''${encodeURIComponent(UNICODE_NAME)}`,
      )
    }
  })

  test('also under /core/api/v1', async () => {
    const res = await ctx.app.handle(
      new Request(`http://localhost/core/api/v1${path}`, { headers: { authorization: `Bearer ${w.teacher.token}` } }),
    )
    expect(res.status).toBe(200)
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(REPORT)
  })

  const size = REPORT.length
  const ranges: [string, string, number, number][] = [
    ['the first bytes', 'bytes=0-99', 0, 99],
    ['a suffix', 'bytes=-500', size - 500, size - 1],
    ['an open end', `bytes=${size - 1000}-`, size - 1000, size - 1],
    ['a range past the end (clamped)', `bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
  ]
  test.each(ranges)('Range: %s → 206 with exactly those bytes', async (_, header, start, end) => {
    const res = await download(ctx, path, w.students[0]!.token, { range: header })
    expect(res.status).toBe(206)
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${size}`)
    expect(res.headers.get('content-length')).toBe(String(end - start + 1))
    expect(res.bytes).toEqual(REPORT.slice(start, end + 1))
  })

  test('an unsatisfiable range → 416 in the envelope with Content-Range */size', async () => {
    const res = await download(ctx, path, w.teacher.token, { range: `bytes=${size}-` })
    expect(res.status).toBe(416)
    expect(res.json).toMatchObject({ code: 41600, data: { size } })
    expect(res.headers.get('content-range')).toBe(`bytes */${size}`)
  })

  test('a malformed or multi-part Range is ignored: the whole file', async () => {
    for (const range of ['bytes=9-1', 'bytes=0-1,5-9', 'lines=1-2']) {
      const res = await download(ctx, path, w.teacher.token, { range })
      expect(res.status).toBe(200)
      expect(res.bytes).toEqual(REPORT)
    }
  })

  const refusals: [string, () => string, () => string, number][] = [
    ['no credentials', () => path, () => '', 401],
    ['another student of the course', () => path, () => w.students[1]!.token, 403],
    ['a student of another course', () => path, () => w.outsider.token, 403],
    ['a teacher of another course', () => path, () => w.otherTeacher.token, 403],
    ['an unknown submission', () => `/submissions/${UNKNOWN_ID}/file`, () => w.teacher.token, 404],
    ['a non-UUID id', () => `/submissions/${NOT_A_UUID}/file`, () => w.teacher.token, 400],
  ]
  test.each(refusals)('%s → %i', async (_, p, token, status) => {
    const res = await download(ctx, p(), token())
    expect(res.status).toBe(status)
    expect(res.json.code).toBeGreaterThan(0)
  })
})

describe('PATCH /submissions/{submissionId}/grade', () => {
  let id: string
  beforeAll(async () => {
    id = (await submit(reportForm('grade me'), w.students[2]!.token)).data.id
  }, 60_000)
  const grade = (json: unknown, token = w.teacher.token, submissionId = id) =>
    ctx.api.patch(`/submissions/${submissionId}/grade`, { json, token })

  test('the teacher grades with sanitised feedback; the student is notified', async () => {
    clock.set('2026-11-23T10:00:00.000Z')
    const res = await grade({ score: 88.5, feedback: '<p>Good <strong>work</strong><script>x</script></p>' })
    expect(res.status).toBe(200)
    expect(res.data).toMatchObject({
      id,
      experimentId,
      student: { id: w.students[2]!.id },
      score: 88.5,
      feedback: '<p>Good <strong>work</strong></p>',
      gradedAt: '2026-11-23T10:00:00.000Z',
      note: 'grade me',
    })
    const notes = await ctx.deps.sql<{ notification_type: string; action_path: string; params: { score: number; subject: string } }[]>`
      select notification_type, action_path, params from notifications where user_id = ${w.students[2]!.id}`
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatchObject({
      notification_type: 'SUBMISSION_GRADED',
      action_path: `/experiments/${experimentId}?courseId=${w.course.id}`,
    })
    // Stored as params (no wording in the row, issue 28); the inbox renders the text.
    expect(notes[0]!.params).toMatchObject({ subject: 'EXPERIMENT', score: 88.5 })
    const inbox = await ctx.api.get('/notifications', { token: w.students[2]!.token })
    expect(inbox.data.items[0].content).toContain('88.5')

    const latest = await ctx.api.get(`/experiments/${experimentId}/submissions/latest`, { token: w.students[2]!.token })
    expect(latest.data.score).toBe(88.5)
  })

  test('grading again overwrites; omitted feedback is kept, null clears it', async () => {
    const again = await grade({ score: 100 })
    expect(again.data).toMatchObject({ score: 100, feedback: '<p>Good <strong>work</strong></p>' })
    const cleared = await grade({ score: 0, feedback: null })
    expect(cleared.data).toMatchObject({ score: 0, feedback: null })
  })

  const refusals: [string, () => unknown, () => string, () => string, number][] = [
    ['no credentials', () => ({ score: 50 }), () => '', () => id, 401],
    ['the submitting student', () => ({ score: 100 }), () => w.students[2]!.token, () => id, 403],
    ['a teacher of another course', () => ({ score: 50 }), () => w.otherTeacher.token, () => id, 403],
    ['score below 0', () => ({ score: -1 }), () => w.teacher.token, () => id, 400],
    ['score above 100', () => ({ score: 100.5 }), () => w.teacher.token, () => id, 400],
    ['score as a string', () => ({ score: '90' }), () => w.teacher.token, () => id, 400],
    ['no score', () => ({ feedback: 'hi' }), () => w.teacher.token, () => id, 400],
    ['200 KB feedback', () => ({ score: 1, feedback: 'x'.repeat(200_000) }), () => w.teacher.token, () => id, 400],
    ['an unknown submission', () => ({ score: 50 }), () => w.teacher.token, () => UNKNOWN_ID, 404],
    ['a non-UUID id', () => ({ score: 50 }), () => w.teacher.token, () => NOT_A_UUID, 400],
  ]
  test.each(refusals)('%s → %i', async (_, body, token, submissionId, status) => {
    const res = await grade(body(), token(), submissionId())
    expect(res.status).toBe(status)
    expect(res.code).toBeGreaterThan(0)
  })

  test('a newly registered teacher who teaches nothing cannot grade', async () => {
    const t = await signUp(ctx.api, 'TEACHER')
    expect((await grade({ score: 1 }, t.token)).status).toBe(403)
  })
})
})
