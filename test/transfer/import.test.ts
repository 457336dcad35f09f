import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { NOT_A_UUID, UNKNOWN_ID } from '../experiments/world.ts'
import { formOf } from '../storage/helpers.ts'
import { ManualClock, signUp, testApp, type Account, type TestContext } from '../support/harness.ts'
import { moodleBackup, tgz, zip } from './packages.ts'

/**
 * Course import (issue 51): real packages no one here wrote (test/fixtures/import/README.md: a
 * Canvas-style Common Cartridge 1.3 from openedx/cc2olx's tests, Moodle 3.11 and 4.3 backups from
 * moodle-format_tiles' tests), a Moodle 4 backup built here in Moodle's layout (the real ones hold
 * only sections and a forum), and hostile packages.
 */
const FIXTURES = join(import.meta.dir, '..', 'fixtures', 'import')
const fixture = (name: string) => Bun.file(join(FIXTURES, name)).bytes()
const NOW = '2026-11-22T08:00:00.000Z'
const clock = new ManualClock(NOW)
let ctx: TestContext
let teacher: Account
let student: Account
let other: Account
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 600 }, (_, i) => (i * 7) % 256)])

beforeAll(async () => {
  ctx = await testApp({ clock })
  teacher = await signUp(ctx.api, 'TEACHER')
  other = await signUp(ctx.api, 'TEACHER')
  student = await signUp(ctx.api, 'STUDENT')
})

const post = (bytes: Uint8Array, name: string, token = teacher.token, fields: Record<string, string> = {}) =>
  ctx.api.post('/courses/imports', { form: formOf({ file: new File([bytes as Uint8Array<ArrayBuffer>], name), ...fields }), token })

/** Uploads, runs the import to its end, and answers the job as GET shows it. */
async function importOf(bytes: Uint8Array, name: string, fields: Record<string, string> = {}) {
  const res = await post(bytes, name, teacher.token, fields)
  expect(res.status).toBe(202)
  expect(res.code).toBe(0)
  expect(res.data.state).toBe('QUEUED')
  expect(res.headers.get('location')).toBe(`/api/v1/courses/imports/${res.data.id}`)
  await ctx.deps.imports.kick()
  const job = await ctx.api.get(`/courses/imports/${res.data.id}`, { token: teacher.token })
  expect(job.status).toBe(200)
  expect(job.code).toBe(0)
  return job.data
}

const treeOf = async (courseId: string) => (await ctx.api.get(`/courses/${courseId}/learning`, { token: teacher.token })).data.units as any[]
const tasksOf = (units: any[]) => units.flatMap((u) => u.points.flatMap((p: any) => p.tasks))
const storedCount = async () => Array.from(new Bun.Glob('objects/**/*').scanSync({ cwd: ctx.deps.storage.localRoot! })).length

describe('a Moodle 4 backup (gzip tar)', () => {
  let job: any
  let units: any[]
  beforeAll(async () => {
    const due = Date.parse('2025-03-10T12:00:00Z') / 1000
    const open = Date.parse('2025-03-01T08:00:00Z') / 1000
    job = await importOf(await tgz(await moodleBackup({ image: PNG, due, open })), 'backup-moodle2-course.mbz', { shiftDays: '365' })
    units = job.courseId ? await treeOf(job.courseId) : []
  })

  test('DONE with the course, its counts and every skipped thing with a reason', async () => {
    expect(job.state).toBe('DONE')
    expect(job.progress).toBe(100)
    expect(job.error).toBeNull()
    expect(job.report.created).toEqual({ units: 2, points: 2, tasks: 5, quizzes: 1, questions: 4, homework: 1, resources: 1, files: 1 })
    expect(job.report.skipped).toEqual(
      expect.arrayContaining([
        { kind: 'forum', title: 'Class forum', reason: 'Forums have no equivalent here.' },
        { kind: 'glossary', title: 'Terms', reason: 'Glossaries have no equivalent here.' },
        { kind: 'question', title: 'How many', reason: 'This question type (numerical) has no equivalent here.' },
      ]),
    )
    expect(job.report.skipped).toHaveLength(3)
    const course = await ctx.api.get(`/courses/${job.courseId}`, { token: teacher.token })
    expect(course.data.title).toBe('Biology & You')
    expect(course.data.teacher.id).toBe(teacher.id)
    expect(course.data.inviteCode).toMatch(/^[A-Z2-9]{8}$/)
    expect(course.data.studentCount).toBe(0)
  })

  test('sections → units in order (an untitled one is "Topic N"), activities in the section\'s sequence', () => {
    expect(units.map((u) => u.title)).toEqual(['Cells', 'Topic 2'])
    expect(units[0].description).toBe('All about cells')
    expect(units[0].points[0].tasks.map((t: any) => t.title)).toEqual(['Moodle docs', 'Welcome page'])
    expect(units[1].points[0].tasks.map((t: any) => t.title)).toEqual(['Essay one', 'Quiz one', 'Hidden notes'])
  })

  test('a page → TEXT, sanitised, its embedded image a course resource the links point at', async () => {
    const page = tasksOf(units).find((t) => t.title === 'Welcome page')
    expect(page).toMatchObject({ taskKind: 'LEARNING', taskType: 'MEDIA', materialType: 'TEXT', state: 'PUBLISHED' })
    expect(page.content).not.toContain('@@PLUGINFILE@@')
    expect(page.content).not.toContain('<script')
    const res = await ctx.api.get(`/courses/${job.courseId}/resources`, { token: teacher.token })
    expect(res.data.items).toHaveLength(1)
    const image = res.data.items[0]
    expect(image).toMatchObject({ name: 'cell diagram.png', type: 'FILE', fileSize: PNG.length, contentType: 'image/png' })
    expect(page.content).toContain(`<a href="${image.fileUrl}" rel="noopener noreferrer nofollow">A cell</a>`)
    expect(page.content).toContain(`<a href="${image.fileUrl}" rel="noopener noreferrer nofollow">Download</a>`)
    const bytes = await ctx.app.handle(new Request(`http://localhost${image.fileUrl}`, { headers: { authorization: `Bearer ${teacher.token}` } }))
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(PNG)
  })

  test('a url → LINK; a hidden module → DRAFT', () => {
    const tasks = tasksOf(units)
    expect(tasks.find((t) => t.title === 'Moodle docs')).toMatchObject({ materialType: 'LINK', url: 'https://docs.moodle.org/' })
    expect(tasks.find((t) => t.title === 'Hidden notes')).toMatchObject({ materialType: 'TEXT', state: 'DRAFT' })
  })

  test('an assignment → HOMEWORK with its description and its dates moved by shiftDays', () => {
    const hw = tasksOf(units).find((t) => t.title === 'Essay one')
    expect(hw).toMatchObject({
      taskKind: 'HOMEWORK', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>Write 500 words.</p>',
      startAt: '2026-03-01T08:00:00.000Z', dueAt: '2026-03-10T12:00:00.000Z', state: 'PUBLISHED',
    })
  })

  test('a quiz → QUIZ: single and multiple choice with their keys, true/false, short answer, marks as points', () => {
    const quiz = tasksOf(units).find((t) => t.title === 'Quiz one')
    expect(quiz.taskType).toBe('QUIZ')
    expect(quiz.questions.map((q: any) => ({ type: q.type, stem: q.stem, options: q.options, correctOptions: q.correctOptions, points: q.points }))).toEqual([
      { type: 'SINGLE_CHOICE', stem: 'Which organelle makes energy?', options: ['Nucleus', 'Mitochondrion', 'Ribosome'], correctOptions: [1], points: 1 },
      { type: 'MULTIPLE_CHOICE', stem: 'Which have a membrane?', options: ['Nucleus', 'Ribosome', 'Mitochondrion'], correctOptions: [0, 2], points: 2 },
      { type: 'SINGLE_CHOICE', stem: 'Cells are alive.', options: ['True', 'False'], correctOptions: [0], points: 1 },
      { type: 'SHORT_ANSWER', stem: 'Name the cell wall material.', options: [], correctOptions: [], points: 1 },
    ])
  })

  test('the report is in the reader\'s language', async () => {
    const zh = await ctx.api.get(`/courses/imports/${job.id}`, { token: teacher.token, headers: { 'accept-language': 'zh-CN' } })
    expect(zh.data.report.skipped.find((s: any) => s.kind === 'forum').reason).toBe('本服务没有论坛。')
  })
})

describe('real packages from public test folders', () => {
  test('a Canvas Common Cartridge 1.3 (openedx/cc2olx): units, text with files, links, quiz, assignments; LTI and discussions skipped', async () => {
    const job = await importOf(await fixture('canvas-cc2olx.imscc'), 'course.imscc')
    expect(job.state).toBe('DONE')
    const units = await treeOf(job.courseId)
    expect(units.map((u) => u.title)).toEqual(['Sequence', 'Sequence2'])
    // Canvas sub-headers start knowledge points.
    expect(units[1].points.map((p: any) => p.title)).toEqual(['Sequence2', 'Sub Header 1', 'Sub Header 2'])
    const tasks = tasksOf(units)
    const vertical = tasks.find((t) => t.title === 'Vertical')
    expect(vertical.content).toMatch(/<a href="\/api\/v1\/resources\/[0-9a-f-]+\/file" rel="noopener noreferrer nofollow">fractal.jpg<\/a>/)
    expect(tasks.some((t) => /IMS-CC-FILEBASE/.test(t.content))).toBe(false)
    expect(tasks.find((t) => t.title === 'PDF from Web Resources')).toMatchObject({ materialType: 'FILE', resourceId: expect.any(String) })
    expect(tasks.find((t) => t.title === 'Web Link to PDF file')).toMatchObject({ materialType: 'LINK', url: 'https://pdf.storage.com/python/proposals/PEP_312.pdf' })
    const quiz = tasks.find((t) => t.title === 'QTI')
    expect(quiz.taskType).toBe('QUIZ')
    expect(quiz.questions[0]).toMatchObject({ type: 'SINGLE_CHOICE', options: ['[fractal.jpg]\nB', 'A', 'c', 'D'].map((o) => expect.any(String)), correctOptions: [0] })
    expect(quiz.questions.find((q: any) => q.stem.startsWith('True or False'))).toMatchObject({ type: 'SINGLE_CHOICE', options: ['True', 'False'] })
    const hw = tasks.filter((t) => t.taskKind === 'HOMEWORK').map((t) => t.title)
    expect(hw).toEqual(['Assignment 1. University education scope essay', 'Assignment 2. Television role in education composition'])
    const reasons = new Map(job.report.skipped.map((s: any) => [s.title, s.reason]))
    expect(reasons.get('LTI')).toBe('An LTI link needs a tool registered here; none was imported.')
    expect(reasons.get('Discussion')).toBe('Discussions have no equivalent here.')
    expect(reasons.get('QTI No Items')).toBe('The quiz has no question that can be imported.')
    // "/web-link" and "youtube.com/…" are not http(s) addresses the service can link to.
    expect(reasons.get('Web Link Content')).toMatch(/^Not valid here: url/)
    expect(job.report.created.files).toBe(job.report.created.resources)
  })

  test.each(['moodle-311-sample.mbz', 'moodle-43-late-beta.mbz'])('a real Moodle backup (%s): its sections become units, the forum is skipped', async (name) => {
    const job = await importOf(await fixture(name), name)
    expect(job.state).toBe('DONE')
    const units = await treeOf(job.courseId)
    expect(units.length).toBeGreaterThanOrEqual(10)
    expect(units[0].title).toBe('Topic 1')
    const course = await ctx.api.get(`/courses/${job.courseId}`, { token: teacher.token })
    expect(course.data.title).toMatch(/^Moodle (311|43)/)
    if (name.includes('43')) expect(job.report.skipped).toEqual([{ kind: 'forum', title: 'Announcements', reason: 'Forums have no equivalent here.' }])
  })

  test('a Moodle backup in a zip (older Moodle) is read the same way', async () => {
    const job = await importOf(zip(await moodleBackup({ image: PNG, due: 1741608000, open: 1740816000 })), 'old.mbz')
    expect(job.state).toBe('DONE')
    expect(job.report.created.tasks).toBe(5)
  })
})

describe('hostile and broken packages: FAILED with a clear message, nothing left behind', () => {
  const failed = async (bytes: Uint8Array, code: number, message: RegExp) => {
    const before = await storedCount()
    const job = await importOf(bytes, 'x.imscc')
    expect(job.state).toBe('FAILED')
    expect(job.courseId).toBeNull()
    expect(job.error.code).toBe(code)
    expect(job.error.message).toMatch(message)
    expect(await storedCount()).toBe(before)
    return job
  }
  const manifest = (body = '') => `<?xml version="1.0"?><manifest identifier="m" xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1">${body}<organizations/><resources/></manifest>`

  test('zip slip: an entry outside the package root', async () => {
    await failed(zip({ 'imsmanifest.xml': manifest(), '../../evil.txt': 'x' }), 42221, /entry outside its root/)
  })

  test('zip slip in a tar: an absolute path', async () => {
    await failed(await tgz({ 'moodle_backup.xml': '<moodle_backup/>', '/etc/evil': 'x' }), 42221, /entry outside its root/)
  })

  test('XXE: a DTD with an external entity is refused, nothing fetched or expanded', async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE manifest [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><manifest>&xxe;</manifest>`
    await failed(zip({ 'imsmanifest.xml': xxe }), 42221, /declares a DTD/)
  })

  test('billion laughs: entity expansion refused the same way', async () => {
    const lol = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><manifest>&lol2;</manifest>`
    await failed(zip({ 'imsmanifest.xml': lol }), 42221, /declares a DTD/)
  })

  test('a zip bomb: an entry expanding more than 200 : 1', async () => {
    await failed(zip({ 'imsmanifest.xml': manifest(), 'web_resources/zeros.bin': new Uint8Array(20 * 1024 * 1024) }), 41320, /zip bomb/)
  })

  test('a gzip bomb: a tar.gz expanding more than 200 : 1', async () => {
    await failed(await tgz({ 'moodle_backup.xml': '<moodle_backup/>', 'files/aa/zeros': new Uint8Array(40 * 1024 * 1024) }), 41320, /zip bomb/)
  })

  test('junk bytes', async () => {
    await failed(crypto.getRandomValues(new Uint8Array(4096)), 42220, /neither a Moodle backup nor a Common Cartridge/)
  })

  test('a zip that is neither', async () => {
    await failed(zip({ 'readme.txt': 'hello', 'a/b.png': PNG }), 42220, /neither a Moodle backup nor a Common Cartridge/)
  })

  test('a truncated zip', async () => {
    const whole = zip({ 'imsmanifest.xml': manifest(), 'a.bin': crypto.getRandomValues(new Uint8Array(4096)) })
    await failed(whole.slice(0, 200), 42220, /neither/)
  })

  test('malformed XML', async () => {
    await failed(zip({ 'imsmanifest.xml': '<manifest><organizations></manifest' }), 42222, /cannot be read|no imsmanifest/)
  })

  test('control characters and NULs inside an otherwise valid package are cleaned, not a failure', async () => {
    const manifestText = `<?xml version="1.0"?><manifest identifier="m" xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"><metadata><lom><general><title><string>Odd\u0007 course</string></title><description><string>line\u0000one</string></description></general></lom></metadata><organizations><organization identifier="o"><item identifier="r"><item identifier="u"><title>Unit\u0001 one</title><item identifier="a" identifierref="P"><title>Page\u0000</title></item><item identifier="b" identifierref="F"><title>File</title></item><item identifier="c" identifierref="X"><title>Tool\u0000</title></item></item></item></organization></organizations><resources><resource identifier="P" type="webcontent" href="p.html"><file href="p.html"/></resource><resource identifier="F" type="webcontent" href="web_resources/ab.pdf"><file href="web_resources/ab.pdf"/></resource><resource identifier="X" type="odd\u0000type"/></resources></manifest>`
    const job = await importOf(zip({ 'imsmanifest.xml': manifestText, 'p.html': '<p>nul\u0000 here</p>', 'web_resources/ab.pdf': PNG }), 'odd.imscc')
    expect(job.state).toBe('DONE')
    expect(job.report.created).toMatchObject({ units: 1, tasks: 2, files: 1 })
    expect(job.report.skipped).toEqual([{ kind: 'odd type', title: 'Tool', reason: 'This kind of content has no equivalent here.' }])
    const units = await treeOf(job.courseId)
    expect(units[0].title).toBe('Unit one')
    expect(tasksOf(units).map((t) => t.title)).toEqual(['Page', 'File'])
  })

  test('a run cut off by a killed process: the lease runs out, the next runner starts again; after three tries FAILED', async () => {
    const res = await post(zip({ 'imsmanifest.xml': manifest() }), 'slow.imscc')
    await ctx.deps.imports.kick()
    const first = await ctx.api.get(`/courses/imports/${res.data.id}`, { token: teacher.token })
    expect(first.data.state).toBe('DONE')
    // A second one: claimed and "killed" three times (the lease expired each time).
    const again = await post(zip({ 'imsmanifest.xml': manifest() }), 'crashy.imscc')
    await ctx.deps.sql`update course_imports set state = 'RUNNING', attempts = 3, lease_until = ${new Date(Date.parse(NOW) - 1000)} where id = ${again.data.id}`
    await ctx.deps.imports.kick()
    const job = await ctx.api.get(`/courses/imports/${again.data.id}`, { token: teacher.token })
    expect(job.data).toMatchObject({ state: 'FAILED', courseId: null, error: { code: 50020 } })
  })
})

describe('POST /courses/imports and GET /courses/imports/{id}: who may', () => {
  const tiny = zip({ 'imsmanifest.xml': '<manifest/>' })
  test('401 without credentials', async () => {
    const res = await ctx.api.post('/courses/imports', { form: formOf({ file: new File([tiny], 'a.imscc') }) })
    expect(res.status).toBe(401)
    expect(res.code).toBe(40100)
    expect((await ctx.api.get(`/courses/imports/${UNKNOWN_ID}`)).status).toBe(401)
  })

  test('a student → 403, the upload never read', async () => {
    const res = await post(tiny, 'a.imscc', student.token)
    expect(res.status).toBe(403)
    expect(res.code).toBe(40300)
    expect((await ctx.api.get(`/courses/imports/${UNKNOWN_ID}`, { token: student.token })).status).toBe(403)
  })

  test('400: no file, a bad shiftDays, a bad id', async () => {
    const none = await ctx.api.post('/courses/imports', { form: formOf({ shiftDays: '3' }), token: teacher.token })
    expect(none.status).toBe(400)
    expect(none.code).toBe(40001)
    for (const shiftDays of ['4000', 'soon', '1.5']) {
      const res = await post(tiny, 'a.imscc', teacher.token, { shiftDays })
      expect(res.status).toBe(400)
      expect(res.data.fields[0].field).toBe('shiftDays')
    }
    expect((await ctx.api.get(`/courses/imports/${NOT_A_UUID}`, { token: teacher.token })).status).toBe(400)
  })

  test('404: an unknown import, and another teacher\'s', async () => {
    const unknown = await ctx.api.get(`/courses/imports/${UNKNOWN_ID}`, { token: teacher.token })
    expect(unknown.status).toBe(404)
    expect(unknown.code).toBe(40420)
    const mine = await post(tiny, 'a.imscc')
    const theirs = await ctx.api.get(`/courses/imports/${mine.data.id}`, { token: other.token })
    expect(theirs.status).toBe(404)
    expect(theirs.code).toBe(40420)
    await ctx.deps.imports.kick()
  })

  test('413: a package over MAX_IMPORT_BYTES, nothing kept', async () => {
    const small = await testApp({ clock, config: { maxImportBytes: 2048 } })
    const t = await signUp(small.api, 'TEACHER')
    const res = await small.api.post('/courses/imports', { form: formOf({ file: new File([new Uint8Array(10_000)], 'big.mbz') }), token: t.token })
    expect(res.status).toBe(413)
    expect(res.code).toBe(41300)
  })
})

afterAll(async () => {
  await ctx.deps.imports.kick()
})
