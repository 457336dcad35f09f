import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { newId } from '../../src/lib/ids.ts'
import { NOT_A_UUID, UNKNOWN_ID, world, type World } from '../experiments/world.ts'
import { appOn, BACKENDS, discardStorage, download, formOf, sampleBytes, storedFiles } from '../storage/helpers.ts'
import { insertPoint } from '../support/fixtures.ts'
import { ManualClock, testApp, type TestContext } from '../support/harness.ts'

let ctx: TestContext
let w: World
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const VIDEO = sampleBytes(200_000, 11)

describe.each(BACKENDS)('%s storage', (backend) => {
// (not indented, to keep the diff against the single-backend version small)
beforeAll(async () => {
  clock.set('2026-11-22T08:00:00.000Z')
  ctx = await appOn(backend, { clock })
  w = await world(ctx, { students: 1 })
}, 60_000)
afterAll(async () => {
  await discardStorage(ctx.deps.storage)
}, 60_000)

const upload = (fields: Record<string, string | Blob>, token = w.teacher.token, courseId = w.course.id) =>
  ctx.api.post(`/courses/${courseId}/resources`, { form: formOf(fields), token })
const fileFields = (name = '第一章 讲义.mp4') => ({
  name: 'Lecture 1',
  type: 'FILE',
  category: 'Lectures',
  file: new File([VIDEO], name, { type: 'video/mp4' }),
})

describe('POST /courses/{courseId}/resources', () => {
  test('a FILE resource: stored under a generated key, Unicode name kept as metadata', async () => {
    const before = (await storedFiles(ctx)).length
    const res = await upload(fileFields())
    expect(res.status).toBe(201)
    expect(res.code).toBe(0)
    expect(res.data).toEqual({
      id: expect.any(String),
      courseId: w.course.id,
      name: 'Lecture 1',
      type: 'FILE',
      category: 'Lectures',
      externalUrl: null,
      fileName: '第一章 讲义.mp4',
      fileSize: VIDEO.length,
      contentType: 'video/mp4',
      fileUrl: `/api/v1/resources/${res.data.id}/file`,
      createdAt: '2026-11-22T08:00:00.000Z',
    })
    const files = await storedFiles(ctx)
    expect(files.length).toBe(before + 1)
    expect(files.some((f) => f.includes('讲义'))).toBe(false)
  })

  test.each([
    ['VIDEO', 'https://videos.example.com/watch?v=42', 'https://videos.example.com/watch?v=42'],
    ['LINK', 'HTTP://Example.COM/a b', 'http://example.com/a%20b'],
  ])('a %s resource with an http(s) externalUrl (stored normalised)', async (type, url, stored) => {
    const res = await upload({ name: `${type} res`, type, externalUrl: url })
    expect(res.status).toBe(201)
    expect(res.data).toMatchObject({ type, externalUrl: stored, category: null, fileName: null, fileSize: null, fileUrl: null })
  })

  const badUrls = ['javascript:alert(1)', 'data:text/html,<script>x</script>', 'ftp://files.example.com/a', 'file:///etc/passwd', 'mailto:a@b.c', '//example.com/x', 'not a url', 'https://user:secret@example.com/', `https://example.com/${'x'.repeat(3000)}`]
  test.each(badUrls)('externalUrl %p → 400', async (url) => {
    const res = await upload({ name: 'Bad', type: 'LINK', externalUrl: url })
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
    expect(res.data.fields.map((f: any) => f.field)).toContain('externalUrl')
  })

  const invalid: [string, () => Record<string, string | Blob>, string][] = [
    ['FILE without a file', () => ({ name: 'x', type: 'FILE' }), 'file'],
    ['FILE with an externalUrl too', () => ({ ...fileFields(), externalUrl: 'https://example.com' }), 'externalUrl'],
    ['LINK without externalUrl', () => ({ name: 'x', type: 'LINK' }), 'externalUrl'],
    ['LINK with a file', () => ({ name: 'x', type: 'LINK', externalUrl: 'https://example.com', file: new File(['abc'], 'a.txt') }), 'file'],
    ['VIDEO with a file instead of a URL', () => ({ name: 'x', type: 'VIDEO', file: new File(['abc'], 'a.mp4') }), 'externalUrl'],
    ['an unknown type', () => ({ name: 'x', type: 'PDF', file: new File(['abc'], 'a.pdf') }), 'type'],
    ['a lower-case type', () => ({ name: 'x', type: 'link', externalUrl: 'https://example.com' }), 'type'],
    ['no name', () => ({ type: 'LINK', externalUrl: 'https://example.com' }), 'name'],
    ['a 200 KB name', () => ({ name: 'n'.repeat(200_000), type: 'LINK', externalUrl: 'https://example.com' }), 'name'],
    ['a 200 KB category', () => ({ name: 'x', type: 'LINK', category: 'c'.repeat(200_000), externalUrl: 'https://example.com' }), 'category'],
    ['an empty file', () => ({ name: 'x', type: 'FILE', file: new File([], 'empty.bin') }), 'file'],
  ]
  test.each(invalid)('400 for %s, nothing stored', async (_, fields, field) => {
    const before = await storedFiles(ctx)
    const res = await upload(fields())
    expect(res.status).toBe(400)
    expect(res.code).toBe(40001)
    expect(res.data.fields.map((f: any) => f.field)).toContain(field)
    expect(await storedFiles(ctx)).toEqual(before)
  })

  const refusals: [string, () => string, () => string, number][] = [
    ['no credentials', () => '', () => w.course.id, 401],
    ['a student of the course', () => w.students[0]!.token, () => w.course.id, 403],
    ['a teacher of another course', () => w.otherTeacher.token, () => w.course.id, 403],
    ['an outsider student', () => w.outsider.token, () => w.course.id, 403],
    ['an unknown course', () => w.teacher.token, () => UNKNOWN_ID, 404],
    ['a non-UUID course id', () => w.teacher.token, () => NOT_A_UUID, 400],
  ]
  test.each(refusals)('%s → %i, and the upload is not stored', async (_, token, courseId, status) => {
    const before = await storedFiles(ctx)
    const res = await upload(fileFields(), token(), courseId())
    expect(res.status).toBe(status)
    expect(res.code).toBeGreaterThan(0)
    expect(await storedFiles(ctx)).toEqual(before)
  })

  test('a file over MAX_UPLOAD_BYTES → 413, nothing stored', async () => {
    const small = await appOn(backend, { clock, config: { maxUploadBytes: 4096 } })
    const sw = await world(small, { students: 0 })
    const res = await small.api.post(`/courses/${sw.course.id}/resources`, {
      form: formOf({ name: 'Big', type: 'FILE', file: new File([sampleBytes(4097)], 'big.bin') }),
      token: sw.teacher.token,
    })
    expect(res.status).toBe(413)
    expect(res.code).toBe(41300)
    expect(await storedFiles(small)).toEqual([])
    await discardStorage(small.deps.storage)
  })

  test('a JSON body → 415', async () => {
    const res = await ctx.api.post(`/courses/${w.course.id}/resources`, {
      json: { name: 'x', type: 'LINK', externalUrl: 'https://example.com' },
      token: w.teacher.token,
    })
    expect(res.status).toBe(415)
  })
})

describe('GET /courses/{courseId}/resources', () => {
  let courseId: string
  let lw: World
  const ids: Record<string, string> = {}
  beforeAll(async () => {
    lw = await world(ctx, { students: 1 })
    courseId = lw.course.id
    const add = async (key: string, fields: Record<string, string | Blob>) => {
      clock.advance(1000)
      const res = await upload(fields, lw.teacher.token, courseId)
      expect(res.status).toBe(201)
      ids[key] = res.data.id
    }
    await add('slides', { name: 'Slides', type: 'FILE', category: 'Lectures', file: new File(['pdf'], 's.pdf') })
    await add('video', { name: 'Recording', type: 'VIDEO', category: 'Lectures', externalUrl: 'https://v.example.com/1' })
    await add('link', { name: 'Docs', type: 'LINK', category: 'Reading', externalUrl: 'https://docs.example.com' })
    await add('nocat', { name: 'Misc', type: 'LINK', externalUrl: 'https://misc.example.com' })
  }, 60_000)
  const list = (query = '', token = lw.students[0]!.token) => ctx.api.get(`/courses/${courseId}/resources${query}`, { token })

  test('members see the resources newest first', async () => {
    for (const token of [lw.teacher.token, lw.students[0]!.token]) {
      const res = await list('', token)
      expect(res.status).toBe(200)
      expect(res.data).toMatchObject({ total: 4, page: 1, pageSize: 50 })
      expect(res.data.items.map((r: any) => r.id)).toEqual([ids.nocat, ids.link, ids.video, ids.slides])
    }
  })

  test.each([
    ['?type=FILE', ['slides']],
    ['?type=LINK', ['nocat', 'link']],
    ['?category=Lectures', ['video', 'slides']],
    ['?type=VIDEO&category=Lectures', ['video']],
    ['?category=Nothing', []],
    ['?category=', ['nocat', 'link', 'video', 'slides']],
  ])('filter %s', async (query, expected) => {
    const res = await list(query)
    expect(res.status).toBe(200)
    expect(res.data.items.map((r: any) => r.id)).toEqual(expected.map((k) => ids[k]))
    expect(res.data.total).toBe(expected.length)
  })

  test('pagination', async () => {
    const res = await list('?page=2&pageSize=3')
    expect(res.data).toMatchObject({ total: 4, page: 2, pageSize: 3 })
    expect(res.data.items.map((r: any) => r.id)).toEqual([ids.slides])
  })

  test.each([
    ['no credentials', '', () => '', 401],
    ['a non-member', '', () => w.outsider.token, 403],
    ['an unknown type', '?type=PDF', () => lw.teacher.token, 400],
    ['pageSize 201', '?pageSize=201', () => lw.teacher.token, 400],
    ['a 200 KB category', `?category=${'c'.repeat(200_000)}`, () => lw.teacher.token, 400],
  ] as [string, string, () => string, number][])('%s → %i', async (_, query, token, status) => {
    expect((await list(query, token())).status).toBe(status)
  })

  test('unknown course → 404, non-UUID → 400', async () => {
    expect((await ctx.api.get(`/courses/${UNKNOWN_ID}/resources`, { token: w.teacher.token })).status).toBe(404)
    expect((await ctx.api.get(`/courses/${NOT_A_UUID}/resources`, { token: w.teacher.token })).status).toBe(400)
  })
})

describe('GET /resources/{resourceId}/file', () => {
  let fileId: string
  let linkId: string
  beforeAll(async () => {
    fileId = (await upload(fileFields('第一章 讲义.mp4'))).data.id
    linkId = (await upload({ name: 'L', type: 'LINK', externalUrl: 'https://example.com' })).data.id
  }, 60_000)

  test('members download the exact bytes, with the stored type and the Unicode name', async () => {
    for (const token of [w.teacher.token, w.students[0]!.token]) {
      const res = await download(ctx, `/resources/${fileId}/file`, token)
      expect(res.status).toBe(200)
      expect(res.bytes).toEqual(VIDEO)
      expect(res.headers.get('content-type')).toBe('video/mp4')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
      expect(res.headers.get('accept-ranges')).toBe('bytes')
      expect(res.headers.get('content-length')).toBe(String(VIDEO.length))
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="_ _.mp4"; filename*=UTF-8''${encodeURIComponent('第一章 讲义.mp4')}`,
      )
    }
  })

  test('a video player seeks with ranges', async () => {
    const first = await download(ctx, `/resources/${fileId}/file`, w.students[0]!.token, { range: 'bytes=0-1' })
    expect(first.status).toBe(206)
    expect(first.bytes).toEqual(VIDEO.slice(0, 2))
    const middle = await download(ctx, `/resources/${fileId}/file`, w.students[0]!.token, { range: 'bytes=100000-' })
    expect(middle.status).toBe(206)
    expect(middle.headers.get('content-range')).toBe(`bytes 100000-${VIDEO.length - 1}/${VIDEO.length}`)
    expect(middle.bytes).toEqual(VIDEO.slice(100_000))
    const tail = await download(ctx, `/resources/${fileId}/file`, w.students[0]!.token, { range: 'bytes=-16' })
    expect(tail.bytes).toEqual(VIDEO.slice(-16))
    const beyond = await download(ctx, `/resources/${fileId}/file`, w.students[0]!.token, { range: 'bytes=999999999-' })
    expect(beyond.status).toBe(416)
    expect(beyond.json.code).toBe(41600)
  })

  const refusals: [string, () => string, () => string, number, number][] = [
    ['no credentials', () => fileId, () => '', 401, 40100],
    ['a non-member student', () => fileId, () => w.outsider.token, 403, 40300],
    ['a teacher of another course', () => fileId, () => w.otherTeacher.token, 403, 40300],
    ['a LINK resource (no file)', () => linkId, () => w.students[0]!.token, 404, 40407],
    ['an unknown resource', () => UNKNOWN_ID, () => w.teacher.token, 404, 40407],
    ['a non-UUID id', () => NOT_A_UUID, () => w.teacher.token, 400, 40001],
  ]
  test.each(refusals)('%s → %i', async (_, id, token, status, code) => {
    const res = await download(ctx, `/resources/${id()}/file`, token())
    expect(res.status).toBe(status)
    expect(res.json.code).toBe(code)
  })
})

describe('DELETE /courses/{courseId}/resources/{resourceId}', () => {
  const del = (id: string, token = w.teacher.token, courseId = w.course.id) =>
    ctx.api.del(`/courses/${courseId}/resources/${id}`, { token })

  test('the teacher deletes a FILE resource and its stored file', async () => {
    const res = await upload(fileFields('to-delete.bin'))
    const id = res.data.id
    const before = await storedFiles(ctx)
    const deleted = await del(id)
    expect(deleted.status).toBe(200)
    expect(deleted.data).toEqual({ id })
    const after = await storedFiles(ctx)
    expect(after.length).toBe(before.length - 1)
    expect((await download(ctx, `/resources/${id}/file`, w.teacher.token)).status).toBe(404)
    const list = await ctx.api.get(`/courses/${w.course.id}/resources?pageSize=200`, { token: w.teacher.token })
    expect(list.data.items.some((r: any) => r.id === id)).toBe(false)
    expect((await del(id)).status).toBe(404)
  })

  test('a LINK resource is deleted too', async () => {
    const id = (await upload({ name: 'L', type: 'LINK', externalUrl: 'https://example.com' })).data.id
    expect((await del(id)).status).toBe(200)
  })

  test('a resource still used by a learning task → 409 and nothing is removed', async () => {
    const id = (await upload(fileFields('used.pdf'))).data.id
    const { pointId } = await insertPoint(ctx.deps.sql, w.course.id)
    await ctx.deps.sql`
      insert into learning_tasks (id, point_id, course_id, title, task_kind, task_type, material_type, resource_id, sort_order)
      values (${newId()}, ${pointId}, ${w.course.id}, 'Read it', 'LEARNING', 'MEDIA', 'FILE', ${id}, 1)`
    const before = await storedFiles(ctx)
    const res = await del(id)
    expect(res.status).toBe(409)
    expect(res.code).toBe(40900)
    expect(await storedFiles(ctx)).toEqual(before)
    expect((await download(ctx, `/resources/${id}/file`, w.teacher.token)).status).toBe(200)
  })

  test('permissions and ids that do not belong together', async () => {
    const id = (await upload({ name: 'Keep', type: 'LINK', externalUrl: 'https://example.com' })).data.id
    const foreign = await ctx.api.post(`/courses/${w.otherCourse.id}/resources`, {
      form: formOf({ name: 'Other', type: 'LINK', externalUrl: 'https://example.com' }),
      token: w.otherTeacher.token,
    })
    const cases: [string, number, number][] = [
      ['', 401, 40100],
      [w.students[0]!.token, 403, 40300],
      [w.otherTeacher.token, 403, 40300],
    ]
    for (const [token, status, code] of cases) {
      const res = await del(id, token)
      expect(res.status).toBe(status)
      expect(res.code).toBe(code)
    }
    const crossed = await del(foreign.data.id)
    expect(crossed.status).toBe(404)
    expect(crossed.code).toBe(40407)
    expect((await del(UNKNOWN_ID)).status).toBe(404)
    expect((await del(NOT_A_UUID)).status).toBe(400)
    expect((await del(id, w.teacher.token, UNKNOWN_ID)).status).toBe(404)
    // still there
    const list = await ctx.api.get(`/courses/${w.course.id}/resources?type=LINK&pageSize=200`, { token: w.teacher.token })
    expect(list.data.items.some((r: any) => r.id === id)).toBe(true)
  })
})
})
