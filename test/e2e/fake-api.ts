import type { BrowserContext, Route } from 'playwright-core'
import type {
  Announcement,
  Answer,
  Course,
  Experiment,
  ExperimentSubmission,
  LearningSubmission,
  ModuleConfig,
  ModuleKey,
  Notification,
  Point,
  Question,
  ReminderEvent,
  Resource,
  Task,
  Unit,
  User,
} from '../../src/web/client/types.ts'

/**
 * An in-memory stand-in for the parts of the API that other branches are building (courses,
 * learning, homework, reminders, notifications, experiments, resources, grades), following
 * ../shared/API-CONTRACT.md. It answers inside the browser (Playwright routing), so the pages can
 * be exercised and photographed before those branches are merged. Auth stays real: the fake asks
 * the real server who the caller is. The real API replaces it in flow.test.ts.
 */

const MODULE_KEYS: ModuleKey[] = ['OVERVIEW', 'LEARNING', 'HOMEWORK', 'QUIZ', 'GRADES', 'EXPERIMENTS', 'RESOURCES', 'ANNOUNCEMENTS']

interface FakeCourse {
  id: string
  title: string
  description: string
  teacherId: string
  inviteCode: string
  createdAt: string
  members: { userId: string; joinedAt: string }[]
  modules: ModuleConfig[]
}

interface FakeUnit extends Omit<Unit, 'points'> {}
interface FakePoint extends Omit<Point, 'tasks'> {
  courseId: string
}

interface Reply {
  status: number
  body: unknown
}

const ok = (data: unknown, status = 200): Reply => ({ status, body: { code: 0, message: 'OK', data } })
const fail = (status: number, code: number, message: string): Reply => ({ status, body: { code, message, data: null } })
const forbidden = () => fail(403, 40300, 'You are not allowed to do this.')

let idSeq = 0
const newId = () => {
  const hex = (Date.now().toString(16) + (idSeq++).toString(16).padStart(6, '0')).padStart(20, '0').slice(-20)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(12, 15)}-8${hex.slice(15, 18)}-${hex.slice(18)}${Math.random().toString(16).slice(2, 12)}`
}

export class FakeApi {
  users = new Map<string, User>()
  courses: FakeCourse[] = []
  announcements: Announcement[] = []
  units: FakeUnit[] = []
  points: FakePoint[] = []
  tasks: Task[] = []
  submissions: LearningSubmission[] = []
  experiments: Experiment[] = []
  experimentSubmissions: ExperimentSubmission[] = []
  resources: Resource[] = []
  notifications: (Notification & { userId: string })[] = []
  reminders: ReminderEvent[] = []
  offsetMs = 0
  private viewers = new Map<string, User | null>()

  constructor(private readonly baseUrl: string) {}

  now() {
    return new Date(Date.now() + this.offsetMs)
  }
  iso(d: Date = this.now()) {
    return d.toISOString()
  }

  async install(context: BrowserContext) {
    await context.route('**/core/api/v1/**', (route) => this.route(route))
  }

  private async route(route: Route) {
    const req = route.request()
    const url = new URL(req.url())
    const path = url.pathname.replace(/^\/core\/api\/v1/, '')
    if (path.startsWith('/auth/')) return route.fallback()
    const me = await this.viewer(req.headers()['cookie'] ?? '')
    let reply: Reply
    if (!me) reply = fail(401, 40100, 'You are not logged in, or your login has expired. Please log in again.')
    else {
      let body: any = null
      const type = req.headers()['content-type'] ?? ''
      const buf = req.postDataBuffer()
      if (buf && type.includes('application/json')) body = JSON.parse(buf.toString('utf8'))
      else if (buf && type.includes('multipart/form-data')) body = await new Response(new Uint8Array(buf), { headers: { 'content-type': type } }).formData()
      reply = this.dispatch(req.method(), path, url.searchParams, body, me)
    }
    await route.fulfill({ status: reply.status, contentType: 'application/json', body: JSON.stringify(reply.body) })
  }

  private async viewer(cookie: string): Promise<User | null> {
    if (!cookie) return null
    if (this.viewers.has(cookie)) return this.viewers.get(cookie)!
    const res = await fetch(`${this.baseUrl}/core/api/v1/auth/me`, { headers: { cookie } })
    const user = res.ok ? ((await res.json()) as { data: User }).data : null
    if (user) this.users.set(user.id, user)
    this.viewers.set(cookie, user)
    return user
  }

  // ---- views --------------------------------------------------------------------------

  private ref(id: string) {
    const u = this.users.get(id)
    return { id, username: u?.username ?? 'unknown', displayName: u?.displayName || u?.username || 'Unknown' }
  }

  courseView(c: FakeCourse, me: User): Course {
    return {
      id: c.id,
      title: c.title,
      description: c.description,
      teacher: this.ref(c.teacherId),
      memberCount: c.members.length + 1,
      createdAt: c.createdAt,
      ...(c.teacherId === me.id ? { inviteCode: c.inviteCode } : {}),
    }
  }

  private taskView(t: Task, teacher: boolean): Task {
    return teacher ? t : { ...t, questions: t.questions?.map(({ correctOptions: _, ...q }) => q as Question) ?? null }
  }

  private isMember(c: FakeCourse, me: User) {
    return c.teacherId === me.id || c.members.some((m) => m.userId === me.id)
  }

  private homeworkStatus(t: Task, studentId: string) {
    const now = this.now().getTime()
    const sub = this.latest(t.id, studentId)
    if (sub) return 'SUBMITTED' as const
    if (now < new Date(t.startAt!).getTime()) return 'NOT_STARTED' as const
    if (now > new Date(t.dueAt!).getTime()) return 'OVERDUE' as const
    return 'IN_PROGRESS' as const
  }

  private latest(taskId: string, studentId: string) {
    return this.submissions.filter((s) => s.taskId === taskId && s.student.id === studentId).sort((a, b) => b.submittedAt.localeCompare(a.submittedAt))[0]
  }

  private homeworkItems(courses: FakeCourse[], me: User) {
    const items = this.tasks
      .filter((t) => t.taskKind === 'HOMEWORK' && courses.some((c) => c.id === t.courseId))
      .map((t) => {
        const c = courses.find((x) => x.id === t.courseId)!
        const teacher = c.teacherId === me.id
        const sub = teacher ? undefined : this.latest(t.id, me.id)
        const remaining = Math.max(0, Math.floor((new Date(t.dueAt!).getTime() - this.now().getTime()) / 1000))
        const base = {
          taskId: t.id,
          courseId: c.id,
          courseTitle: c.title,
          title: t.title,
          startAt: t.startAt!,
          dueAt: t.dueAt!,
          submittedAt: sub?.submittedAt ?? null,
          score: sub?.score ?? null,
          remainingSeconds: remaining,
        }
        if (!teacher) return { ...base, status: this.homeworkStatus(t, me.id) }
        const now = this.now().getTime()
        const status = now < new Date(t.startAt!).getTime() ? 'NOT_STARTED' : now > new Date(t.dueAt!).getTime() ? 'OVERDUE' : 'IN_PROGRESS'
        const submitted = new Set(this.submissions.filter((s) => s.taskId === t.id).map((s) => s.student.id)).size
        return { ...base, status, submittedCount: submitted, studentCount: c.members.length }
      })
      .sort((a, b) => a.dueAt.localeCompare(b.dueAt))
    const unreadReminderCount = this.notifications.filter((n) => n.userId === me.id && !n.readAt && n.type === 'HOMEWORK_REMINDER').length
    return { items, unreadReminderCount }
  }

  private notify(userIds: string[], n: Omit<Notification, 'id' | 'readAt' | 'deliveredAt'>) {
    for (const userId of userIds) this.notifications.push({ ...n, id: newId(), userId, readAt: null, deliveredAt: this.iso() })
  }

  private scheduleReminders(t: Task, c: FakeCourse, studentIds = c.members.map((m) => m.userId)) {
    if (t.taskKind !== 'HOMEWORK') return
    for (const r of this.reminders) if (r.taskId === t.id && r.state === 'PENDING' && studentIds.includes(r.targetUserId)) Object.assign(r, { canceled: true, state: 'CANCELED' })
    const triggers: [ReminderEvent['triggerType'], boolean, number][] = [
      ['START', t.notifyOnStart, new Date(t.startAt!).getTime()],
      ['BEFORE_DUE_24H', t.notifyBeforeDue24h, new Date(t.dueAt!).getTime() - 86400_000],
      ['DUE', t.notifyOnDue, new Date(t.dueAt!).getTime()],
    ]
    for (const userId of studentIds)
      for (const [triggerType, on, at] of triggers)
        if (on && at > this.now().getTime())
          this.reminders.push({ id: newId(), taskId: t.id, targetUserId: userId, triggerType, scheduledAt: new Date(at).toISOString(), sentAt: null, canceled: false, state: 'PENDING' })
  }

  /** The scheduler's scan: due pending events become HOMEWORK_REMINDER notifications. */
  dispatchReminders() {
    for (const r of this.reminders) {
      if (r.state !== 'PENDING' || new Date(r.scheduledAt).getTime() > this.now().getTime()) continue
      const t = this.tasks.find((x) => x.id === r.taskId)!
      Object.assign(r, { sentAt: this.iso(), state: 'SENT' })
      const what = r.triggerType === 'START' ? 'is open' : r.triggerType === 'DUE' ? 'is due now' : 'is due in 24 hours'
      this.notify([r.targetUserId], { type: 'HOMEWORK_REMINDER', title: `${t.title} ${what}`, content: `Homework in your course ${what}.`, actionPath: `/courses/${t.courseId}?taskId=${t.id}` })
    }
  }

  private autoScore(t: Task, answers: Answer[]) {
    const choice = (t.questions ?? []).filter((q) => q.type !== 'SHORT_ANSWER')
    if (!choice.length) return null
    const total = choice.reduce((s, q) => s + (q.points ?? 1), 0)
    const got = choice.reduce((s, q) => {
      const a = answers.find((x) => x.questionId === q.id)?.selectedOptions ?? []
      const c = q.correctOptions ?? []
      return s + (a.length === c.length && a.every((x) => c.includes(x)) ? (q.points ?? 1) : 0)
    }, 0)
    return Math.round((got / total) * 10000) / 100
  }

  // ---- routes --------------------------------------------------------------------------

  dispatch(method: string, path: string, q: URLSearchParams, body: any, me: User): Reply {
    const m = (re: RegExp) => re.exec(path)
    let x: RegExpExecArray | null
    const course = (id: string) => this.courses.find((c) => c.id === id)
    const member = (id: string): FakeCourse | Reply => {
      const c = course(id)
      if (!c) return fail(404, 40401, 'No such course.')
      return this.isMember(c, me) ? c : forbidden()
    }
    const teacherOf = (id: string): FakeCourse | Reply => {
      const c = member(id)
      if (!('id' in c)) return c
      return c.teacherId === me.id ? c : forbidden()
    }
    const isReply = (v: unknown): v is Reply => typeof v === 'object' && v !== null && 'status' in v && 'body' in v

    if (method === 'GET' && path === '/courses') return ok(this.courses.filter((c) => this.isMember(c, me)).map((c) => this.courseView(c, me)))
    if (method === 'POST' && path === '/courses') {
      if (me.role !== 'TEACHER') return forbidden()
      const c: FakeCourse = {
        id: newId(),
        title: body.title,
        description: body.description,
        teacherId: me.id,
        inviteCode: Math.random().toString(36).slice(2, 10).toUpperCase().replace(/[01IOL]/g, 'X'),
        createdAt: this.iso(),
        members: [],
        modules: MODULE_KEYS.map((k, i) => ({ moduleKey: k, enabled: true, sortOrder: i + 1 })),
      }
      this.courses.push(c)
      return ok(this.courseView(c, me), 201)
    }
    if (method === 'POST' && path === '/courses/join') {
      if (me.role !== 'STUDENT') return forbidden()
      const c = this.courses.find((k) => k.inviteCode === String(body.inviteCode ?? '').trim().toUpperCase())
      if (!c) return fail(404, 40401, 'No course has that invite code.')
      if (!c.members.some((k) => k.userId === me.id)) {
        c.members.push({ userId: me.id, joinedAt: this.iso() })
        for (const t of this.tasks.filter((t) => t.courseId === c.id)) this.scheduleReminders(t, c, [me.id])
      }
      return ok(this.courseView(c, me))
    }
    if ((x = m(/^\/courses\/([^/]+)$/)) && method === 'GET') {
      const c = member(x[1]!)
      return isReply(c) ? c : ok(this.courseView(c, me))
    }
    if ((x = m(/^\/courses\/([^/]+)\/members$/)) && method === 'GET') {
      const c = member(x[1]!)
      if (isReply(c)) return c
      const rows = [
        { userId: c.teacherId, ...this.ref(c.teacherId), role: 'TEACHER', joinedAt: c.createdAt },
        ...c.members.map((k) => ({ userId: k.userId, ...this.ref(k.userId), role: 'STUDENT', joinedAt: k.joinedAt })),
      ].map(({ id: _, ...r }) => r)
      return ok({ items: rows, total: rows.length, page: 1, pageSize: 200 })
    }
    if ((x = m(/^\/courses\/([^/]+)\/announcements$/))) {
      if (method === 'GET') {
        const c = member(x[1]!)
        if (isReply(c)) return c
        const items = this.announcements.filter((a) => a.courseId === c.id).sort((a, b) => b.createdAt.localeCompare(a.createdAt))
        return ok({ items, total: items.length, page: 1, pageSize: 50 })
      }
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const a: Announcement = { id: newId(), courseId: c.id, title: body.title, content: body.content, author: { id: me.id, displayName: me.displayName || me.username }, createdAt: this.iso() }
      this.announcements.push(a)
      this.notify(c.members.map((k) => k.userId), { type: 'ANNOUNCEMENT', title: `New announcement: ${a.title}`, content: c.title, actionPath: `/courses/${c.id}` })
      return ok(a, 201)
    }
    if ((x = m(/^\/courses\/([^/]+)\/workspace\/modules$/))) {
      if (method === 'GET') {
        const c = member(x[1]!)
        return isReply(c) ? c : ok({ modules: [...c.modules].sort((a, b) => a.sortOrder - b.sortOrder) })
      }
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      for (const row of body.modules as ModuleConfig[]) {
        const cur = c.modules.find((k) => k.moduleKey === row.moduleKey)
        if (!cur) return fail(400, 40001, `Unknown module ${row.moduleKey}.`)
        Object.assign(cur, row)
      }
      return ok({ modules: [...c.modules].sort((a, b) => a.sortOrder - b.sortOrder) })
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning$/)) && method === 'GET') {
      const c = member(x[1]!)
      if (isReply(c)) return c
      const teacher = c.teacherId === me.id
      const units = this.units
        .filter((u) => u.courseId === c.id)
        .sort((a, b) => a.sortOrder - b.sortOrder)
        .map((u) => ({
          ...u,
          points: this.points
            .filter((p) => p.unitId === u.id)
            .sort((a, b) => a.sortOrder - b.sortOrder)
            .map(({ courseId: _, ...p }) => ({
              ...p,
              tasks: this.tasks
                .filter((t) => t.pointId === p.id)
                .sort((a, b) => a.sortOrder - b.sortOrder)
                .map((t) => this.taskView(t, teacher)),
            })),
        }))
      return ok({ units })
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/overview$/)) && method === 'GET') {
      const c = member(x[1]!)
      if (isReply(c)) return c
      const tasks = this.tasks.filter((t) => t.courseId === c.id)
      const rows = c.members
        .filter((k) => c.teacherId === me.id || k.userId === me.id)
        .map((k) => {
          const latest = tasks.map((t) => this.latest(t.id, k.userId)).filter((s): s is LearningSubmission => Boolean(s))
          const graded = latest.filter((s) => s.score != null)
          return {
            userId: k.userId,
            username: this.ref(k.userId).username,
            displayName: this.ref(k.userId).displayName,
            totalTasks: tasks.length,
            submittedTasks: latest.length,
            gradedTasks: graded.length,
            averageScore: graded.length ? graded.reduce((s, g) => s + g.score!, 0) / graded.length : null,
          }
        })
      return ok({ students: rows })
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/units$/)) && method === 'POST') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const u: FakeUnit = { id: newId(), courseId: c.id, title: body.title, description: body.description ?? '', sortOrder: this.units.filter((k) => k.courseId === c.id).length + 1 }
      this.units.push(u)
      return ok(u, 201)
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/units\/([^/]+)$/)) && method === 'PATCH') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const u = this.units.find((k) => k.id === x![2] && k.courseId === c.id)
      if (!u) return fail(404, 40402, 'No such unit in this course.')
      Object.assign(u, { title: body.title ?? u.title, description: body.description ?? u.description })
      return ok(u)
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/units\/([^/]+)\/points$/)) && method === 'POST') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      if (!this.units.some((k) => k.id === x![2] && k.courseId === c.id)) return fail(404, 40402, 'No such unit in this course.')
      const p: FakePoint = { id: newId(), unitId: x[2]!, courseId: c.id, title: body.title, description: body.description ?? '', sortOrder: this.points.filter((k) => k.unitId === x![2]).length + 1 }
      this.points.push(p)
      return ok(p, 201)
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/points\/([^/]+)$/)) && method === 'PATCH') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const p = this.points.find((k) => k.id === x![2] && k.courseId === c.id)
      if (!p) return fail(404, 40403, 'No such knowledge point in this course.')
      Object.assign(p, { title: body.title ?? p.title, description: body.description ?? p.description })
      return ok(p)
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/points\/([^/]+)\/tasks$/)) && method === 'POST') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      if (!this.points.some((k) => k.id === x![2] && k.courseId === c.id)) return fail(404, 40403, 'No such knowledge point in this course.')
      const t = this.newTask(c.id, x[2]!, body)
      this.tasks.push(t)
      this.scheduleReminders(t, c)
      return ok(t, 201)
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/points\/([^/]+)\/tasks\/order$/)) && method === 'PATCH') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const tasks = this.tasks.filter((t) => t.pointId === x![2])
      const ids: string[] = body.orderedTaskIds ?? []
      if (ids.length !== tasks.length || new Set(ids).size !== ids.length || !tasks.every((t) => ids.includes(t.id))) return fail(400, 40001, 'orderedTaskIds must list every task of the point exactly once.')
      ids.forEach((id, i) => (tasks.find((t) => t.id === id)!.sortOrder = i + 1))
      return ok({ orderedTaskIds: ids })
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/tasks\/([^/]+)$/)) && method === 'PATCH') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const t = this.tasks.find((k) => k.id === x![2] && k.courseId === c.id)
      if (!t) return fail(404, 40404, 'No such task in this course.')
      const next = this.newTask(c.id, t.pointId, { ...t, ...body })
      Object.assign(t, { ...next, id: t.id, sortOrder: t.sortOrder, createdAt: t.createdAt })
      this.scheduleReminders(t, c)
      return ok(t)
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/tasks\/([^/]+)\/submissions$/))) {
      const c = member(x[1]!)
      if (isReply(c)) return c
      const t = this.tasks.find((k) => k.id === x![2] && k.courseId === c.id)
      if (!t) return fail(404, 40404, 'No such task in this course.')
      if (method === 'GET') {
        const items = this.submissions.filter((s) => s.taskId === t.id && (c.teacherId === me.id || s.student.id === me.id))
        return ok({ items, total: items.length, page: 1, pageSize: 200 })
      }
      if (c.teacherId === me.id) return forbidden()
      const answers: Answer[] | null = body.answers ?? null
      const auto = t.taskType === 'QUIZ' ? this.autoScore(t, answers ?? []) : null
      const onlyChoice = t.taskType === 'QUIZ' && (t.questions ?? []).every((k) => k.type !== 'SHORT_ANSWER')
      const s: LearningSubmission = {
        id: newId(),
        taskId: t.id,
        courseId: c.id,
        student: this.ref(me.id),
        content: body.content ?? null,
        answers,
        autoScore: auto,
        score: onlyChoice ? auto : null,
        feedback: null,
        status: onlyChoice ? 'GRADED' : 'SUBMITTED',
        late: t.dueAt ? this.now().getTime() > new Date(t.dueAt).getTime() : false,
        submittedAt: this.iso(),
        gradedAt: onlyChoice ? this.iso() : null,
      }
      this.submissions.push(s)
      return ok(s, 201)
    }
    if ((x = m(/^\/courses\/([^/]+)\/learning\/submissions\/([^/]+)\/grade$/)) && method === 'PATCH') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const s = this.submissions.find((k) => k.id === x![2] && k.courseId === c.id)
      if (!s) return fail(404, 40405, 'No such submission.')
      if (typeof body.score !== 'number' || body.score < 0 || body.score > 100) return fail(400, 40001, 'score: a number from 0 to 100')
      Object.assign(s, { score: body.score, feedback: body.feedback ?? null, status: 'GRADED', gradedAt: this.iso() })
      const t = this.tasks.find((k) => k.id === s.taskId)!
      this.notify([s.student.id], { type: 'SUBMISSION_GRADED', title: `${t.title} was graded`, content: `Your score: ${body.score}`, actionPath: `/courses/${c.id}?taskId=${t.id}` })
      return ok(s)
    }
    if ((x = m(/^\/courses\/([^/]+)\/homeworks$/)) && method === 'GET') {
      const c = member(x[1]!)
      return isReply(c) ? c : ok(this.homeworkItems([c], me))
    }
    if ((x = m(/^\/courses\/([^/]+)\/homeworks\/([^/]+)\/reminders$/)) && method === 'GET') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      return ok(this.reminders.filter((r) => r.taskId === x![2]))
    }
    if (path === '/homeworks/mine' && method === 'GET') {
      const status = q.get('status')
      if (status && !['NOT_STARTED', 'IN_PROGRESS', 'SUBMITTED', 'OVERDUE'].includes(status)) return fail(400, 40001, 'status: unknown value')
      const courseId = q.get('courseId')
      let courses = this.courses.filter((c) => this.isMember(c, me))
      if (courseId) {
        const c = member(courseId)
        if (isReply(c)) return c
        courses = [c]
      }
      const data = this.homeworkItems(courses, me)
      return ok({ ...data, items: status ? data.items.filter((i) => i.status === status) : data.items })
    }
    if (path === '/notifications' && method === 'GET') {
      const mine = this.notifications.filter((n) => n.userId === me.id).sort((a, b) => b.deliveredAt.localeCompare(a.deliveredAt))
      const list = q.get('unreadOnly') === 'true' ? mine.filter((n) => !n.readAt) : mine
      const page = Number(q.get('page') ?? 1)
      const pageSize = Number(q.get('pageSize') ?? 50)
      const items = list.slice((page - 1) * pageSize, page * pageSize).map(({ userId: _, ...n }) => n)
      return ok({ items, unreadCount: mine.filter((n) => !n.readAt).length, total: list.length, page, pageSize })
    }
    if (path === '/notifications/read-all' && method === 'PATCH') {
      let updated = 0
      for (const n of this.notifications) if (n.userId === me.id && !n.readAt) (n.readAt = this.iso()), updated++
      return ok({ updated })
    }
    if ((x = m(/^\/notifications\/([^/]+)\/read$/)) && method === 'PATCH') {
      const n = this.notifications.find((k) => k.id === x![1] && k.userId === me.id)
      if (!n) return fail(404, 40408, 'No such notification.')
      n.readAt ??= this.iso()
      const { userId: _, ...view } = n
      return ok(view)
    }
    if ((x = m(/^\/courses\/([^/]+)\/experiments$/))) {
      if (method === 'GET') {
        const c = member(x[1]!)
        return isReply(c) ? c : ok(this.experiments.filter((e) => e.courseId === c.id))
      }
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const e: Experiment = { id: newId(), courseId: c.id, title: body.title, description: body.description, dueAt: body.dueAt, createdAt: this.iso() }
      this.experiments.push(e)
      return ok(e, 201)
    }
    if ((x = m(/^\/courses\/([^/]+)\/experiments\/([^/]+)$/)) && method === 'GET') {
      const c = member(x[1]!)
      if (isReply(c)) return c
      const e = this.experiments.find((k) => k.id === x![2] && k.courseId === c.id)
      return e ? ok(e) : fail(404, 40406, 'No such experiment.')
    }
    if ((x = m(/^\/experiments\/([^/]+)\/submissions(\/latest)?$/))) {
      const e = this.experiments.find((k) => k.id === x![1])
      if (!e) return fail(404, 40406, 'No such experiment.')
      const c = member(e.courseId)
      if (isReply(c)) return c
      const mine = this.experimentSubmissions.filter((s) => s.experimentId === e.id && (c.teacherId === me.id || s.student.id === me.id)).sort((a, b) => b.submittedAt.localeCompare(a.submittedAt))
      if (method === 'GET' && x[2]) return ok(mine.find((s) => s.student.id === me.id) ?? null)
      if (method === 'GET') return ok({ items: mine, total: mine.length, page: 1, pageSize: 200 })
      if (c.teacherId === me.id) return forbidden()
      const file = (body as FormData).get('file') as File | null
      if (!file) return fail(400, 40001, 'file: required')
      const s: ExperimentSubmission = {
        id: newId(),
        experimentId: e.id,
        student: this.ref(me.id),
        fileName: file.name,
        fileSize: file.size,
        contentType: file.type || 'application/octet-stream',
        note: ((body as FormData).get('note') as string | null) ?? null,
        late: this.now().getTime() > new Date(e.dueAt).getTime(),
        submittedAt: this.iso(),
        score: null,
        feedback: null,
        gradedAt: null,
        fileUrl: null,
      }
      this.experimentSubmissions.push(s)
      return ok(s, 201)
    }
    if ((x = m(/^\/submissions\/([^/]+)\/grade$/)) && method === 'PATCH') {
      const s = this.experimentSubmissions.find((k) => k.id === x![1])
      if (!s) return fail(404, 40405, 'No such submission.')
      const e = this.experiments.find((k) => k.id === s.experimentId)!
      const c = teacherOf(e.courseId)
      if (isReply(c)) return c
      Object.assign(s, { score: body.score, feedback: body.feedback ?? null, gradedAt: this.iso() })
      return ok(s)
    }
    if ((x = m(/^\/courses\/([^/]+)\/resources$/))) {
      if (method === 'GET') {
        const c = member(x[1]!)
        if (isReply(c)) return c
        const items = this.resources.filter((r) => r.courseId === c.id)
        return ok({ items, total: items.length, page: 1, pageSize: 200 })
      }
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const f = body as FormData
      const file = f.get('file') as File | null
      const type = f.get('type') as Resource['type']
      const r: Resource = {
        id: newId(),
        courseId: c.id,
        name: f.get('name') as string,
        type,
        category: (f.get('category') as string | null) ?? null,
        externalUrl: type === 'FILE' ? null : (f.get('externalUrl') as string),
        fileName: file?.name ?? null,
        fileSize: file?.size ?? null,
        contentType: file?.type ?? null,
        fileUrl: null,
        createdAt: this.iso(),
      }
      this.resources.push(r)
      return ok(r, 201)
    }
    if ((x = m(/^\/courses\/([^/]+)\/grades\/overview$/)) && method === 'GET') {
      const c = teacherOf(x[1]!)
      if (isReply(c)) return c
      const tasks = this.tasks.filter((t) => t.courseId === c.id)
      const exps = this.experiments.filter((e) => e.courseId === c.id)
      const students = c.members.map((k) => {
        const learning = tasks.map((t) => this.latest(t.id, k.userId)).filter((s): s is LearningSubmission => Boolean(s))
        const experiments = exps.map((e) => {
          const s = this.experimentSubmissions.filter((x) => x.experimentId === e.id && x.student.id === k.userId).sort((a, b) => b.submittedAt.localeCompare(a.submittedAt))[0]
          return { experimentId: e.id, title: e.title, submissionId: s?.id ?? null, submittedAt: s?.submittedAt ?? null, score: s?.score ?? null, feedback: s?.feedback ?? null, gradedAt: s?.gradedAt ?? null }
        })
        const scores = [...learning.map((s) => s.score), ...experiments.map((e) => e.score)].filter((s): s is number => s != null)
        return {
          userId: k.userId,
          username: this.ref(k.userId).username,
          displayName: this.ref(k.userId).displayName,
          submissionCount: learning.length + experiments.filter((e) => e.submissionId).length,
          gradedCount: scores.length,
          averageScore: scores.length ? Math.round((scores.reduce((a, b) => a + b, 0) / scores.length) * 10) / 10 : null,
          experiments,
        }
      })
      return ok({ students })
    }
    return fail(404, 40400, `No route for ${method} ${path} (fake API).`)
  }

  private newTask(courseId: string, pointId: string, b: any): Task {
    const homework = b.taskKind === 'HOMEWORK'
    return {
      id: newId(),
      pointId,
      courseId,
      title: b.title,
      taskKind: b.taskKind ?? 'LEARNING',
      taskType: b.taskType,
      materialType: b.taskType === 'MEDIA' ? b.materialType : null,
      content: b.content ?? '',
      url: b.url ?? null,
      resourceId: b.resourceId ?? null,
      questions: b.taskType === 'QUIZ' ? (b.questions as Question[]).map((q) => ({ ...q, id: q.id ?? newId(), points: q.points ?? 1 })) : null,
      startAt: homework ? (b.startAt ?? this.iso()) : null,
      dueAt: homework ? b.dueAt : null,
      notifyOnStart: b.notifyOnStart ?? true,
      notifyBeforeDue24h: b.notifyBeforeDue24h ?? true,
      notifyOnDue: b.notifyOnDue ?? true,
      sortOrder: this.tasks.filter((t) => t.pointId === pointId).length + 1,
      createdAt: this.iso(),
    }
  }
}
