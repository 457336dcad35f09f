import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import { z } from 'zod'
import { authPlugin, tokenSigner } from '../../src/http/auth.ts'
import { ok } from '../../src/http/envelope.ts'
import { CourseParams } from '../../src/http/params.ts'
import { plumbing } from '../../src/http/plumbing.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { client, signUp, testApp } from '../support/harness.ts'

describe('authorization guards', async () => {
  const { api, deps } = await testApp()
  const probe = new Elysia()
    .use(plumbing({ log: deps.log, methodsFor: () => [], maxUploadBytes: deps.config.maxUploadBytes }))
    .use(authPlugin(deps))
    .get('/teacher-only', ({ user }) => ok(user.id), { role: 'TEACHER' })
    .get('/student-only', ({ user }) => ok(user.id), { role: 'STUDENT' })
    .get('/courses/:courseId/read', ({ course }) => ok(course), { course: 'member', params: CourseParams })
    .get('/courses/:courseId/write', ({ course }) => ok(course), { course: 'teacher', params: CourseParams })
    .post('/teacher-form', ({ body }) => ok(body), { role: 'TEACHER', body: z.object({ title: z.string().min(1) }) })
  const p = client(probe, '')

  const teacher = await signUp(api, 'TEACHER')
  const otherTeacher = await signUp(api, 'TEACHER')
  const student = await signUp(api, 'STUDENT')
  const outsider = await signUp(api, 'STUDENT')
  const course = await insertCourse(deps.sql, teacher.id)
  await addStudent(deps.sql, course.id, student.id)

  test.each([
    ['/teacher-only', undefined, 401],
    ['/teacher-only', 'student', 403],
    ['/teacher-only', 'teacher', 200],
    ['/student-only', 'teacher', 403],
    ['/student-only', 'student', 200],
  ] as const)('%s as %s → %d', async (path, who, status) => {
    const token = who === 'teacher' ? teacher.token : who === 'student' ? student.token : undefined
    const r = await p.get(path, { token })
    expect(r.status).toBe(status)
    expect(r.code).toBe(status === 200 ? 0 : status === 401 ? 40100 : 40300)
  })

  const callers = { anonymous: undefined, teacher: () => teacher.token, otherTeacher: () => otherTeacher.token, student: () => student.token, outsider: () => outsider.token }
  test.each([
    ['read', 'anonymous', 401],
    ['read', 'teacher', 200],
    ['read', 'student', 200],
    ['read', 'otherTeacher', 403],
    ['read', 'outsider', 403],
    ['write', 'teacher', 200],
    ['write', 'student', 403],
    ['write', 'otherTeacher', 403],
  ] as const)('course %s as %s → %d', async (action, who, status) => {
    const r = await p.get(`/courses/${course.id}/${action}`, { token: callers[who]?.() })
    expect(r.status).toBe(status)
    if (status === 200) expect(r.data).toEqual({ id: course.id, title: course.title, teacherId: teacher.id, as: who === 'teacher' ? 'TEACHER' : 'STUDENT', owner: who === 'teacher' })
  })

  test('unknown course → 404; non-UUID id → 400', async () => {
    const unknown = await p.get('/courses/0190a6e0-0000-7000-8000-000000000000/read', { token: student.token })
    expect(unknown.status).toBe(404)
    expect(unknown.code).toBe(40401)
    const bad = await p.get('/courses/not-a-uuid/read', { token: student.token })
    expect(bad.status).toBe(400)
    expect(bad.data.fields[0].field).toBe('courseId')
  })
  test('identity and role are checked before the payload: anonymous → 401, wrong role → 403, then 400', async () => {
    const invalid = { json: { title: 42 } }
    const anonymous = await p.post('/teacher-form', invalid)
    expect([anonymous.status, anonymous.code]).toEqual([401, 40100])
    const wrongRole = await p.post('/teacher-form', { ...invalid, token: student.token })
    expect([wrongRole.status, wrongRole.code]).toEqual([403, 40300])
    const teacherBad = await p.post('/teacher-form', { ...invalid, token: teacher.token })
    expect([teacherBad.status, teacherBad.code]).toEqual([400, 40001])
    expect(teacherBad.data.fields[0].field).toBe('title')
    const good = await p.post('/teacher-form', { json: { title: 'ok' }, token: teacher.token })
    expect([good.status, good.data]).toEqual([200, { title: 'ok' }])
    const anonymousMalformed = await p.post('/teacher-form', { raw: '{not json', headers: { 'content-type': 'application/json' } })
    expect(anonymousMalformed.status).toBe(400) // the body is parsed before anything else can run
  })

  test('a correctly signed token whose session id is not a UUID is a 401, not a database error', async () => {
    const forged = await tokenSigner(deps.config.jwtSecret).sign({ sid: "x' or 1=1 --" })
    const r = await p.get('/teacher-only', { token: forged })
    expect([r.status, r.code]).toEqual([401, 40100])
    const numeric = await tokenSigner(deps.config.jwtSecret).sign({ sid: 12 as unknown as string })
    expect((await p.get('/teacher-only', { token: numeric })).status).toBe(401)
  })
})
