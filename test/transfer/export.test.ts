import { beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { strFromU8, unzipSync } from 'fflate'
import { NOT_A_UUID, UNKNOWN_ID } from '../experiments/world.ts'
import { formOf } from '../storage/helpers.ts'
import { ManualClock, signUp, teacherWithCourse, testApp, type Account, type TestContext } from '../support/harness.ts'

/**
 * Export as Common Cartridge 1.1 (issue 51): the manifest validates against the official IMS CC
 * 1.1 schemas (xmllint, test/fixtures/ims-cc-1.1/), and importing the export gives the same
 * course back: titles, content, question keys and points, dates and file bytes.
 */
const SCHEMA = join(import.meta.dir, '..', 'fixtures', 'ims-cc-1.1', 'ccv1p1_imscp_v1p2_v1p0.xsd')
const clock = new ManualClock('2026-11-22T08:00:00.000Z')
let ctx: TestContext
let teacher: Account
let courseId: string
const PDF = new TextEncoder().encode('%PDF-1.4\n' + 'x'.repeat(3000) + '\n%%EOF\n')

const api = () => ctx.api
async function ok(res: Promise<any>, status = 201) {
  const r = await res
  if (r.status !== status) throw new Error(`${r.status} ${JSON.stringify(r.body)}`)
  return r.data
}

beforeAll(async () => {
  ctx = await testApp({ clock })
  const made = await teacherWithCourse(ctx.api, 'Physics 101')
  teacher = made.teacher
  courseId = made.courseId
  const t = { token: teacher.token }
  const base = `/courses/${courseId}`
  const file = await ok(api().post(`${base}/resources`, { ...t, form: formOf({ name: 'Notes', type: 'FILE', file: new File([PDF], 'notes ü.pdf', { type: 'application/pdf' }) }) }))
  const u1 = await ok(api().post(`${base}/learning/units`, { ...t, json: { title: 'Motion' } }))
  const p1 = await ok(api().post(`${base}/learning/units/${u1.id}/points`, { ...t, json: { title: 'Velocity' } }))
  const p2 = await ok(api().post(`${base}/learning/units/${u1.id}/points`, { ...t, json: { title: 'Acceleration' } }))
  const u2 = await ok(api().post(`${base}/learning/units`, { ...t, json: { title: 'Energy & Work' } }))
  const p3 = await ok(api().post(`${base}/learning/units/${u2.id}/points`, { ...t, json: { title: 'Kinetic energy' } }))
  const task = (pointId: string, body: unknown) => ok(api().post(`${base}/learning/points/${pointId}/tasks`, { ...t, json: body }))
  await task(p1.id, { title: 'Read this', taskType: 'MEDIA', materialType: 'TEXT', content: `<p>Speed is <strong>distance</strong> over time. See <a href="${file.fileUrl}">the notes</a>.</p>` })
  await task(p1.id, { title: 'A video', taskType: 'MEDIA', materialType: 'LINK', url: 'https://example.org/v?x=1&y=2' })
  await task(p1.id, { title: 'The notes', taskType: 'MEDIA', materialType: 'FILE', resourceId: file.id })
  await task(p2.id, {
    title: 'Check yourself',
    taskType: 'QUIZ',
    questions: [
      { type: 'SINGLE_CHOICE', stem: 'Unit of acceleration?', options: ['m/s', 'm/s²', 'kg'], correctOptions: [1], points: 2 },
      { type: 'MULTIPLE_CHOICE', stem: 'Which are vectors?', options: ['velocity', 'speed', 'force', 'mass'], correctOptions: [0, 2], points: 3 },
      { type: 'SHORT_ANSWER', stem: 'Define jerk.', points: 5 },
    ],
  })
  const essay = await task(p3.id, {
    title: 'Energy essay',
    taskKind: 'HOMEWORK',
    taskType: 'MEDIA',
    materialType: 'TEXT',
    content: '<p>Explain <em>kinetic</em> energy &amp; its units.</p>',
    startAt: '2026-12-01T08:00:00.000Z',
    dueAt: '2026-12-08T23:59:00.000Z',
  })
  // A rubric (issue 54): exported in Canvas's course_settings/rubrics.xml, imported back.
  await ok(
    api().put(`${base}/learning/tasks/${essay.id}/rubric`, {
      ...t,
      json: {
        rubric: {
          criteria: [
            { title: 'Argument', description: 'Claims backed by evidence & units', levels: [{ title: 'Beginning', points: 0 }, { title: 'Exemplary', description: 'Every claim <sourced>', points: 6 }] },
            { title: 'Units', levels: [{ title: 'Missing', points: 0 }, { title: 'Some', points: 1.5 }, { title: 'All', points: 4 }] },
          ],
        },
      },
    }),
    200,
  )
  await task(p3.id, {
    title: 'Energy quiz',
    taskKind: 'HOMEWORK',
    taskType: 'QUIZ',
    questions: [{ type: 'SINGLE_CHOICE', stem: 'KE = ?', options: ['mv', '½mv²'], correctOptions: [1], points: 1.5 }],
    startAt: '2026-12-02T08:00:00.000Z',
    dueAt: '2026-12-09T08:00:00.000Z',
  })
})

const download = async (token = teacher.token, id = courseId) =>
  ctx.app.handle(new Request(`http://localhost/api/v1/courses/${id}/export.imscc`, { headers: { authorization: `Bearer ${token}` } }))

/** The course as its teacher sees it, without ids and times that differ between copies. */
async function shape(id: string, token = teacher.token) {
  const units = (await ctx.api.get(`/courses/${id}/learning`, { token })).data.units as any[]
  const files = (await ctx.api.get(`/courses/${id}/resources`, { token })).data.items as any[]
  const fileName = new Map(files.map((f) => [f.id, f.fileName]))
  return units.map((u) => ({
    title: u.title,
    points: u.points.map((p: any) => ({
      title: p.title,
      tasks: p.tasks.map((t: any) => ({
        title: t.title,
        kind: t.taskKind,
        type: t.taskType,
        material: t.materialType,
        content: t.content.replace(/\/api\/v1\/resources\/[0-9a-f-]+\/file/g, 'FILE'),
        url: t.url,
        file: t.resourceId ? fileName.get(t.resourceId) : null,
        questions: t.questions.map((q: any) => ({ type: q.type, stem: q.stem, options: q.options, correctOptions: q.correctOptions, points: q.points })),
        startAt: t.startAt,
        dueAt: t.dueAt,
        rubric: t.rubric?.criteria.map((c: any) => ({ title: c.title, description: c.description, questionId: c.questionId, levels: c.levels.map((l: any) => [l.title, l.description, l.points]) })) ?? null,
      })),
    })),
  }))
}

describe('GET /courses/{courseId}/export.imscc', () => {
  let files: Record<string, Uint8Array>
  beforeAll(async () => {
    const res = await download()
    expect(res.status).toBe(200)
    expect(res.headers.get('content-disposition')).toContain('attachment; filename="Physics 101.imscc"')
    files = unzipSync(new Uint8Array(await res.arrayBuffer()))
  })

  test('a Common Cartridge 1.1 whose manifest validates against the IMS CC 1.1 schemas (xmllint)', async () => {
    const manifest = strFromU8(files['imsmanifest.xml']!)
    expect(manifest).toContain('<schemaversion>1.1.0</schemaversion>')
    if (!existsSync('/usr/bin/xmllint')) {
      if (process.env.CI) throw new Error('xmllint (libxml2-utils) is required in CI')
      return
    }
    const dir = await mkdtemp(join(tmpdir(), 'cc-export-'))
    await writeFile(join(dir, 'imsmanifest.xml'), manifest)
    const run = Bun.spawnSync(['xmllint', '--noout', '--nonet', '--schema', SCHEMA, join(dir, 'imsmanifest.xml')], { stderr: 'pipe' })
    expect(run.stderr.toString()).toContain('validates')
    expect(run.exitCode).toBe(0)
    // The QTI assessments and web links against their CC 1.1 profiles too.
    const checks: [string, string][] = [
      ['assessment_qti.xml', 'ccv1p1_qtiasiv1p2p1_v1p0.xsd'],
      ['.xml', 'ccv1p1_imswl_v1p1.xsd'],
    ]
    for (const [suffix, xsd] of checks) {
      const docs = Object.keys(files).filter((n) => n.endsWith(suffix) && (xsd.includes('imswl') ? n.startsWith('links/') : true))
      expect(docs.length).toBeGreaterThan(0)
      for (const name of docs) {
        const path = join(dir, name.replace(/\//g, '_'))
        await writeFile(path, files[name]!)
        const r = Bun.spawnSync(['xmllint', '--noout', '--nonet', '--schema', join(SCHEMA, '..', xsd), path], { stderr: 'pipe' })
        expect(r.stderr.toString()).toContain('validates')
      }
    }
  })

  test('the file bytes are in the package; quizzes are QTI 1.2 with keys and points; homework has its dates', () => {
    const pdf = Object.entries(files).find(([n]) => n.startsWith('web_resources/') && n.endsWith('.pdf'))
    expect(pdf?.[1]).toEqual(PDF)
    const qti = Object.entries(files).filter(([n]) => n.endsWith('assessment_qti.xml')).map(([, b]) => strFromU8(b))
    expect(qti.some((x) => x.includes('<fieldlabel>cc_weighting</fieldlabel><fieldentry>3</fieldentry>') && x.includes('rcardinality="Multiple"'))).toBe(true)
    const settings = Object.entries(files).find(([n]) => n.endsWith('assignment_settings.xml'))!
    expect(strFromU8(settings[1])).toContain('<due_at>2026-12-08T23:59:00.000Z</due_at>')
  })

  test("a homework's rubric is in Canvas's course_settings/rubrics.xml, named by the assignment's settings", () => {
    const settings = strFromU8(Object.entries(files).find(([n]) => n.endsWith('assignment_settings.xml'))![1])
    const ref = /<rubric_identifierref>([^<]+)<\/rubric_identifierref>/.exec(settings)?.[1]
    expect(ref).toBeDefined()
    const rubrics = strFromU8(files['course_settings/rubrics.xml']!)
    expect(rubrics).toContain('<rubrics xmlns="http://canvas.instructure.com/xsd/cccv1p0">')
    expect(rubrics).toContain(`<rubric identifier="${ref}">`)
    expect(rubrics).toContain('<points_possible>10</points_possible>')
    expect(rubrics).toContain('<description>Argument</description><long_description>Claims backed by evidence &amp; units</long_description>')
    expect(rubrics).toContain('<description>Exemplary</description><points>6</points>')
    expect(rubrics).toContain('<long_description>Every claim &lt;sourced&gt;</long_description>')
    // Listed as a resource of its own (outside the organization), as Canvas lists course_settings.
    expect(strFromU8(files['imsmanifest.xml']!)).toContain('href="course_settings/rubrics.xml"><file href="course_settings/rubrics.xml"/></resource>')
  })

  test('importing the export gives the same course back', async () => {
    const bytes = new Uint8Array(await (await download()).arrayBuffer())
    const res = await ctx.api.post('/courses/imports', { form: formOf({ file: new File([bytes], 'Physics 101.imscc') }), token: teacher.token })
    expect(res.status).toBe(202)
    await ctx.deps.imports.kick()
    const job = (await ctx.api.get(`/courses/imports/${res.data.id}`, { token: teacher.token })).data
    expect(job.state).toBe('DONE')
    expect(job.report.skipped).toEqual([])
    expect(job.report.created).toEqual({ units: 2, points: 3, tasks: 6, quizzes: 2, questions: 4, homework: 2, resources: 1, files: 1 })
    expect(await shape(job.courseId)).toEqual(await shape(courseId))
    const copy = (await ctx.api.get(`/courses/${job.courseId}`, { token: teacher.token })).data
    expect(copy.title).toBe('Physics 101')
    const [original] = (await ctx.api.get(`/courses/${job.courseId}/resources`, { token: teacher.token })).data.items
    const bytesBack = await ctx.app.handle(new Request(`http://localhost${original.fileUrl}`, { headers: { authorization: `Bearer ${teacher.token}` } }))
    expect(new Uint8Array(await bytesBack.arrayBuffer())).toEqual(PDF)
  })

  test('401, 403 (a student of the course, another teacher), 400, 404', async () => {
    const student = await signUp(ctx.api, 'STUDENT')
    const { inviteCode } = (await ctx.api.get(`/courses/${courseId}`, { token: teacher.token })).data
    await ctx.api.post('/courses/join', { token: student.token, json: { inviteCode } })
    const other = await signUp(ctx.api, 'TEACHER')
    const anonymous = await ctx.app.handle(new Request(`http://localhost/api/v1/courses/${courseId}/export.imscc`))
    expect(anonymous.status).toBe(401)
    expect((await anonymous.json()).code).toBe(40100)
    for (const who of [student, other]) {
      const r = await download(who.token)
      expect(r.status).toBe(403)
      expect((await r.json()).code).toBe(40300)
    }
    const bad = await download(teacher.token, NOT_A_UUID)
    expect(bad.status).toBe(400)
    const unknown = await download(teacher.token, UNKNOWN_ID)
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).code).toBe(40401)
  })
})
