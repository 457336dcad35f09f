import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { appOn, BACKENDS, discardStorage, download, sampleBytes, storedFiles } from '../storage/helpers.ts'
import { ManualClock, type TestContext } from '../support/harness.ts'
import { NOT_A_UUID, UNKNOWN_ID, world, type World } from './world.ts'

/**
 * Issue 29.7: a submission takes one or more files (photos from a phone included) through the
 * same streamed upload, limits, previews and storage; the single-file form is unchanged.
 */
let ctx: TestContext
let w: World
let experimentId: string
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const PHOTO = sampleBytes(40_000, 3)
const PDF = sampleBytes(20_000, 5)

describe.each(BACKENDS)('%s storage', (backend) => {
  beforeAll(async () => {
    ctx = await appOn(backend, { clock, config: { maxUploadBytes: 200_000 } })
    w = await world(ctx, { students: 2 })
    const res = await ctx.api.post(`/courses/${w.course.id}/experiments`, {
      json: { title: 'Ohm', description: '<p>Measure</p>', dueAt: '2026-11-25T00:00:00.000Z' },
      token: w.teacher.token,
    })
    experimentId = res.data.id
  }, 60_000)
  afterAll(async () => {
    await discardStorage(ctx.deps.storage)
  }, 60_000)

  const form = (parts: [string, string | Blob, string?][]) => {
    const f = new FormData()
    for (const [k, v, name] of parts) typeof v === 'string' ? f.append(k, v) : f.append(k, v, name)
    return f
  }
  const photo = (name = 'IMG_0001.jpg') => new File([PHOTO], name, { type: 'image/jpeg' })
  const submit = (f: FormData, token: string, id = experimentId) => ctx.api.post(`/experiments/${id}/submissions`, { form: f, token })

  test('several `files` parts (two phone photos and a PDF) make one submission; each file downloads, photos preview inline', async () => {
    const s = w.students[0]!
    const before = (await storedFiles(ctx)).length
    const res = await submit(
      form([
        ['files', photo('IMG_0001.jpg'), 'IMG_0001.jpg'],
        ['files', photo('IMG_0002.jpg'), 'IMG_0002.jpg'],
        ['files', new File([PDF], 'notes.pdf', { type: 'application/pdf' }), 'notes.pdf'],
        ['note', 'three pages'],
      ]),
      s.token,
    )
    expect([res.status, res.code]).toEqual([201, 0])
    expect(res.data.fileName).toBe('IMG_0001.jpg')
    expect(res.data.files.map((f: any) => [f.position, f.fileName, f.fileSize, f.contentType])).toEqual([
      [1, 'IMG_0001.jpg', PHOTO.length, 'image/jpeg'],
      [2, 'IMG_0002.jpg', PHOTO.length, 'image/jpeg'],
      [3, 'notes.pdf', PDF.length, 'application/pdf'],
    ])
    expect((await storedFiles(ctx)).length).toBe(before + 3)

    const second = await download(ctx, `${res.data.files[1].fileUrl.replace('/api/v1', '')}&inline=1`, s.token)
    expect(second.status).toBe(200)
    expect(second.headers.get('content-disposition')).toStartWith('inline')
    expect(second.bytes).toEqual(PHOTO)
    const third = await download(ctx, res.data.files[2].fileUrl.replace('/api/v1', ''), w.teacher.token)
    expect([third.status, third.bytes.byteLength]).toEqual([200, PDF.length])
    expect(third.headers.get('content-disposition')).toStartWith('attachment')

    // The list and the latest submission carry the files too.
    const latest = await ctx.api.get(`/experiments/${experimentId}/submissions/latest`, { token: s.token })
    expect(latest.data.files.length).toBe(3)
    const list = await ctx.api.get(`/experiments/${experimentId}/submissions`, { token: w.teacher.token })
    expect(list.data.items.find((i: any) => i.id === res.data.id).files.length).toBe(3)
  })

  test('the single-file form is unchanged; `file` and `files` together are one submission', async () => {
    const s = w.students[1]!
    const one = await submit(form([['file', photo('one.jpg'), 'one.jpg']]), s.token)
    expect([one.status, one.data.files.length, one.data.fileUrl]).toEqual([201, 1, `/api/v1/submissions/${one.data.id}/file`])
    const both = await submit(form([['file', photo('a.jpg'), 'a.jpg'], ['files', photo('b.jpg'), 'b.jpg']]), s.token)
    expect(both.data.files.map((f: any) => f.fileName)).toEqual(['a.jpg', 'b.jpg'])
  })

  test('400 without any file, for an empty file among several, past 10 files; 413 over the body limit; nothing kept', async () => {
    const s = w.students[0]!
    const before = (await storedFiles(ctx)).length
    const none = await submit(form([['note', 'no file']]), s.token)
    expect([none.status, none.code, none.data.fields[0].field]).toEqual([400, 40001, 'file'])
    const empty = await submit(form([['files', photo(), 'a.jpg'], ['files', new File([], 'empty.jpg', { type: 'image/jpeg' }), 'empty.jpg']]), s.token)
    expect([empty.status, empty.code]).toEqual([400, 40001])
    const tiny = new File([new Uint8Array(10)], 'x.jpg', { type: 'image/jpeg' })
    const many = await submit(form(Array.from({ length: 11 }, (_, i) => ['files', tiny, `p${i}.jpg`] as [string, Blob, string])), s.token)
    expect([many.status, many.code, many.data.fields[0].field]).toEqual([400, 40001, 'files'])
    const big = await submit(form(Array.from({ length: 8 }, (_, i) => ['files', photo(), `big${i}.jpg`] as [string, Blob, string])), s.token)
    expect([big.status, big.code]).toEqual([413, 41300])
    expect((await storedFiles(ctx)).length).toBe(before)
  })

  test('401 anonymous, 403 for the teacher and for another student\'s file, 404 unknown ids and positions, 400 bad position', async () => {
    const s = w.students[0]!
    const anon = await ctx.api.post(`/experiments/${experimentId}/submissions`, { form: form([['files', photo(), 'a.jpg']]) })
    expect([anon.status, anon.code]).toEqual([401, 40100])
    const teacher = await submit(form([['files', photo(), 'a.jpg']]), w.teacher.token)
    expect([teacher.status, teacher.code]).toEqual([403, 40300])
    const unknown = await submit(form([['files', photo(), 'a.jpg']]), s.token, UNKNOWN_ID)
    expect([unknown.status, unknown.code]).toEqual([404, 40406])

    const mine = (await ctx.api.get(`/experiments/${experimentId}/submissions/latest`, { token: s.token })).data
    const other = await ctx.api.get(`/submissions/${mine.id}/file?position=2`, { token: w.students[1]!.token })
    expect([other.status, other.code]).toEqual([403, 40300])
    const missing = await ctx.api.get(`/submissions/${mine.id}/file?position=9`, { token: s.token })
    expect([missing.status, missing.code]).toEqual([404, 40400])
    const bad = await ctx.api.get(`/submissions/${mine.id}/file?position=zero`, { token: s.token })
    expect([bad.status, bad.code]).toEqual([400, 40001])
    const noSub = await ctx.api.get(`/submissions/${UNKNOWN_ID}/file?position=2`, { token: s.token })
    expect([noSub.status, noSub.code]).toEqual([404, 40405])
    const badId = await ctx.api.get(`/submissions/${NOT_A_UUID}/file?position=2`, { token: s.token })
    expect(badId.status).toBe(400)
  })
})
