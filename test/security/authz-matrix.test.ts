import { describe, expect, test } from 'bun:test'
import type { Account, Res } from '../support/harness.ts'
import {
  brief,
  idFor,
  inChunks,
  liveRoutes,
  NOT_FOUND_CODE,
  pathFor,
  send,
  specOf,
  tokenFor,
  validBody,
  type Access,
  type LiveRoute,
} from './routes.ts'
import { buildWorld, formOf, freshToken, SECRET_MARK, type Side } from './world.ts'

/**
 * Who may do what, for every business route of the live route table, on course A:
 * teacher A, S1 and S3 (students of A), teacher B, S2 (student of B only) and an outsider.
 * Plus: ids of course B addressed under course A are unknown (404), and nothing of B leaks.
 */
const w = await buildWorld()
const { api, A, B } = w
const ALL = liveRoutes(w.ctx.app)

type Caller = 'teacherA' | 'studentS1' | 'peerS3' | 'teacherB' | 'studentS2' | 'outsider'
const CALLERS: Caller[] = ['outsider', 'studentS2', 'teacherB', 'peerS3', 'studentS1', 'teacherA']
const account: Record<Caller, Account> = {
  teacherA: A.teacher,
  studentS1: A.student,
  peerS3: w.s3,
  teacherB: B.teacher,
  studentS2: B.student,
  outsider: w.outsider,
}
const isTeacher = (c: Caller) => c === 'teacherA' || c === 'teacherB'
const inCourseA = (c: Caller) => c === 'teacherA' || c === 'studentS1' || c === 'peerS3'

type Outcome = 'ok' | 403 | 404 | 'skip'

/** `GET /homeworks/mine?courseId=A` is scoped to course A by its query. */
const LEVEL: Record<string, Access> = { 'GET /homeworks/mine': 'member' }

/** The outcome of `caller` on the route, with course A's ids. */
function expected(route: LiveRoute, caller: Caller): Outcome {
  switch (LEVEL[route.key] ?? specOf(route).access) {
    case 'public':
    case 'user':
      return 'ok'
    case 'teacherRole':
      return isTeacher(caller) ? 'ok' : 403
    case 'studentRole':
      // Students outside course A would really join it; they are left out to keep the world intact.
      if (caller === 'studentS2' || caller === 'outsider') return 'skip'
      return isTeacher(caller) ? 403 : 'ok'
    case 'member':
      return inCourseA(caller) ? 'ok' : 403
    case 'teacher':
      return caller === 'teacherA' ? 'ok' : 403
    case 'student':
      return inCourseA(caller) && !isTeacher(caller) ? 'ok' : 403
    case 'owner':
      return caller === 'teacherA' || caller === 'studentS1' ? 'ok' : 403
    case 'self':
      return caller === 'studentS1' ? 'ok' : 404
    case 'author':
      return caller === 'studentS1' ? 'ok' : caller === 'teacherA' ? 403 : 404
    case 'importer':
      return caller === 'teacherA' ? 'ok' : isTeacher(caller) ? 404 : 403
  }
}

/** A fresh row of course A for routes that delete what they name. */
async function throwaway(param: string, route: LiveRoute): Promise<string> {
  const t = { token: A.teacher.token }
  const base = `/courses/${A.course.id}`
  let r: Res
  switch (param) {
    case 'announcementId':
      r = await api.post(`${base}/announcements`, { ...t, json: { title: 'Temp', content: '<p>x</p>' } })
      break
    case 'unitId':
      r = await api.post(`${base}/learning/units`, { ...t, json: { title: 'Temp unit' } })
      break
    case 'pointId':
      r = await api.post(`${base}/learning/units/${A.unit.id}/points`, { ...t, json: { title: 'Temp point' } })
      break
    case 'taskId':
      r = await api.post(`${base}/learning/points/${A.point.id}/tasks`, {
        ...t,
        json: { title: 'Temp task', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>x</p>' },
      })
      break
    case 'experimentId':
      r = await api.post(`${base}/experiments`, { ...t, json: { title: 'Temp lab', description: '<p>x</p>', dueAt: new Date(Date.now() + 86400_000).toISOString() } })
      break
    case 'resourceId':
      r = await api.post(`${base}/resources`, { ...t, form: formOf({ name: 'Temp', type: 'LINK', externalUrl: 'https://example.test' }) })
      break
    case 'userId': {
      // A fresh co-teacher or student of course A, straight in the database.
      const id = crypto.randomUUID()
      const username = `tmp${id.slice(0, 8)}`
      const teacher = route.path.includes('/teachers/')
      await w.sql`insert into users (id, username, email, password_hash, display_name, role)
                  values (${id}, ${username}, ${username + '@example.test'}, 'x', ${username}, ${teacher ? 'TEACHER' : 'STUDENT'})`
      if (teacher) await w.sql`insert into course_teachers (course_id, user_id, added_at) values (${A.course.id}, ${id}, now())`
      else await w.sql`insert into course_members (course_id, user_id) values (${A.course.id}, ${id})`
      return id
    }
    case 'invitationId': {
      const email = `tmp-${crypto.randomUUID()}@example.test`
      await api.post(`${base}/roster`, { ...t, json: { emails: [email] } })
      const [row] = await w.sql<{ id: string }[]>`select id from course_invitations where course_id = ${A.course.id} and email = ${email}`
      return row!.id
    }
    case 'commentId': {
      // A private comment of S1, straight in the database (posting is rate-limited per user).
      const id = crypto.randomUUID()
      await w.sql`insert into comments (id, course_id, task_id, student_id, author_id, content, created_at)
                  values (${id}, ${A.course.id}, ${A.textTask.id}, ${A.student.id}, ${A.student.id}, '<p>temp</p>', now())`
      return id
    }
    case 'toolId':
      r = await api.post(`${base}/lti/tools`, {
        ...t,
        json: { name: 'Temp tool', loginUrl: 'https://tool.test/login', launchUrl: 'https://tool.test/', jwksUrl: 'https://tool.test/keys' },
      })
      break
    case 'sessionId': {
      // A second session of S1 (the session route's owner).
      const token = await freshToken(api, A.student)
      return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid
    }
    default:
      throw new Error(`no throwaway ${param}`)
  }
  if (r.status !== 201) throw new Error(`throwaway ${param}: ${r.status}`)
  return r.data.id
}

/** Text of course B (and of its people) that must never reach anyone outside it. */
const secretsOf = (s: Side) => [
  SECRET_MARK,
  s.course.title,
  s.unit.title,
  s.point.title,
  s.textTask.title,
  s.quiz.title,
  s.experiment.title,
  s.resource.name,
  s.announcement.title,
  s.student.username,
  s.student.email,
]
const leaked = (r: Res, s: Side) => secretsOf(s).filter((x) => JSON.stringify(r.body).includes(x))

/** Everything of course A a refused call could change, so refusals can assert nothing changed. */
async function digestOfA(): Promise<string> {
  const sql = w.ctx.deps.sql
  const id = A.course.id
  const rows = await Promise.all([
    sql`select * from courses where id = ${id}`,
    sql`select user_id from course_members where course_id = ${id} order by user_id`,
    sql`select * from announcements where course_id = ${id} order by id`,
    sql`select * from learning_units where course_id = ${id} order by id`,
    sql`select * from knowledge_points where course_id = ${id} order by id`,
    sql`select * from learning_tasks where course_id = ${id} order by id`,
    sql`select * from learning_submissions where course_id = ${id} order by id`,
    sql`select * from experiments where course_id = ${id} order by id`,
    sql`select * from experiment_submissions where course_id = ${id} order by id`,
    sql`select * from course_resources where course_id = ${id} order by id`,
    sql`select * from workspace_modules where course_id = ${id} order by module_key`,
  ])
  return JSON.stringify(rows)
}

async function call(route: LiveRoute, caller: Account, replace: Record<string, string> = {}) {
  const token = await tokenFor(route, caller, w)
  return send(api, route, pathFor(route, A, replace), { ...(await validBody(route, A, w)), token }, w)
}

describe('the permission matrix on course A', () => {
  const routes = ALL.filter((r) => specOf(r).access !== 'public')

  test('covers the routes of the live table', () => {
    expect(routes.length).toBeGreaterThanOrEqual(48)
  })

  test.each(routes.map((r) => [r.key, r] as const))('%s', async (_key, route) => {
    const deletes = route.method === 'DELETE'
    const replace: Record<string, string> = {}
    if (deletes) for (const p of route.params.filter((p) => p !== 'courseId')) replace[p] = await throwaway(p, route)
    const failures: unknown[] = []
    const writes = route.method !== 'GET'
    const before = writes ? await digestOfA() : ''
    let checked = !writes
    // Sequential, the permitted callers last: a refused DELETE must leave the row for teacher A
    // (or for S1, on a route only S1 may call).
    const permittedLast = [...CALLERS].sort((a, b) => Number(expected(route, a) === 'ok') - Number(expected(route, b) === 'ok'))
    for (const caller of permittedLast) {
      const want = expected(route, caller)
      if (want === 'skip') continue
      if (want === 'ok' && !checked) {
        // Every refusal so far (403/404) left course A exactly as it was.
        checked = true
        if ((await digestOfA()) !== before) failures.push({ refusedCallersChangedData: true })
      }
      const r = await call(route, account[caller], replace)
      const got = { caller, ...brief(r) }
      if (want === 'ok') {
        if (r.status !== specOf(route).ok || (r.code !== 0 && r.code !== undefined)) failures.push({ want, ...got })
      } else {
        const code = want === 403 ? 40300 : (NOT_FOUND_CODE[route.params.at(-1) ?? ''] ?? NOT_FOUND_CODE.notificationId)
        if (r.status !== want || r.code !== code || r.data !== null) failures.push({ want, ...got })
        else if (!inCourseA(caller) && leaked(r, A).length) failures.push({ leaked: leaked(r, A), ...got })
      }
    }
    expect(failures).toEqual([])
  })
})

/**
 * Issue 17, finding 5: a caller who may not call a route is refused whatever the body holds;
 * validation messages are only for callers who may call it. Every cell of the matrix with a
 * body is sent again with an invalid one (wrong types, and a bare number).
 */
describe('the permission matrix with an invalid body in every cell', () => {
  const withBody = ALL.filter((r) => specOf(r).access !== 'public' && (specOf(r).json || specOf(r).form))
  const invalid = (route: LiveRoute): { json?: unknown; form?: FormData }[] => {
    if (specOf(route).form) {
      const f = new FormData()
      f.append('type', 12345 as unknown as string)
      return [{ form: f }]
    }
    return [{ json: { title: 12345, score: 'x', inviteCode: 7, content: [], orderedTaskIds: 'x', modules: 1 } }, { json: 12345 }]
  }

  test('covers every route with a body', () => {
    expect(withBody.length).toBeGreaterThanOrEqual(20)
  })

  test.each(withBody.map((r) => [r.key, r] as const))('%s', async (_key, route) => {
    const failures: unknown[] = []
    const before = await digestOfA()
    for (const caller of CALLERS) {
      const want = expected(route, caller)
      if (want === 'skip' || want === 'ok') continue
      for (const body of invalid(route)) {
        const token = await tokenFor(route, account[caller], w)
        const r = await send(api, route, pathFor(route, A), { ...body, token }, w)
        const code = want === 403 ? 40300 : (NOT_FOUND_CODE[route.params.at(-1) ?? ''] ?? NOT_FOUND_CODE.notificationId)
        if (r.status !== want || r.code !== code || r.data !== null) failures.push({ caller, want, body: body.json ?? 'form', ...brief(r) })
      }
    }
    if ((await digestOfA()) !== before) failures.push({ refusedCallersChangedData: true })
    // The refused callers are refused; the permitted one still learns what is wrong.
    const permitted = CALLERS.find((c) => expected(route, c) === 'ok')
    if (permitted) {
      const r = await send(api, route, pathFor(route, A), { ...invalid(route)[0], token: await tokenFor(route, account[permitted], w) }, w)
      if (r.status !== 400) failures.push({ caller: permitted, want: 400, ...brief(r) })
    }
    expect(failures).toEqual([])
  })

  test('a student PATCHing an announcement with {"title":12345} → 403, and the announcement is unchanged', async () => {
    const path = `/courses/${A.course.id}/announcements/${A.announcement.id}`
    const before = await api.get(`/courses/${A.course.id}/announcements`, { token: A.teacher.token })
    const r = await api.patch(path, { token: A.student.token, json: { title: 12345 } })
    expect(brief(r)).toMatchObject({ status: 403, code: 40300 })
    const after = await api.get(`/courses/${A.course.id}/announcements`, { token: A.teacher.token })
    expect(after.data).toEqual(before.data)
  })
})

describe('ids of course B addressed under course A → 404, nothing of B in the answer', () => {
  const mixed = ALL.filter((r) => r.params.includes('courseId') && r.params.length > 1)

  test('covers every course route with a second id', () => {
    expect(mixed.length).toBeGreaterThanOrEqual(18)
  })

  test.each(mixed.map((r) => [r.key, r] as const))('%s', async (_key, route) => {
    const access = specOf(route).access
    // The course's own people: its teacher, and for member/student routes its student too.
    const callers = access === 'teacher' ? [A.teacher] : access === 'student' ? [A.student] : [A.teacher, A.student]
    const failures: unknown[] = []
    for (const param of route.params.filter((p) => p !== 'courseId')) {
      for (const caller of callers) {
        const r = await call(route, caller, { [param]: idFor(route, param, B) })
        if (r.status !== 404 || r.code !== NOT_FOUND_CODE[param] || r.data !== null) failures.push({ param, who: caller.username, ...brief(r) })
        if (leaked(r, B).length) failures.push({ param, leaked: leaked(r, B) })
      }
    }
    expect(failures).toEqual([])
  })

  test('the reverse: course B’s people cannot reach course A’s rows through course B', async () => {
    const failures: unknown[] = []
    await inChunks(mixed, 8, async (route) => {
      for (const param of route.params.filter((p) => p !== 'courseId')) {
        const caller = specOf(route).access === 'student' ? B.student : B.teacher
        const path = pathFor(route, B, { [param]: idFor(route, param, A) })
        const r = await send(api, route, path, { ...(await validBody(route, B, w)), token: await tokenFor(route, caller, w) }, w)
        if (r.status !== 404 || r.code !== NOT_FOUND_CODE[param]) failures.push({ route: route.key, param, ...brief(r) })
        if (leaked(r, A).length) failures.push({ route: route.key, param, leaked: leaked(r, A) })
      }
    })
    expect(failures).toEqual([])
  })
})

describe('ids of another kind (type confusion) → 404', () => {
  const withIds = ALL.filter((r) => r.params.some((p) => p !== 'courseId'))

  test.each(withIds.map((r) => [r.key, r] as const))('%s', async (_key, route) => {
    const caller = ['student', 'owner', 'self', 'author'].includes(specOf(route).access) ? A.student : A.teacher
    const failures: unknown[] = []
    for (const param of route.params.filter((p) => p !== 'courseId')) {
      // Course A's own id, and ids of other kinds of row in course A.
      for (const other of [A.course.id, A.announcement.id, A.experimentSubmission.id, A.notification.id, A.resource.id]) {
        if (other === idFor(route, param, A)) continue
        const r = await call(route, caller, { [param]: other })
        if (r.status !== 404 || r.code !== NOT_FOUND_CODE[param]) failures.push({ param, other, ...brief(r) })
      }
    }
    expect(failures).toEqual([])
  })

  test('a learning task that is not a homework has no reminders (404)', async () => {
    const r = await api.get(`/courses/${A.course.id}/homeworks/${A.textTask.id}/reminders`, { token: A.teacher.token })
    expect({ status: r.status, code: r.code, data: r.data }).toEqual({ status: 404, code: 40404, data: null })
  })

  test('a learning submission cannot be graded through the experiment route, nor the reverse', async () => {
    const viaExperiment = await api.patch(`/submissions/${A.learningSubmission.id}/grade`, { token: A.teacher.token, json: { score: 1 } })
    expect({ status: viaExperiment.status, code: viaExperiment.code }).toEqual({ status: 404, code: 40405 })
    const viaLearning = await api.patch(`/courses/${A.course.id}/learning/submissions/${A.experimentSubmission.id}/grade`, {
      token: A.teacher.token,
      json: { score: 1 },
    })
    expect({ status: viaLearning.status, code: viaLearning.code }).toEqual({ status: 404, code: 40405 })
  })
})

describe('students see only their own work', () => {
  const S1 = A.student
  const S3 = w.s3
  const tasks = `/courses/${A.course.id}/learning/tasks`

  test('task submissions: the teacher sees S1’s, S3 sees only their own, even when asking for S1’s', async () => {
    const mine = await api.post(`${tasks}/${A.homework.id}/submissions`, { token: S3.token, json: { content: '<p>S3 answer</p>' } })
    expect(mine.status).toBe(201)
    const teacher = await api.get(`${tasks}/${A.homework.id}/submissions?pageSize=200`, { token: A.teacher.token })
    expect(teacher.status).toBe(200)
    expect(teacher.data.items.map((s: { id: string }) => s.id)).toContain(A.learningSubmission.id)
    for (const query of ['', `?studentId=${S1.id}`]) {
      const r = await api.get(`${tasks}/${A.homework.id}/submissions${query}`, { token: S3.token })
      expect({ query, status: r.status, code: r.code }).toEqual({ query, status: 200, code: 0 })
      expect(r.data.items.length).toBeGreaterThan(0)
      expect(new Set(r.data.items.map((s: { student: { id: string } }) => s.student.id))).toEqual(new Set([S3.id]))
      expect(JSON.stringify(r.data)).not.toContain(A.learningSubmission.id)
    }
  })

  test('experiment submissions: S3 lists only their own, gets their own latest, cannot download S1’s file', async () => {
    const list = await api.get(`/experiments/${A.experiment.id}/submissions`, { token: S3.token })
    expect({ status: list.status, code: list.code }).toEqual({ status: 200, code: 0 })
    expect(list.data.items.every((s: { student: { id: string } }) => s.student.id === S3.id)).toBe(true)
    expect(JSON.stringify(list.data)).not.toContain(A.experimentSubmission.id)

    const latest = await api.get(`/experiments/${A.experiment.id}/submissions/latest`, { token: S3.token })
    expect(latest.status).toBe(200)
    expect(latest.data === null || latest.data.student.id === S3.id).toBe(true)

    const detail = await api.get(`/courses/${A.course.id}/experiments/${A.experiment.id}`, { token: S3.token })
    expect(detail.status).toBe(200)
    expect(detail.data.mySubmission === null || detail.data.mySubmission.student.id === S3.id).toBe(true)

    for (const who of [S3, B.teacher, B.student, w.outsider]) {
      const file = await api.get(`/submissions/${A.experimentSubmission.id}/file`, { token: who.token })
      expect({ who: who.username, status: file.status, code: file.code }).toEqual({ who: who.username, status: 403, code: 40300 })
    }
    const own = await api.get(`/submissions/${A.experimentSubmission.id}/file`, { token: S1.token })
    expect(own.status).toBe(200)
    expect(own.body).toBe('report of A')
  })

  test('grades: the learning overview shows a student only their own row; the grade overview is the teacher’s', async () => {
    const teacher = await api.get(`/courses/${A.course.id}/learning/overview`, { token: A.teacher.token })
    expect(teacher.status).toBe(200)
    expect(teacher.data.students.map((s: { userId: string }) => s.userId).sort()).toEqual([S1.id, S3.id].sort())
    const peer = await api.get(`/courses/${A.course.id}/learning/overview`, { token: S3.token })
    expect(peer.status).toBe(200)
    expect(peer.data.students.map((s: { userId: string }) => s.userId)).toEqual([S3.id])

    for (const path of ['/grades/overview', '/grades/overview.csv']) {
      const r = await api.get(`/courses/${A.course.id}${path}`, { token: S3.token })
      expect({ path, status: r.status, code: r.code }).toEqual({ path, status: 403, code: 40300 })
    }
  })

  test('homework: a student sees their own status and score only, never the teacher’s counts', async () => {
    const submitted = await api.post(`${tasks}/${A.homework.id}/submissions`, { token: S1.token, json: { content: '<p>done</p>' } })
    expect(submitted.status).toBe(201)
    const graded = await api.patch(`/courses/${A.course.id}/learning/submissions/${submitted.data.id}/grade`, {
      token: A.teacher.token,
      json: { score: 77 },
    })
    expect(graded.status).toBe(200)
    const item = async (who: Account) => {
      const r = await api.get(`/courses/${A.course.id}/homeworks`, { token: who.token })
      expect(r.status).toBe(200)
      return r.data.items.find((i: { taskId: string }) => i.taskId === A.homework.id)
    }
    expect(await item(S1)).toMatchObject({ status: 'SUBMITTED', score: 77 })
    const peer = await item(S3)
    // S3 may have handed in an ungraded sheet of its own (the task-submissions test above): its own status, never S1's.
    const own = await api.get(`${tasks}/${A.homework.id}/submissions`, { token: S3.token })
    const handedIn = own.data.items.length > 0
    expect(peer).toMatchObject({ status: handedIn ? 'SUBMITTED' : 'IN_PROGRESS', submittedAt: handedIn ? expect.any(String) : null, score: null })
    expect(peer).not.toHaveProperty('submittedCount')
    expect(peer).not.toHaveProperty('studentCount')
    expect(await item(A.teacher)).toMatchObject({ submittedCount: expect.any(Number), studentCount: 2 })
  })

  test('notifications: nobody sees or marks another user’s', async () => {
    const published = await api.post(`/courses/${A.course.id}/announcements`, {
      token: A.teacher.token,
      json: { title: 'For the inbox', content: '<p>x</p>' },
    })
    expect(published.status).toBe(201)
    const inbox = async (who: Account) => (await api.get('/notifications?pageSize=200', { token: who.token })).data.items as { id: string; readAt: string | null }[]
    const s1Newest = (await inbox(S1))[0]!
    expect(s1Newest.readAt).toBeNull()
    const peerIds = (await inbox(S3)).map((n) => n.id)
    expect(peerIds).not.toContain(s1Newest.id)
    for (const who of [S3, A.teacher, B.student, w.outsider]) {
      const r = await api.patch(`/notifications/${s1Newest.id}/read`, { token: who.token })
      expect({ who: who.username, status: r.status, code: r.code, data: r.data }).toEqual({ who: who.username, status: 404, code: 40408, data: null })
      expect((await api.patch('/notifications/read-all', { token: who.token })).status).toBe(200)
    }
    expect((await inbox(S1)).find((n) => n.id === s1Newest.id)!.readAt).toBeNull()
  })
})

describe('teacher-only data stays with the teacher', () => {
  const S1 = A.student

  test('the invite code (and joiningOpen) only for the course’s teacher', async () => {
    const teacher = await api.get(`/courses/${A.course.id}`, { token: A.teacher.token })
    expect(teacher.data.inviteCode).toEqual(expect.any(String))
    expect(typeof teacher.data.joiningOpen).toBe('boolean')
    const [detail, list, join] = await Promise.all([
      api.get(`/courses/${A.course.id}`, { token: S1.token }),
      api.get('/courses', { token: S1.token }),
      api.post('/courses/join', { token: S1.token, json: { inviteCode: teacher.data.inviteCode } }),
    ])
    expect([detail.status, list.status, join.status]).toEqual([200, 200, 200])
    for (const course of [detail.data, list.data.find((c: { id: string }) => c.id === A.course.id), join.data]) {
      expect(course).toBeDefined()
      expect(course).not.toHaveProperty('inviteCode')
      expect(course).not.toHaveProperty('joiningOpen')
    }
    expect(JSON.stringify([detail.body, list.body, join.body])).not.toContain(teacher.data.inviteCode)
  })

  test('quiz answer keys: the teacher gets correctOptions, students never (task, tree, submission)', async () => {
    const quizPath = `/courses/${A.course.id}/learning/tasks/${A.quiz.id}`
    const teacher = await api.get(quizPath, { token: A.teacher.token })
    expect(teacher.data.questions[0].correctOptions).toEqual([1])

    const [task, tree, submission] = await Promise.all([
      api.get(quizPath, { token: S1.token }),
      api.get(`/courses/${A.course.id}/learning`, { token: S1.token }),
      api.post(`${quizPath}/submissions`, { token: S1.token, json: { answers: [{ questionId: A.quiz.questionId, selectedOptions: [0] }] } }),
    ])
    expect([task.status, tree.status, submission.status]).toEqual([200, 200, 201])
    expect(task.data.questions).toHaveLength(1)
    expect(task.data.questions[0]).not.toHaveProperty('correctOptions')
    for (const body of [task.body, tree.body, submission.body]) expect(JSON.stringify(body)).not.toContain('correctOptions')
    expect(submission.data).toMatchObject({ autoScore: 0, status: 'GRADED' })
  })

  test('no response to anyone carries a password hash or another user’s email', async () => {
    const gets = ALL.filter((r) => r.method === 'GET' && r.key !== 'GET /auth/me')
    const emails = [A.teacher, A.student, w.s3, B.teacher, B.student, w.outsider].map((a) => a.email.toLowerCase())
    const failures: unknown[] = []
    for (const who of [A.teacher, A.student, w.s3]) {
      await inChunks(gets, 10, async (route) => {
        const r = await send(api, route, pathFor(route, A), { token: who.token }, w)
        const text = (typeof r.body === 'string' ? r.body : JSON.stringify(r.body)).toLowerCase()
        if (r.status >= 500) failures.push({ route: route.key, who: who.username, ...brief(r) })
        // GET /auth/providers answers `password: true|false` (is password login on): a switch, not a secret.
        const scanned = route.key === 'GET /auth/providers' ? text.replace(/"password":(true|false)/, '') : text
        if (/\$argon2|password/.test(scanned)) failures.push({ route: route.key, who: who.username, hash: true })
        const seen = emails.filter((e) => text.includes(e))
        if (seen.length) failures.push({ route: route.key, who: who.username, emails: seen })
      })
    }
    expect(failures).toEqual([])
  })
})

describe('bodies cannot reach into another course', () => {
  const T = { token: A.teacher.token }
  const base = `/courses/${A.course.id}`

  test('a FILE task cannot use a resource of course B', async () => {
    const r = await api.post(`${base}/learning/points/${A.point.id}/tasks`, {
      ...T,
      json: { title: 'Borrowed', taskType: 'MEDIA', materialType: 'FILE', resourceId: B.resource.id },
    })
    expect({ status: r.status, code: r.code }).toEqual({ status: 400, code: 40001 })
    expect(r.data.fields.map((f: { field: string }) => f.field)).toEqual(['resourceId'])
    expect(leaked(r, B)).toEqual([])
  })

  test('a quiz answer cannot name a question of course B’s quiz', async () => {
    const r = await api.post(`${base}/learning/tasks/${A.quiz.id}/submissions`, {
      token: A.student.token,
      json: { answers: [{ questionId: B.quiz.questionId, selectedOptions: [1] }] },
    })
    expect({ status: r.status, code: r.code }).toEqual({ status: 400, code: 40001 })
    expect(r.data.fields.map((f: { field: string }) => f.field)).toEqual(['answers.0.questionId'])
  })

  test('a reorder cannot pull in a task of course B', async () => {
    const ids = (await w.sql<{ id: string }[]>`select id from learning_tasks where point_id = ${A.point.id} order by sort_order`).map((r) => r.id)
    const r = await api.patch(`${base}/learning/points/${A.point.id}/tasks/order`, { ...T, json: { orderedTaskIds: [...ids.slice(1), B.textTask.id] } })
    expect({ status: r.status, code: r.code }).toEqual({ status: 400, code: 40001 })
    const [moved] = await w.sql<{ point_id: string }[]>`select point_id from learning_tasks where id = ${B.textTask.id}`
    expect(moved!.point_id).toBe(B.point.id)
  })
})

describe('mass assignment: fields the caller may not set are ignored', () => {
  const T = { token: A.teacher.token }
  const base = `/courses/${A.course.id}`

  test('a course keeps its id and teacher; the invite code is not set by the body', async () => {
    const r = await api.patch(base, { ...T, json: { title: A.course.title, id: B.course.id, teacherId: B.teacher.id, inviteCode: 'AAAAAAAA' } })
    expect({ status: r.status, code: r.code }).toEqual({ status: 200, code: 0 })
    expect(r.data).toMatchObject({ id: A.course.id, teacher: { id: A.teacher.id } })
    expect(r.data.inviteCode).not.toBe('AAAAAAAA')
  })

  test('a task stays in its course and point', async () => {
    const r = await api.patch(`${base}/learning/tasks/${A.textTask.id}`, {
      ...T,
      json: { title: A.textTask.title, id: B.textTask.id, courseId: B.course.id, pointId: B.point.id },
    })
    expect({ status: r.status, code: r.code }).toEqual({ status: 200, code: 0 })
    expect(r.data).toMatchObject({ id: A.textTask.id, courseId: A.course.id, pointId: A.point.id })
  })

  test('a student cannot submit as someone else, grade themselves or file under another course', async () => {
    const r = await api.post(`${base}/learning/tasks/${A.homework.id}/submissions`, {
      token: A.student.token,
      json: { content: '<p>x</p>', studentId: w.s3.id, score: 100, autoScore: 100, status: 'GRADED', courseId: B.course.id },
    })
    expect({ status: r.status, code: r.code }).toEqual({ status: 201, code: 0 })
    expect(r.data).toMatchObject({ student: { id: A.student.id }, courseId: A.course.id, score: null, status: 'SUBMITTED' })

    const file = await api.post(`/experiments/${A.experiment.id}/submissions`, {
      token: A.student.token,
      form: formOf({ file: new File(['x'], 'x.txt'), studentId: w.s3.id, score: '100', experimentId: B.experiment.id }),
    })
    expect({ status: file.status, code: file.code }).toEqual({ status: 201, code: 0 })
    expect(file.data).toMatchObject({ student: { id: A.student.id }, experimentId: A.experiment.id, score: null })
  })

  test('registration ignores id, createdAt and a password hash', async () => {
    const username = `mass${Date.now().toString(36)}`
    const r = await api.post('/auth/register', {
      json: { username, email: `${username}@example.test`, password: 'correct horse', id: B.teacher.id, createdAt: '2000-01-01T00:00:00Z', passwordHash: 'x' },
    })
    expect({ status: r.status, code: r.code }).toEqual({ status: 201, code: 0 })
    expect(r.data.id).not.toBe(B.teacher.id)
    expect(r.data.createdAt).not.toStartWith('2000')
    const login = await api.post('/auth/login', { json: { identifier: username, password: 'correct horse' } })
    expect(login.status).toBe(200)
  })

  test('an announcement or a module setting cannot be written into course B', async () => {
    const ann = await api.post(`${base}/announcements`, { ...T, json: { title: 'Mine', content: '<p>c</p>', courseId: B.course.id, authorId: B.teacher.id } })
    expect({ status: ann.status, code: ann.code }).toEqual({ status: 201, code: 0 })
    expect(ann.data).toMatchObject({ courseId: A.course.id, author: { id: A.teacher.id } })

    const before = await api.get(`/courses/${B.course.id}/workspace/modules`, { token: B.teacher.token })
    const put = await api.put(`${base}/workspace/modules`, {
      ...T,
      json: { courseId: B.course.id, modules: [{ moduleKey: 'GRADES', enabled: false, sortOrder: 7, courseId: B.course.id }] },
    })
    expect({ status: put.status, code: put.code }).toEqual({ status: 200, code: 0 })
    const after = await api.get(`/courses/${B.course.id}/workspace/modules`, { token: B.teacher.token })
    expect(after.data).toEqual(before.data)
  })
})
