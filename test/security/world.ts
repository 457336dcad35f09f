import { strToU8, zipSync } from 'fflate'
import type { Sql } from '../../src/db/connect.ts'
import { signUp, testApp, type Account, type Client, type TestContext } from '../support/harness.ts'

/**
 * The world every security test runs against, built through the HTTP API only:
 *
 *   teacher A ── course A: unit, point, a text task, a homework, a quiz, an experiment,
 *                a FILE resource, an announcement; student S1 has a learning submission (with a file),
 *                an experiment submission and notifications. S3 is a second student of A.
 *   teacher B ── course B: the same set; student S2 is a member of B only.
 *   outsider  ── a student of no course.
 */
export interface Side {
  teacher: Account
  student: Account
  course: { id: string; title: string; inviteCode: string }
  unit: { id: string; title: string }
  point: { id: string; title: string }
  textTask: { id: string; title: string }
  homework: { id: string; title: string }
  quiz: { id: string; title: string; questionId: string }
  experiment: { id: string; title: string }
  resource: { id: string; name: string }
  announcement: { id: string; title: string }
  learningSubmission: { id: string }
  experimentSubmission: { id: string }
  /** One of the side's student's notifications. */
  notification: { id: string }
  /** A pending roster invitation of the course. */
  invitation: { id: string }
  /** The student's private comment on the text task. */
  comment: { id: string }
  /** A course import the side's teacher started. */
  courseImport: { id: string }
  /** An LTI tool registered for the course, and an LTI task opening it (issue 52). */
  ltiTool: { id: string }
  ltiTask: { id: string }
}

/** The smallest Common Cartridge (a manifest with an empty organization), zipped. */
export const tinyCartridge = () =>
  zipSync({ 'imsmanifest.xml': strToU8('<?xml version="1.0"?><manifest identifier="m"><organizations/><resources/></manifest>') }) as Uint8Array<ArrayBuffer>

export interface World {
  ctx: TestContext
  api: Client
  sql: Sql
  A: Side
  B: Side
  /** A second student of course A (a peer of S1). */
  s3: Account
  outsider: Account
  /** An account only used as the subject of login requests (fuzzed logins may throttle it). */
  loginTarget: Account
  /** An account whose fresh sessions are spent by logout requests. */
  spender: Account
}

export const SECRET_MARK = 'TOPSECRET'

function must(res: { status: number; body: unknown }, status: number, what: string) {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`)
}

export function formOf(fields: Record<string, string | Blob | File>) {
  const f = new FormData()
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  return f
}

async function buildSide(api: Client, teacher: Account, student: Account, label: string, peers: Account[] = []): Promise<Side> {
  const tok = { token: teacher.token }
  const c = await api.post('/courses', { ...tok, json: { title: `Course ${label} ${SECRET_MARK}`, description: `About ${label}` } })
  must(c, 201, 'course')
  const course = { id: c.data.id as string, title: c.data.title as string, inviteCode: c.data.inviteCode as string }
  for (const s of [student, ...peers]) must(await api.post('/courses/join', { token: s.token, json: { inviteCode: course.inviteCode } }), 200, 'join')
  const base = `/courses/${course.id}/learning`

  const u = await api.post(`${base}/units`, { ...tok, json: { title: `Unit ${label}` } })
  must(u, 201, 'unit')
  const p = await api.post(`${base}/units/${u.data.id}/points`, { ...tok, json: { title: `Point ${label}` } })
  must(p, 201, 'point')
  const tasks = `${base}/points/${p.data.id}/tasks`
  const now = Date.now()
  const [text, hw, quiz, exp, res, ann] = await Promise.all([
    api.post(tasks, { ...tok, json: { title: `Text ${label}`, taskType: 'MEDIA', materialType: 'TEXT', content: `<p>Read ${label}</p>` } }),
    api.post(tasks, {
      ...tok,
      json: {
        title: `Homework ${label}`,
        taskKind: 'HOMEWORK',
        taskType: 'MEDIA',
        materialType: 'TEXT',
        content: '<p>Do it</p>',
        startAt: new Date(now - 3600_000).toISOString(),
        dueAt: new Date(now + 7 * 86400_000).toISOString(),
      },
    }),
    api.post(tasks, {
      ...tok,
      json: {
        title: `Quiz ${label}`,
        taskType: 'QUIZ',
        questions: [{ type: 'SINGLE_CHOICE', stem: 'Pick B', options: ['A', 'B', 'C'], correctOptions: [1] }],
      },
    }),
    api.post(`/courses/${course.id}/experiments`, {
      ...tok,
      json: { title: `Experiment ${label}`, description: '<p>Measure</p>', dueAt: new Date(now + 7 * 86400_000).toISOString() },
    }),
    api.post(`/courses/${course.id}/resources`, {
      ...tok,
      form: formOf({ name: `Slides ${label}`, type: 'FILE', file: new File([`slides of ${label}`], 'slides.txt', { type: 'text/plain' }) }),
    }),
    api.post(`/courses/${course.id}/announcements`, { ...tok, json: { title: `News ${label}`, content: '<p>Welcome</p>' } }),
  ])
  must(text, 201, 'text task')
  must(hw, 201, 'homework')
  must(quiz, 201, 'quiz')
  must(exp, 201, 'experiment')
  must(res, 201, 'resource')
  must(ann, 201, 'announcement')

  const st = { token: student.token }
  const [ls, es] = await Promise.all([
    // Reading material takes no answers (409 40909): the sheet is handed in to the homework.
    api.post(`${base}/tasks/${hw.data.id}/submissions`, {
      ...st,
      form: formOf({ content: `<p>My answer ${label}</p>`, files: new File([`page of ${label}`], 'page.jpg', { type: 'image/jpeg' }) }),
    }),
    api.post(`/experiments/${exp.data.id}/submissions`, {
      ...st,
      form: formOf({ file: new File([`report of ${label}`], 'report.txt', { type: 'text/plain' }), note: `note ${label}` }),
    }),
  ])
  must(ls, 201, 'learning submission')
  must(es, 201, 'experiment submission')
  const inbox = await api.get('/notifications', st)
  must(inbox, 200, 'inbox')
  if (!inbox.data.items.length) throw new Error('the student has no notification')
  must(await api.post(`/courses/${course.id}/roster`, { ...tok, json: { emails: [`invitee-${label.toLowerCase()}-${course.id}@example.test`] } }), 200, 'roster')
  const invitations = await api.get(`/courses/${course.id}/roster/invitations`, tok)
  must(invitations, 200, 'invitations')
  const comment = await api.post(`${base}/tasks/${text.data.id}/students/${student.id}/comments`, { ...st, json: { content: `<p>Question ${label}</p>` } })
  must(comment, 201, 'comment')
  const courseImport = await api.post('/courses/imports', { ...tok, form: formOf({ file: new File([tinyCartridge()], 'course.imscc') }) })
  must(courseImport, 202, 'course import')
  const tool = await api.post(`/courses/${course.id}/lti/tools`, {
    ...tok,
    json: { name: `Tool ${label}`, loginUrl: 'https://tool.test/login', launchUrl: 'https://tool.test/launch', jwksUrl: 'https://tool.test/keys' },
  })
  must(tool, 201, 'lti tool')
  const ltiTask = await api.post(tasks, { ...tok, json: { title: `Tool task ${label}`, taskType: 'LTI', lti: { toolId: tool.data.id } } })
  must(ltiTask, 201, 'lti task')

  return {
    teacher,
    student,
    course,
    unit: { id: u.data.id, title: u.data.title },
    point: { id: p.data.id, title: p.data.title },
    textTask: { id: text.data.id, title: text.data.title },
    homework: { id: hw.data.id, title: hw.data.title },
    quiz: { id: quiz.data.id, title: quiz.data.title, questionId: quiz.data.questions[0].id },
    experiment: { id: exp.data.id, title: exp.data.title },
    resource: { id: res.data.id, name: res.data.name },
    announcement: { id: ann.data.id, title: ann.data.title },
    learningSubmission: { id: ls.data.id },
    experimentSubmission: { id: es.data.id },
    notification: { id: inbox.data.items[0].id },
    invitation: { id: invitations.data.items[0].id },
    comment: { id: comment.data.id },
    courseImport: { id: courseImport.data.id },
    ltiTool: { id: tool.data.id },
    ltiTask: { id: ltiTask.data.id },
  }
}

export async function buildWorld(): Promise<World> {
  // Single sign-on configured, so its routes are live; the provider is unreachable (a closed
  // port): start and callback answer their failure redirect (test/sso/ runs a real provider).
  const ctx = await testApp({
    config: {
      // E-mail configured (nothing sends: no jobs run here), so the account mail routes answer.
      smtpUrl: 'smtp://127.0.0.1:9',
      publicUrl: 'http://localhost',
      oidc: { issuer: 'http://127.0.0.1:9', clientId: 'cls', clientSecret: 'secret', displayName: 'Campus account', scopes: 'openid email profile', teacherRule: undefined },
    },
  })
  const { api } = ctx
  const [tA, tB, s1, s2, s3, outsider, loginTarget, spender] = await Promise.all([
    signUp(api, 'TEACHER', 'Teacher A'),
    signUp(api, 'TEACHER', 'Teacher B'),
    signUp(api, 'STUDENT', 'Student One'),
    signUp(api, 'STUDENT', 'Student Two'),
    signUp(api, 'STUDENT', 'Student Three'),
    signUp(api, 'STUDENT', 'Outsider'),
    signUp(api, 'STUDENT', 'Login target'),
    signUp(api, 'TEACHER', 'Spender'),
  ])
  const [A, B] = await Promise.all([buildSide(api, tA, s1, 'A', [s3]), buildSide(api, tB, s2, 'B')])
  return { ctx, api, sql: ctx.deps.sql, A, B, s3, outsider, loginTarget, spender }
}

/** A fresh session of `account` (for requests that end their session). */
export async function freshToken(api: Client, account: Account): Promise<string> {
  const r = await api.post('/auth/login', { json: { identifier: account.username, password: account.password } })
  must(r, 200, 'login')
  return r.data.accessToken
}
