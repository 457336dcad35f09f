import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { BACKENDS, discardStorage, download, sampleBytes, storageFor, storedFiles } from '../storage/helpers.ts'
import { ManualClock, testApp } from '../support/harness.ts'
import { choice, createTask, NOT_A_UUID, pointIn, textTask, world, type World } from '../learning/helpers.ts'

/**
 * Issue 29.7: homework takes files. A learning-task submission may be multipart/form-data: the
 * answer (`content`, or `answers` as JSON for a quiz) and one to ten `files` parts (photos from a
 * phone included), through the same streamed upload, limits, previews and storage as experiment
 * submissions. The JSON hand-in is unchanged (it answers `files: []`).
 */
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000'
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
const PHOTO = sampleBytes(40_000, 3)
const PDF = sampleBytes(20_000, 5)
const LIMIT = 200_000

const photo = (name = 'IMG_0001.jpg', bytes: Uint8Array<ArrayBuffer> = PHOTO) => new File([bytes], name, { type: 'image/jpeg' })
const form = (parts: [string, string | File][]) => {
  const f = new FormData()
  for (const [k, v] of parts) typeof v === 'string' ? f.append(k, v) : f.append(k, v, v.name)
  return f
}
/** The API path of a file URL the service answered (`/api/v1…`). */
const apiPath = (url: string) => url.replace('/api/v1', '')

describe.each(BACKENDS)('%s storage', (backend) => {
  let w: World
  let essay: any
  let quiz: any
  let otherTask: any
  beforeAll(async () => {
    w = await world({ clock, config: { maxUploadBytes: LIMIT }, deps: { storage: await storageFor(backend) } })
    const pointId = (await pointIn(w)).point.id
    const homework = { taskKind: 'HOMEWORK', startAt: '2026-11-21T00:00:00.000Z', dueAt: '2026-11-25T00:00:00.000Z' }
    essay = await createTask(w.api, w.base, w.teacher, pointId, { ...textTask, ...homework, title: 'Lab write-up' })
    quiz = await createTask(w.api, w.base, w.teacher, pointId, { ...homework, title: 'Quiz', taskType: 'QUIZ', questions: [choice('SINGLE_CHOICE', [1], 1)] })
    const otherPoint = (await pointIn({ api: w.api, base: w.otherBase, teacher: w.otherTeacher })).point.id
    otherTask = await createTask(w.api, w.otherBase, w.otherTeacher, otherPoint, { ...textTask, ...homework })
  }, 60_000)
  afterAll(async () => {
    await discardStorage(w.deps.storage)
  }, 60_000)

  const handIn = (taskId: string, f: FormData, token: string = w.student.token, headers: Record<string, string> = {}, base = w.base) =>
    w.api.post(`${base}/tasks/${taskId}/submissions`, { form: f, token, headers })
  const count = async (taskId: string, token = w.student.token) => (await w.api.get(`${w.base}/tasks/${taskId}/submissions`, { token })).data.total as number

  test('a homework takes its text and several files; each reads back byte-identical for the student and the teacher', async () => {
    const before = (await storedFiles(w)).length
    const res = await handIn(
      essay.id,
      form([
        ['content', '<p>My answer <script>x()</script></p>'],
        ['files', photo('IMG_0001.jpg')],
        ['files', new File([PDF], '笔记.pdf', { type: 'application/pdf' })],
      ]),
    )
    expect([res.status, res.code]).toEqual([201, 0])
    expect(res.data).toMatchObject({ taskId: essay.id, content: '<p>My answer </p>', status: 'SUBMITTED', late: false })
    expect(res.data.files.map((f: any) => [f.position, f.fileName, f.fileSize, f.contentType])).toEqual([
      [1, 'IMG_0001.jpg', PHOTO.length, 'image/jpeg'],
      [2, '笔记.pdf', PDF.length, 'application/pdf'],
    ])
    expect(res.data.files[0].fileUrl).toBe(`/api/v1/courses/${w.course.id}/learning/submissions/${res.data.id}/file`)
    expect(res.data.files[1].fileUrl).toBe(`/api/v1/courses/${w.course.id}/learning/submissions/${res.data.id}/file?position=2`)
    expect((await storedFiles(w)).length).toBe(before + 2)

    for (const who of [w.student, w.teacher]) {
      const first = await download(w, apiPath(res.data.files[0].fileUrl), who.token)
      expect([first.status, first.headers.get('content-type')]).toEqual([200, 'image/jpeg'])
      expect(first.bytes).toEqual(PHOTO)
      const second = await download(w, apiPath(res.data.files[1].fileUrl), who.token)
      expect(second.status).toBe(200)
      expect(second.bytes).toEqual(PDF)
      expect(second.headers.get('content-disposition')).toContain(`filename*=UTF-8''${encodeURIComponent('笔记.pdf')}`)
    }
    // A photo previews inline (sandboxed); a PDF stays an attachment even when asked inline.
    const inline = await download(w, `${apiPath(res.data.files[0].fileUrl)}?inline=1`, w.teacher.token)
    expect(inline.headers.get('content-disposition')).toStartWith('inline')
    expect(inline.headers.get('content-security-policy')).toContain('sandbox')
    const pdfInline = await download(w, `${apiPath(res.data.files[1].fileUrl)}&inline=1`, w.teacher.token)
    expect(pdfInline.headers.get('content-disposition')).toStartWith('attachment')
    const range = await download(w, apiPath(res.data.files[0].fileUrl), w.student.token, { range: 'bytes=0-9' })
    expect([range.status, range.bytes]).toEqual([206, PHOTO.slice(0, 10)])

    // The teacher's list (grading) and the student's own list carry the files.
    const list = await w.api.get(`${w.base}/tasks/${essay.id}/submissions`, { token: w.teacher.token })
    expect([list.status, list.code]).toEqual([200, 0])
    expect(list.data.items.find((i: any) => i.id === res.data.id).files.map((f: any) => f.fileName)).toEqual(['IMG_0001.jpg', '笔记.pdf'])
    const mine = await w.api.get(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token })
    expect(mine.data.items[0].files.length).toBe(2)
    // Grading answers the sheet with its files.
    const graded = await w.api.patch(`${w.base}/submissions/${res.data.id}/grade`, { token: w.teacher.token, json: { score: 88 } })
    expect([graded.status, graded.data.score, graded.data.files.length]).toEqual([200, 88, 2])
  })

  test('files alone make a homework hand-in; a quiz takes `answers` as JSON next to its files', async () => {
    const only = await handIn(essay.id, form([['files', photo('page1.jpg')]]), w.student2.token)
    expect([only.status, only.data.content, only.data.files.map((f: any) => f.fileName)]).toEqual([201, null, ['page1.jpg']])
    const sheet = await handIn(
      quiz.id,
      form([
        ['answers', JSON.stringify([{ questionId: quiz.questions[0].id, selectedOptions: [1] }])],
        ['files', photo('working.jpg')],
      ]),
    )
    expect([sheet.status, sheet.data.status, sheet.data.score, sheet.data.files.length]).toEqual([201, 'GRADED', 100, 1])
    const back = await download(w, apiPath(sheet.data.files[0].fileUrl), w.teacher.token)
    expect(back.bytes).toEqual(PHOTO)
  })

  test('the JSON hand-in is unchanged and answers `files: []`', async () => {
    const r = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token, json: { content: '<p>typed</p>' } })
    expect([r.status, r.code, r.data.content, r.data.files]).toEqual([201, 0, '<p>typed</p>', []])
    const bad = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token, json: { content: 5 } })
    expect([bad.status, bad.code, bad.data.fields[0].field]).toEqual([400, 40001, 'content'])
    const broken = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, {
      token: w.student.token,
      raw: '{"content":',
      headers: { 'content-type': 'application/json' },
    })
    expect([broken.status, broken.code]).toEqual([400, 40000])
    // The route reads its own body now; the answers stay the ones Elysia gave (empty body, root
    // field, translated field messages).
    const empty = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token, raw: '', headers: { 'content-type': 'application/json' } })
    expect([empty.status, empty.code]).toEqual([400, 40000])
    const array = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token, json: [] })
    expect([array.status, array.code, array.data.fields[0].field]).toEqual([400, 40001, 'root'])
    const zh = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token, json: { content: 5 }, headers: { 'accept-language': 'zh-CN' } })
    expect([zh.status, zh.data.fields[0].field, zh.data.fields[0].message]).toEqual([400, 'content', '类型不正确（应为 string）'])
  })

  test('one click, one submission: the same Idempotency-Key again (even at once) is that submission; its second upload is not kept', async () => {
    const key = crypto.randomUUID()
    const before = await count(essay.id)
    const files = (await storedFiles(w)).length
    const send = () => handIn(essay.id, form([['content', 'x'], ['files', photo('a.jpg')]]), w.student.token, { 'idempotency-key': key })
    const [a, b] = await Promise.all([send(), send()])
    expect([a.status, b.status].sort()).toEqual([200, 201])
    expect(a.data.id).toBe(b.data.id)
    const replay = a.status === 200 ? a : b
    expect([replay.code, replay.headers.get('idempotent-replayed'), replay.data.files.length]).toEqual([0, 'true', 1])
    const again = await send()
    expect([again.status, again.data.id]).toEqual([200, a.data.id])
    expect(await count(essay.id)).toBe(before + 1)
    expect((await storedFiles(w)).length).toBe(files + 1)
    // The same key with other files is another attempt: 409, nothing kept.
    const other = await handIn(essay.id, form([['content', 'x'], ['files', photo('b.jpg')]]), w.student.token, { 'idempotency-key': key })
    expect([other.status, other.code]).toEqual([409, 40900])
    expect((await storedFiles(w)).length).toBe(files + 1)
    const malformed = await handIn(essay.id, form([['files', photo()]]), w.student.token, { 'idempotency-key': 'has space' })
    expect([malformed.status, malformed.code, malformed.data.fields[0].field]).toEqual([400, 40001, 'Idempotency-Key'])
  })

  test('400 without files, past 10 files, an empty file, bad answers or fields; 413 over the limit; nothing kept', async () => {
    const before = (await storedFiles(w)).length
    const sheets = await count(essay.id)
    const none = await handIn(essay.id, form([['content', 'no file']]))
    expect([none.status, none.code, none.data.fields[0].field]).toEqual([400, 40001, 'files'])
    const noneZh = await handIn(essay.id, form([['content', 'no file']]), w.student.token, { 'accept-language': 'zh-CN' })
    expect(noneZh.data.fields[0].message).toBe('至少需要一个文件（不带文件提交请发送 JSON）')
    const tiny = new File([new Uint8Array(10)], 'x.jpg', { type: 'image/jpeg' })
    const many = await handIn(essay.id, form(Array.from({ length: 11 }, (_, i) => ['files', new File([tiny], `p${i}.jpg`, { type: 'image/jpeg' })] as [string, File])))
    expect([many.status, many.code, many.data.fields[0].field]).toEqual([400, 40001, 'files'])
    const empty = await handIn(essay.id, form([['files', photo()], ['files', new File([], 'empty.jpg', { type: 'image/jpeg' })]]))
    expect([empty.status, empty.code, empty.data.fields[0].field]).toEqual([400, 40001, 'files.1'])
    const notJson = await handIn(quiz.id, form([['answers', '[{'], ['files', photo()]]))
    expect([notJson.status, notJson.code, notJson.data.fields[0].field]).toEqual([400, 40001, 'answers'])
    const wrongQuestion = await handIn(quiz.id, form([['answers', JSON.stringify([{ questionId: UNKNOWN_ID, selectedOptions: [0] }])], ['files', photo()]]))
    expect([wrongQuestion.status, wrongQuestion.code, wrongQuestion.data.fields[0].field]).toEqual([400, 40001, 'answers.0.questionId'])
    const quizContent = await handIn(quiz.id, form([['content', 'words'], ['files', photo()]]))
    expect([quizContent.status, quizContent.data.fields[0].field]).toEqual([400, 'content'])
    const essayAnswers = await handIn(essay.id, form([['answers', '[]'], ['files', photo()]]))
    expect([essayAnswers.status, essayAnswers.data.fields[0].field]).toEqual([400, 'answers'])
    const tooLong = await handIn(essay.id, form([['content', 'x'.repeat(70_000)], ['files', photo()]]))
    expect([tooLong.status, tooLong.code]).toEqual([400, 40001])
    const big = await handIn(essay.id, form(Array.from({ length: 8 }, (_, i) => ['files', photo(`big${i}.jpg`)] as [string, File])))
    expect([big.status, big.code, big.data.limitBytes]).toEqual([413, 41300, LIMIT])
    expect((await storedFiles(w)).length).toBe(before)
    expect(await count(essay.id)).toBe(sheets)
  })

  test('401 anonymous; 403 for the teacher and non-members; 404 unknown or foreign tasks; nothing read or kept', async () => {
    const before = (await storedFiles(w)).length
    const anon = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { form: form([['files', photo()]]) })
    expect([anon.status, anon.code]).toEqual([401, 40100])
    for (const who of [w.teacher, w.otherTeacher, w.outsider]) {
      const r = await handIn(essay.id, form([['files', photo()]]), who.token)
      expect([r.status, r.code]).toEqual([403, 40300])
    }
    const unknown = await handIn(UNKNOWN_ID, form([['files', photo()]]))
    expect([unknown.status, unknown.code]).toEqual([404, 40404])
    const foreign = await handIn(otherTask.id, form([['files', photo()]]))
    expect([foreign.status, foreign.code]).toEqual([404, 40404])
    const badId = await handIn(NOT_A_UUID, form([['files', photo()]]))
    expect([badId.status, badId.code]).toEqual([400, 40001])
    expect((await storedFiles(w)).length).toBe(before)
  })

  test('downloads: the student and the course teacher only; 401, 403, 404 and 400 as for experiment files', async () => {
    const sub = await handIn(essay.id, form([['files', photo('mine.jpg')], ['files', new File([PDF], 'b.pdf', { type: 'application/pdf' })]]))
    expect(sub.status).toBe(201)
    const path = (position?: number | string, courseId = w.course.id, id = sub.data.id) =>
      `/courses/${courseId}/learning/submissions/${id}/file${position === undefined ? '' : `?position=${position}`}`
    expect((await download(w, path())).status).toBe(401)
    for (const who of [w.student2, w.outsider, w.otherTeacher]) {
      const r = await download(w, path(2), who.token)
      expect([r.status, r.json.code]).toEqual([403, 40300])
    }
    const missing = await download(w, path(9), w.student.token)
    expect([missing.status, missing.json.code]).toEqual([404, 40400])
    const unknown = await download(w, path(1, w.course.id, UNKNOWN_ID), w.teacher.token)
    expect([unknown.status, unknown.json.code]).toEqual([404, 40405])
    // A submission of this course named under another course the caller teaches is unknown there.
    const elsewhere = await download(w, path(1, w.otherCourse.id), w.otherTeacher.token)
    expect([elsewhere.status, elsewhere.json.code]).toEqual([404, 40405])
    for (const bad of ['zero', '0', '101']) {
      const r = await download(w, path(bad), w.student.token)
      expect([bad, r.status, r.json.code]).toEqual([bad, 400, 40001])
    }
    const badId = await download(w, path(1, w.course.id, NOT_A_UUID), w.student.token)
    expect(badId.status).toBe(400)
    // A JSON hand-in has no file.
    const typed = await w.api.post(`${w.base}/tasks/${essay.id}/submissions`, { token: w.student.token, json: { content: '<p>t</p>' } })
    const none = await download(w, path(undefined, w.course.id, typed.data.id), w.student.token)
    expect([none.status, none.json.code]).toEqual([404, 40400])
  })
})

test('the OpenAPI document gives the hand-in both forms and the file download its responses', async () => {
  const { app } = await testApp()
  const doc = await (await app.handle(new Request('http://localhost/v3/api-docs'))).json()
  const submit = doc.paths['/api/v1/courses/{courseId}/learning/tasks/{taskId}/submissions'].post
  expect(Object.keys(submit.requestBody.content).sort()).toEqual(['application/json', 'multipart/form-data'])
  expect(Object.keys(submit.requestBody.content['application/json'].schema.properties).sort()).toEqual(['answers', 'content'])
  const form = submit.requestBody.content['multipart/form-data'].schema
  expect(form.properties.files).toMatchObject({ type: 'array', items: { type: 'string', format: 'binary' } })
  expect(form.properties.answers.type).toBe('string')
  expect(Object.keys(submit.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '401', '403', '404', '413', '415']))
  const file = doc.paths['/api/v1/courses/{courseId}/learning/submissions/{submissionId}/file'].get
  expect(Object.keys(file.responses)).toEqual(expect.arrayContaining(['200', '206', '401', '403', '404', '416']))
  expect(file.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['courseId', 'submissionId', 'position', 'inline']))
  const sheet = doc.components.schemas.LearningSubmission ?? submit.responses['201'].content['application/json'].schema.properties.data
  expect(JSON.stringify(sheet)).toContain('fileUrl')
}, 60_000)
