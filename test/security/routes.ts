import type { Account, CallOptions, Client, Res } from '../support/harness.ts'
import { testConfig, uniq } from '../support/harness.ts'
import type { Sql } from '../../src/db/connect.ts'
import { newId } from '../../src/lib/ids.ts'
import { issueLink } from '../../src/modules/links/links.ts'
import { unsubscribeToken } from '../../src/modules/email/tokens.ts'
import { formOf, freshToken, tinyCartridge, type Side, type World } from './world.ts'

/**
 * The catalogue of every business route: who may call it and a valid request for it. The
 * suites enumerate the app's live route table and look each route up here; a route without an
 * entry (or an entry without a route) fails the suite, so a new route cannot escape it.
 */

export const PREFIX = '/api/v1'

export interface LiveRoute {
  method: string
  /** Relative to the `/api/v1` prefix, with `:param` placeholders. */
  path: string
  /** `METHOD /path`, the catalogue key. */
  key: string
  params: string[]
}

/** The business routes under `/api/v1` in the app's route table. */
export function liveRoutes(app: { routes: { method: string; path: string }[] }, prefix = PREFIX): LiveRoute[] {
  return app.routes
    .filter((r) => r.path.startsWith(`${prefix}/`) && r.method !== 'HEAD' && r.method !== 'ALL')
    .map((r) => {
      const path = r.path.slice(prefix.length)
      return { method: r.method, path, key: `${r.method} ${path}`, params: [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!) }
    })
}

/**
 * Who may call a route:
 *   public       anyone (register, login)
 *   user         any logged-in user
 *   teacherRole  any TEACHER account
 *   studentRole  any STUDENT account (joining by invite code)
 *   member       the course's teacher and its students
 *   teacher      the course's teacher
 *   student      a student of the course
 *   owner        the submitting student and the course's teacher
 *   self         the owner of the notification (anyone else: 404)
 *   author       the author of a private comment (S1): the course's teacher 403, anyone else 404
 *   importer     the teacher who started a course import: other teachers 404, students 403 (teachers only)
 */
export type Access = 'public' | 'user' | 'teacherRole' | 'studentRole' | 'member' | 'teacher' | 'student' | 'owner' | 'self' | 'author' | 'importer'

export interface RouteSpec {
  access: Access
  /** Status of a successful call by the authorised caller. */
  ok: number
  json?: (s: Side, w: World) => unknown
  form?: (s: Side, w: World) => FormData
  /** Rich-text fields (sanitised on write). */
  rich?: string[]
  /** Dot paths of enum-valued fields. */
  enums?: string[]
  /** Which of the side's ids fills a path parameter, where the default does not fit. */
  ids?: Record<string, (s: Side) => string>
  /** The call ends the caller's session (logout): it gets a throwaway session each time. */
  spendsSession?: boolean
  /** Query string appended to the path. */
  query?: (s: Side) => string
  /** The JSON body has no string fields (only switches): nothing to oversize. */
  noStrings?: boolean
  /** The call changes the shared world (a student leaves): puts it back, after every call. */
  restore?: (w: World) => Promise<void>
}

/** A TEACHER account made straight in the database (no password hashing): its username. */
async function freshTeacher(w: World): Promise<string> {
  const username = uniq('ct')
  await w.sql`insert into users (id, username, email, password_hash, display_name, role)
              values (${crypto.randomUUID()}, ${username}, ${username + '@example.test'}, 'x', ${username}, 'TEACHER')`
  return username
}

/** A valid link of a throwaway account. */
async function linkFor(sql: Sql, purpose: 'VERIFY_EMAIL' | 'RESET_PASSWORD') {
  const id = newId()
  const username = uniq('link')
  await sql`insert into users (id, username, email, password_hash, display_name, role, created_at)
            values (${id}, ${username}, ${`${username}@example.test`}, 'x', ${username}, 'STUDENT', now())`
  return sql.begin((tx) => issueLink(tx, { userId: id, purpose, email: `${username}@example.test`, ttlSeconds: 3600, now: new Date() }))
}

async function commentBody(w: World) {
  await w.sql`delete from rate_limits where key like 'comments:%'`
  return { content: '<p>A question</p>' }
}

const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString()

export const ROUTES: Record<string, RouteSpec> = {
  // Auth
  'POST /auth/register': {
    access: 'public',
    ok: 201,
    json: () => {
      const username = uniq('reg')
      return { username, email: `${username}@example.test`, password: 'correct horse battery', displayName: 'New user', role: 'STUDENT' }
    },
    enums: ['role'],
  },
  'POST /auth/login': {
    access: 'public',
    ok: 200,
    json: (_s, w) => ({ identifier: w.loginTarget.username, password: w.loginTarget.password }),
  },
  // Single sign-on: anonymous by design (the browser is not logged in yet); start and callback
  // answer redirects, never an envelope.
  'GET /auth/providers': { access: 'public', ok: 200 },
  'GET /auth/oidc/start': { access: 'public', ok: 302, query: () => '?next=%2Fcourses' },
  'GET /auth/oidc/callback': { access: 'public', ok: 302, query: () => '?code=abc&state=def' },
  'GET /auth/me': { access: 'user', ok: 200 },
  'PATCH /auth/me': { access: 'user', ok: 200, json: () => ({ locale: 'en' }), enums: ['locale'] },
  'POST /auth/logout': { access: 'user', ok: 200, spendsSession: true },

  // Accounts (issue 21). Link routes are public: the token is the credential (a fresh one per call).
  'GET /auth/email/settings': { access: 'public', ok: 200 },
  'POST /auth/email/verify': { access: 'public', ok: 200, json: async (_s, w) => ({ token: await linkFor(w.sql, 'VERIFY_EMAIL') }) },
  'POST /auth/password/reset': {
    access: 'public',
    ok: 200,
    json: async (_s, w) => ({ token: await linkFor(w.sql, 'RESET_PASSWORD'), newPassword: 'a new password' }),
  },
  'POST /auth/password/forgot': {
    access: 'public',
    ok: 202,
    // In-process requests have no client address: they share one per-address window, which
    // the suites would fill; each valid request starts it again.
    json: async (_s, w) => {
      await w.sql`delete from rate_limits where key = 'forgot-address:unknown'`
      return { identifier: w.loginTarget.username }
    },
  },
  // Once a minute per user: the matrix asks once per caller.
  'POST /auth/email/verification': { access: 'user', ok: 202 },
  'POST /auth/email/change': {
    access: 'user',
    ok: 202,
    json: async (_s, w) => {
      await w.sql`delete from rate_limits where key like 'change-mail-%'`
      return { newEmail: `${uniq('moved')}@example.test`, currentPassword: 'correct horse battery' }
    },
  },
  // The same password again: the caller's own session stays, the world's tokens keep working.
  'POST /auth/password/change': { access: 'user', ok: 200, json: () => ({ currentPassword: 'correct horse battery', newPassword: 'correct horse battery' }) },
  'GET /auth/sessions': { access: 'user', ok: 200 },
  // The matrix deletes a throwaway session of S1; elsewhere the id names no session.
  'DELETE /auth/sessions/:sessionId': { access: 'self', ok: 200, ids: { sessionId: () => '01900000-0000-7000-8000-000000000000' } },

  // Courses
  'POST /courses': { access: 'teacherRole', ok: 201, json: () => ({ title: 'Fuzzed course', description: 'plain' }) },
  'GET /courses': { access: 'user', ok: 200 },
  'POST /courses/join': {
    access: 'studentRole',
    ok: 200,
    // The invite code may have been rotated by an earlier request.
    json: async (s, w) => {
      const [row] = await w.sql<{ invite_code: string }[]>`select invite_code from courses where id = ${s.course.id}`
      return { inviteCode: row!.invite_code }
    },
  },
  'GET /courses/:courseId': { access: 'member', ok: 200 },
  'PATCH /courses/:courseId': { access: 'teacher', ok: 200, json: (s) => ({ title: s.course.title }) },
  'POST /courses/:courseId/invite-code': { access: 'teacher', ok: 200 },
  'GET /courses/:courseId/members': { access: 'member', ok: 200 },
  'POST /courses/:courseId/copy': { access: 'teacher', ok: 201, json: () => ({ title: 'Next term', shiftDays: 182 }) },

  // Rosters and co-teachers (owner-only routes are 'teacher' here: course A has no co-teacher)
  'POST /courses/:courseId/teachers': { access: 'teacher', ok: 201, json: async (_s, w) => ({ identifier: await freshTeacher(w) }) },
  'DELETE /courses/:courseId/teachers/:userId': { access: 'teacher', ok: 200 },
  'POST /courses/:courseId/leave': {
    access: 'student',
    ok: 200,
    // Course A's students leave for real: they are members again after every call.
    restore: async (w) => {
      await w.sql`insert into course_members (course_id, user_id)
                  values (${w.A.course.id}, ${w.A.student.id}), (${w.A.course.id}, ${w.s3.id})
                  on conflict do nothing`
    },
  },
  'DELETE /courses/:courseId/members/:userId': { access: 'teacher', ok: 200 },
  'POST /courses/:courseId/roster': { access: 'teacher', ok: 200, json: () => ({ emails: [`${uniq('roster')}@example.test`] }) },
  'GET /courses/:courseId/roster/invitations': { access: 'teacher', ok: 200 },
  'DELETE /courses/:courseId/roster/invitations/:invitationId': { access: 'teacher', ok: 200 },

  // Announcements
  'POST /courses/:courseId/announcements': {
    access: 'teacher',
    ok: 201,
    json: () => ({ title: 'Notice', content: '<p>Hello</p>' }),
    rich: ['content'],
  },
  'GET /courses/:courseId/announcements': { access: 'member', ok: 200 },
  'PATCH /courses/:courseId/announcements/:announcementId': {
    access: 'teacher',
    ok: 200,
    json: (s) => ({ title: s.announcement.title, content: '<p>Welcome</p>' }),
    rich: ['content'],
  },
  'DELETE /courses/:courseId/announcements/:announcementId': { access: 'teacher', ok: 200 },

  // Comments (issue 53). Posting is limited per user and minute: each valid body starts the windows again.
  'GET /courses/:courseId/announcements/:announcementId/comments': { access: 'member', ok: 200 },
  'POST /courses/:courseId/announcements/:announcementId/comments': { access: 'member', ok: 201, json: (_s, w) => commentBody(w), rich: ['content'] },
  'GET /courses/:courseId/learning/tasks/:taskId/comments': { access: 'member', ok: 200 },
  'POST /courses/:courseId/learning/tasks/:taskId/comments': { access: 'member', ok: 201, json: (_s, w) => commentBody(w), rich: ['content'] },
  // The private thread of the side's student: that student and the course's teacher.
  'GET /courses/:courseId/learning/tasks/:taskId/students/:studentId/comments': { access: 'owner', ok: 200 },
  'POST /courses/:courseId/learning/tasks/:taskId/students/:studentId/comments': { access: 'owner', ok: 201, json: (_s, w) => commentBody(w), rich: ['content'] },
  // The side's student's private comment: edited within its 15 minutes (restarted each call).
  'PATCH /comments/:commentId': {
    access: 'author',
    ok: 200,
    json: async (s, w) => {
      await w.sql`update comments set created_at = now() where id = ${s.comment.id}`
      return { content: '<p>Edited</p>' }
    },
    rich: ['content'],
  },
  'DELETE /comments/:commentId': { access: 'author', ok: 200 },

  // LTI 1.3 (issue 52): tools per course, the launch of an LTI task. The protocol endpoints
  // (/lti/…, outside /api/v1) are tested in test/lti/.
  'POST /courses/:courseId/lti/tools': {
    access: 'teacher',
    ok: 201,
    json: () => ({ name: 'A tool', loginUrl: 'https://tool.test/login', launchUrl: 'https://tool.test/launch', jwksUrl: 'https://tool.test/keys' }),
    enums: [],
  },
  'GET /courses/:courseId/lti/tools': { access: 'teacher', ok: 200 },
  'POST /courses/:courseId/lti/registrations': { access: 'teacher', ok: 201, json: () => ({ registrationUrl: 'https://tool.test/register' }) },
  'DELETE /courses/:courseId/lti/tools/:toolId': { access: 'teacher', ok: 200, ids: { toolId: (s) => s.ltiTool.id } },
  'GET /courses/:courseId/learning/points/:pointId/lti/tools/:toolId/deep-linking': { access: 'teacher', ok: 302, ids: { toolId: (s) => s.ltiTool.id } },
  'GET /courses/:courseId/learning/tasks/:taskId/lti/launch': { access: 'member', ok: 302, ids: { taskId: (s) => s.ltiTask.id } },

  // Workspace
  'GET /courses/:courseId/workspace/modules': { access: 'member', ok: 200 },
  'PUT /courses/:courseId/workspace/modules': {
    access: 'teacher',
    ok: 200,
    json: () => ({ modules: [{ moduleKey: 'QUIZ', enabled: true, sortOrder: 4 }] }),
    enums: ['modules.0.moduleKey'],
  },

  // Learning structure
  'GET /courses/:courseId/learning': { access: 'member', ok: 200 },
  'POST /courses/:courseId/learning/units': { access: 'teacher', ok: 201, json: () => ({ title: 'Unit', description: 'd' }) },
  'PATCH /courses/:courseId/learning/units/:unitId': { access: 'teacher', ok: 200, json: (s) => ({ title: s.unit.title }) },
  'DELETE /courses/:courseId/learning/units/:unitId': { access: 'teacher', ok: 200 },
  'POST /courses/:courseId/learning/units/:unitId/points': { access: 'teacher', ok: 201, json: () => ({ title: 'Point', description: 'd' }) },
  'PATCH /courses/:courseId/learning/points/:pointId': { access: 'teacher', ok: 200, json: (s) => ({ title: s.point.title }) },
  'DELETE /courses/:courseId/learning/points/:pointId': { access: 'teacher', ok: 200 },
  'POST /courses/:courseId/learning/points/:pointId/tasks': {
    access: 'teacher',
    ok: 201,
    json: () => ({ title: 'Task', taskKind: 'LEARNING', taskType: 'MEDIA', materialType: 'TEXT', content: '<p>Read</p>' }),
    rich: ['content'],
    enums: ['taskKind', 'taskType', 'materialType'],
  },
  'GET /courses/:courseId/learning/tasks/:taskId': { access: 'member', ok: 200 },
  'PATCH /courses/:courseId/learning/tasks/:taskId': {
    access: 'teacher',
    ok: 200,
    json: (s) => ({ title: s.textTask.title, taskKind: 'LEARNING', content: '<p>Read again</p>' }),
    rich: ['content'],
    enums: ['taskKind'],
  },
  'DELETE /courses/:courseId/learning/tasks/:taskId': { access: 'teacher', ok: 200 },
  'PATCH /courses/:courseId/learning/points/:pointId/tasks/order': {
    access: 'teacher',
    ok: 200,
    // Every task of the point, in its current order (other requests may have added tasks).
    json: async (s, w) => ({
      orderedTaskIds: (await w.sql<{ id: string }[]>`select id from learning_tasks where point_id = ${s.point.id} order by sort_order`).map(
        (r) => r.id,
      ),
    }),
  },

  // Learning submissions
  // Sheets are handed in to the homework: reading material takes no answers (409 40909).
  'POST /courses/:courseId/learning/tasks/:taskId/submissions': {
    access: 'student',
    ok: 201,
    ids: { taskId: (s) => s.homework.id },
    json: () => ({ content: '<p>My answer</p>' }),
    rich: ['content'],
  },
  'GET /courses/:courseId/learning/tasks/:taskId/submissions': { access: 'member', ok: 200, ids: { taskId: (s) => s.homework.id } },
  'PATCH /courses/:courseId/learning/submissions/:submissionId/grade': {
    access: 'teacher',
    ok: 200,
    json: () => ({ score: 90, feedback: '<p>Good</p>' }),
    rich: ['feedback'],
  },
  // Grading teachers expect (issue 54): release and rubrics.
  'POST /courses/:courseId/learning/tasks/:taskId/release': { access: 'teacher', ok: 200, ids: { taskId: (s) => s.homework.id } },
  'PUT /courses/:courseId/learning/tasks/:taskId/rubric': {
    access: 'teacher',
    ok: 200,
    ids: { taskId: (s) => s.homework.id },
    json: () => ({ rubric: { criteria: [{ title: 'Argument', description: 'Claims backed', levels: [{ title: 'Weak', points: 0 }, { title: 'Strong', points: 4 }] }] } }),
  },
  'GET /courses/:courseId/analytics/tasks/:taskId/scores': { access: 'teacher', ok: 200, ids: { taskId: (s) => s.homework.id } },
  'GET /courses/:courseId/analytics/tasks/:taskId/timeline': { access: 'teacher', ok: 200, ids: { taskId: (s) => s.homework.id } },
  'GET /courses/:courseId/analytics/tasks/:taskId/questions': { access: 'teacher', ok: 200, ids: { taskId: (s) => s.homework.id } },
  'GET /courses/:courseId/analytics/totals': { access: 'teacher', ok: 200 },
  // A file handed in with an answer sheet (issue 29.7): the world's sheet carries one.
  'GET /courses/:courseId/learning/submissions/:submissionId/file': { access: 'owner', ok: 200 },
  'GET /courses/:courseId/learning/overview': { access: 'member', ok: 200 },

  // Homework and reminders
  'GET /courses/:courseId/homeworks': { access: 'member', ok: 200 },
  'GET /homeworks/mine': { access: 'user', ok: 200, query: (s) => `?status=IN_PROGRESS&courseId=${s.course.id}` },
  'GET /courses/:courseId/homeworks/:taskId/reminders': { access: 'teacher', ok: 200, ids: { taskId: (s) => s.homework.id } },

  // Notifications
  'GET /notifications': { access: 'user', ok: 200, query: () => '?unreadOnly=false' },
  'PATCH /notifications/read-all': { access: 'user', ok: 200 },
  'PATCH /notifications/:notificationId/read': { access: 'self', ok: 200 },
  'GET /notifications/stream': { access: 'user', ok: 200 },
  'GET /me/notification-preferences': { access: 'user', ok: 200 },
  'PUT /me/notification-preferences': { access: 'user', ok: 200, json: () => ({ email: { ANNOUNCEMENT: true } }), noStrings: true },
  // RFC 8058 one-click unsubscribe: public by design, the signed token is the credential.
  'POST /email/unsubscribe': {
    access: 'public',
    ok: 200,
    query: (s) => `?token=${encodeURIComponent(unsubscribeToken(testConfig().jwtSecret, s.student.id, 'ANNOUNCEMENT'))}`,
  },

  // Calendar feed
  'GET /me/calendar': { access: 'user', ok: 200 },
  'POST /me/calendar/rotate': { access: 'user', ok: 200 },

  // Experiments
  'POST /courses/:courseId/experiments': {
    access: 'teacher',
    ok: 201,
    json: () => ({ title: 'Lab', description: '<p>Measure</p>', dueAt: iso(86400_000) }),
    rich: ['description'],
  },
  'GET /experiments/mine': { access: 'user', ok: 200 },
  'GET /courses/:courseId/experiments': { access: 'member', ok: 200 },
  'GET /courses/:courseId/experiments/:experimentId': { access: 'member', ok: 200 },
  'GET /courses/:courseId/experiments/:experimentId/submissions.zip': { access: 'teacher', ok: 200 },
  'PATCH /courses/:courseId/experiments/:experimentId': {
    access: 'teacher',
    ok: 200,
    json: (s) => ({ title: s.experiment.title, description: '<p>Measure</p>' }),
    rich: ['description'],
  },
  'DELETE /courses/:courseId/experiments/:experimentId': { access: 'teacher', ok: 200 },
  'POST /experiments/:experimentId/submissions': {
    access: 'student',
    ok: 201,
    form: () => formOf({ file: new File(['data'], 'data.txt', { type: 'text/plain' }), note: 'my note' }),
  },
  'GET /experiments/:experimentId/submissions': { access: 'member', ok: 200 },
  'GET /experiments/:experimentId/submissions/latest': { access: 'member', ok: 200 },
  'GET /submissions/:submissionId/file': { access: 'owner', ok: 200 },
  'PATCH /submissions/:submissionId/grade': {
    access: 'teacher',
    ok: 200,
    json: () => ({ score: 80, feedback: '<p>Fine</p>' }),
    rich: ['feedback'],
  },
  'POST /experiments/:experimentId/release': { access: 'teacher', ok: 200 },
  'PUT /courses/:courseId/experiments/:experimentId/rubric': {
    access: 'teacher',
    ok: 200,
    json: () => ({ rubric: { criteria: [{ title: 'Method', levels: [{ title: 'Sketchy', points: 1 }, { title: 'Sound', points: 3 }] }] } }),
  },

  // Course import (issue 51)
  'POST /courses/imports': {
    access: 'teacherRole',
    ok: 202,
    form: () => formOf({ file: new File([tinyCartridge()], 'course.imscc', { type: 'application/zip' }), shiftDays: '0' }),
  },
  'GET /courses/imports/:importId': { access: 'importer', ok: 200 },

  'GET /courses/:courseId/export.imscc': { access: 'teacher', ok: 200 },

  // Resources
  'POST /courses/:courseId/resources': {
    access: 'teacher',
    ok: 201,
    form: () => formOf({ name: 'Site', type: 'LINK', externalUrl: 'https://example.test/page', category: 'links' }),
    enums: ['type'],
  },
  'GET /courses/:courseId/resources': { access: 'member', ok: 200 },
  'GET /resources/:resourceId/file': { access: 'member', ok: 200 },
  'DELETE /courses/:courseId/resources/:resourceId': { access: 'teacher', ok: 200 },

  // Grades
  'GET /courses/:courseId/grades/overview': { access: 'teacher', ok: 200 },
  'GET /courses/:courseId/grades/overview.csv': { access: 'teacher', ok: 200 },
}

/** The envelope code of an unknown id, per path parameter. */
export const NOT_FOUND_CODE: Record<string, number> = {
  courseId: 40401,
  unitId: 40402,
  pointId: 40403,
  taskId: 40404,
  submissionId: 40405,
  experimentId: 40406,
  resourceId: 40407,
  notificationId: 40408,
  announcementId: 40409,
  userId: 40400,
  invitationId: 40400,
  sessionId: 40400,
  studentId: 40400,
  commentId: 40410,
  importId: 40420,
  toolId: 40430,
}

export function specOf(route: LiveRoute): RouteSpec {
  const spec = ROUTES[route.key]
  if (!spec) throw new Error(`no catalogue entry for ${route.key}; add it to test/security/routes.ts`)
  return spec
}

/** The side's id that fills a path parameter of a route. */
export function idFor(route: LiveRoute, param: string, s: Side): string {
  const override = specOf(route).ids?.[param]
  if (override) return override(s)
  switch (param) {
    case 'courseId':
      return s.course.id
    case 'unitId':
      return s.unit.id
    case 'pointId':
      return s.point.id
    case 'taskId':
      return s.textTask.id
    case 'experimentId':
      return s.experiment.id
    case 'resourceId':
      return s.resource.id
    case 'announcementId':
      return s.announcement.id
    case 'notificationId':
      return s.notification.id
    case 'submissionId':
      return route.path.includes('/learning/') ? s.learningSubmission.id : s.experimentSubmission.id
    case 'userId':
      // Never course A's own student: a DELETE of it would change the shared world.
      return route.path.includes('/teachers/') ? s.teacher.id : s.student.id
    case 'invitationId':
      return s.invitation.id
    case 'studentId':
      return s.student.id
    case 'commentId':
      return s.comment.id
    case 'importId':
      return s.courseImport.id
  }
  throw new Error(`no id for path parameter ${param} of ${route.key}`)
}

/** The route's path for side `s`, with some parameters replaced (raw, already URL-safe, values). */
export function pathFor(route: LiveRoute, s: Side, replace: Record<string, string> = {}): string {
  const path = route.path.replace(/:([A-Za-z]+)/g, (_m, p: string) => replace[p] ?? idFor(route, p, s))
  return path + (specOf(route).query?.(s) ?? '')
}

/** The caller the route is meant for, on side `s` (undefined for public routes). */
export function authorisedCaller(route: LiveRoute, s: Side, w: World): Account | undefined {
  const spec = specOf(route)
  if (spec.spendsSession) return w.spender
  switch (spec.access) {
    case 'public':
      return undefined
    case 'user':
    case 'teacherRole':
    case 'member':
    case 'teacher':
    case 'importer':
      return s.teacher
    case 'studentRole':
    case 'student':
    case 'owner':
    case 'self':
    case 'author':
      return s.student
  }
}

/** The token to send as `caller`; a route that ends its session gets a throwaway one. */
export async function tokenFor(route: LiveRoute, caller: Account | undefined, w: World): Promise<string | undefined> {
  if (!caller) return undefined
  return specOf(route).spendsSession ? freshToken(w.api, caller) : caller.token
}

/** The valid body of a route (JSON or multipart), as call options. */
export async function validBody(route: LiveRoute, s: Side, w: World): Promise<Pick<CallOptions, 'json' | 'form'>> {
  const spec = specOf(route)
  if (spec.form) return { form: spec.form(s, w) }
  if (spec.json) return { json: await spec.json(s, w) }
  return {}
}

export async function send(api: Client, route: LiveRoute, path: string, o: CallOptions, w?: World): Promise<Res> {
  const r = await api.call(route.method, path, o)
  if (w) await specOf(route).restore?.(w)
  return r
}

/** Runs `fn` over `items` in chunks of `size` concurrent calls. */
export async function inChunks<T, R>(items: T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))))
  return out
}

/** Every error is the envelope: a numeric catalogue code, a sentence, data null or an object. */
export function isErrorEnvelope(r: Res): boolean {
  return (
    r.body !== null &&
    typeof r.body === 'object' &&
    Number.isInteger(r.code) &&
    r.code >= 40000 &&
    r.code < 60000 &&
    typeof r.message === 'string' &&
    r.message.length > 0 &&
    (r.data === null || typeof r.data === 'object')
  )
}

/** A compact description of a response for failure messages. */
export const brief = (r: Res) => ({ status: r.status, code: r.code, message: r.message })
