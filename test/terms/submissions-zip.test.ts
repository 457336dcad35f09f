import { afterAll, describe, expect, test } from 'bun:test'
import { unzipSync, strFromU8 } from 'fflate'
import { signUp, type Account, type Client, type TestContext } from '../support/harness.ts'
import { appOn, BACKENDS, discardStorage } from '../storage/helpers.ts'
import { formOf } from '../security/world.ts'

/**
 * GET /courses/{courseId}/experiments/{experimentId}/submissions.zip: each student's newest
 * file under {username}/ with a cleaned name, plus submissions.csv; on local disk and S3.
 */
const UNKNOWN = '01900000-0000-7000-8000-000000000000'
const contexts: TestContext[] = []
afterAll(async () => {
  for (const c of contexts) await discardStorage(c.deps.storage)
})

async function download(api: Client, path: string, token?: string) {
  const res = await api.call('GET', path, { token })
  return res
}

describe.each(BACKENDS)('the submissions zip (%s storage)', (backend) => {
  let ctx: TestContext
  let api: Client
  let teacher: Account
  let ada: Account
  let bob: Account
  let cyd: Account
  let courseId: string
  let experimentId: string
  let path: string

  test('each student’s newest file under {username}/ with a cleaned name, and submissions.csv', async () => {
    ctx = await appOn(backend)
    contexts.push(ctx)
    api = ctx.api
    teacher = await signUp(api, 'TEACHER', 'Prof. Zip')
    ;[ada, bob, cyd] = [await signUp(api, 'STUDENT', 'Ada, "the first"'), await signUp(api, 'STUDENT', '=Bob'), await signUp(api, 'STUDENT', 'Cyd')]
    const c = await api.post('/courses', { token: teacher.token, json: { title: 'Zips', description: '' } })
    courseId = c.data.id
    for (const s of [ada, bob, cyd]) expect((await api.post('/courses/join', { token: s.token, json: { inviteCode: c.data.inviteCode } })).status).toBe(200)
    const e = await api.post(`/courses/${courseId}/experiments`, {
      token: teacher.token,
      json: { title: 'Lab 1', description: '<p>x</p>', dueAt: new Date(Date.now() + 86400_000).toISOString() },
    })
    experimentId = e.data.id
    path = `/courses/${courseId}/experiments/${experimentId}/submissions.zip`
    const submit = (s: Account, name: string, text: string) =>
      api.post(`/experiments/${experimentId}/submissions`, { token: s.token, form: formOf({ file: new File([text], name) }) })
    expect((await submit(ada, 'draft.txt', 'old draft')).status).toBe(201)
    expect((await submit(ada, 'final report.pdf', 'final of ada')).status).toBe(201)
    expect((await submit(bob, '..\\..\\etc\\pass:wd', 'bob wrote this')).status).toBe(201)
    const graded = await api.get(`/experiments/${experimentId}/submissions`, { token: teacher.token })
    const bobs = graded.data.items.find((x: any) => x.student.id === bob.id)
    expect((await api.patch(`/submissions/${bobs.id}/grade`, { token: teacher.token, json: { score: 88.5 } })).status).toBe(200)

    const res = await ctx.app.handle(new Request(`http://localhost/api/v1${path}`, { headers: { authorization: `Bearer ${teacher.token}` } }))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/zip')
    expect(res.headers.get('content-disposition')).toContain('submissions-Lab 1-')
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()))
    const [first, second] = [ada, bob].sort((x, y) => x.username.toLowerCase().localeCompare(y.username.toLowerCase()))
    expect(Object.keys(files).sort()).toEqual(
      [`${ada.username}/final report.pdf`, `${bob.username}/pass_wd`, 'submissions.csv'].sort(),
    )
    expect(strFromU8(files[`${ada.username}/final report.pdf`]!)).toBe('final of ada')
    expect(strFromU8(files[`${bob.username}/pass_wd`]!)).toBe('bob wrote this')
    const csv = strFromU8(files['submissions.csv']!)
    const lines = csv.replace(/^\uFEFF/, '').trimEnd().split('\r\n')
    expect(lines[0]).toBe('Username,Display name,Submitted at,Late,Score,File name')
    expect(lines).toHaveLength(3)
    const row = (a: Account) => lines.find((l) => l.startsWith(`${a.username},`))!
    expect(row(ada)).toMatch(new RegExp(`^${ada.username},"Ada, ""the first""",\\d{4}-\\d\\d-\\d\\dT[^,]+Z,no,,${ada.username}/final report.pdf$`))
    expect(row(bob)).toMatch(new RegExp(`^${bob.username},'=Bob,[^,]+,no,88.5,${bob.username}/pass_wd$`))
    expect(lines.indexOf(row(first!))).toBeLessThan(lines.indexOf(row(second!)))
  })

  test('every file of a submission with several (issue 29.7), a repeated name numbered; the CSV lists them', async () => {
    const e = await api.post(`/courses/${courseId}/experiments`, {
      token: teacher.token,
      json: { title: 'Photos', description: '<p>x</p>', dueAt: new Date(Date.now() + 86400_000).toISOString() },
    })
    const form = new FormData()
    form.append('files', new File(['first photo'], 'IMG.jpg', { type: 'image/jpeg' }))
    form.append('files', new File(['second photo'], 'IMG.jpg', { type: 'image/jpeg' }))
    form.append('files', new File(['the table'], 'table.csv', { type: 'text/csv' }))
    const sub = await api.post(`/experiments/${e.data.id}/submissions`, { token: cyd.token, form })
    expect(sub.status).toBe(201)
    const res = await ctx.app.handle(
      new Request(`http://localhost/api/v1/courses/${courseId}/experiments/${e.data.id}/submissions.zip`, { headers: { authorization: `Bearer ${teacher.token}` } }),
    )
    expect(res.status).toBe(200)
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()))
    const names = [`${cyd.username}/IMG.jpg`, `${cyd.username}/IMG (2).jpg`, `${cyd.username}/table.csv`]
    expect(Object.keys(files).sort()).toEqual([...names, 'submissions.csv'].sort())
    expect(names.map((n) => strFromU8(files[n]!))).toEqual(['first photo', 'second photo', 'the table'])
    const csv = strFromU8(files['submissions.csv']!).replace(/^\uFEFF/, '').trimEnd().split('\r\n')
    expect(csv[1]!.endsWith(`,${names.join('; ')}`)).toBe(true)
  })

  test('an experiment without submissions gives a zip with only the CSV header', async () => {
    const e = await api.post(`/courses/${courseId}/experiments`, {
      token: teacher.token,
      json: { title: 'Empty', description: '<p>x</p>', dueAt: new Date(Date.now() + 86400_000).toISOString() },
    })
    const res = await ctx.app.handle(
      new Request(`http://localhost/api/v1/courses/${courseId}/experiments/${e.data.id}/submissions.zip`, { headers: { authorization: `Bearer ${teacher.token}` } }),
    )
    expect(res.status).toBe(200)
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()))
    expect(Object.keys(files)).toEqual(['submissions.csv'])
  })

  test('401 anonymous, 403 a student or another teacher, 404 unknown ids or another course’s experiment, 400 bad ids', async () => {
    const anon = await download(api, path)
    expect([anon.status, anon.code]).toEqual([401, 40100])
    const student = await download(api, path, ada.token)
    expect([student.status, student.code]).toEqual([403, 40300])
    const other = await signUp(api, 'TEACHER')
    expect((await download(api, path, other.token)).status).toBe(403)
    const unknownExp = await download(api, `/courses/${courseId}/experiments/${UNKNOWN}/submissions.zip`, teacher.token)
    expect([unknownExp.status, unknownExp.code]).toEqual([404, 40406])
    const unknownCourse = await download(api, `/courses/${UNKNOWN}/experiments/${experimentId}/submissions.zip`, teacher.token)
    expect([unknownCourse.status, unknownCourse.code]).toEqual([404, 40401])
    const otherCourse = await api.post('/courses', { token: other.token, json: { title: 'Other', description: '' } })
    const elsewhere = await download(api, `/courses/${otherCourse.data.id}/experiments/${experimentId}/submissions.zip`, other.token)
    expect([elsewhere.status, elsewhere.code]).toEqual([404, 40406])
    expect((await download(api, `/courses/${courseId}/experiments/nope/submissions.zip`, teacher.token)).status).toBe(400)
    // Reading is allowed in an archived course.
    expect((await api.patch(`/courses/${courseId}`, { token: teacher.token, json: { archived: true } })).status).toBe(200)
    expect((await ctx.app.handle(new Request(`http://localhost/api/v1${path}`, { headers: { authorization: `Bearer ${teacher.token}` } }))).status).toBe(200)
  })
})
