import { ManualClock, signUp, type Account } from '../support/harness.ts'
import { createTask, pointIn, textTask, world as learningWorld } from '../learning/helpers.ts'

/**
 * The cast of the comment tests: a course with its owner, a co-teacher and two students, an
 * announcement, a published and a draft task; another course with its own task; outsiders.
 */
export async function commentWorld(clock = new ManualClock('2031-05-01T08:00:00.000Z'), config: NonNullable<Parameters<typeof learningWorld>[0]>['config'] = {}) {
  const w = await learningWorld({ clock, config })
  const { api, deps } = w
  const coTeacher = await signUp(api, 'TEACHER', 'Co Teacher')
  await deps.sql`insert into course_teachers (course_id, user_id, added_at) values (${w.course.id}, ${coTeacher.id}, now())`
  const announcement = await api.post(`/courses/${w.course.id}/announcements`, { token: w.teacher.token, json: { title: 'Welcome', content: '<p>Hello class</p>' } })
  if (announcement.status !== 201) throw new Error(`announcement: ${announcement.status}`)
  const { point } = await pointIn(w)
  const task = await createTask(api, w.base, w.teacher, point.id, { ...textTask, title: 'Read chapter 1' })
  const draft = await createTask(api, w.base, w.teacher, point.id, { ...textTask, title: 'Draft', state: 'DRAFT' })
  const other = await pointIn({ api, base: w.otherBase, teacher: w.otherTeacher })
  const otherTask = await createTask(api, w.otherBase, w.otherTeacher, other.point.id, { ...textTask, title: 'Elsewhere' })
  const c = w.course.id
  const paths = {
    announcement: `/courses/${c}/announcements/${announcement.data.id}/comments`,
    task: `/courses/${c}/learning/tasks/${task.id}/comments`,
    private: (student: Account) => `/courses/${c}/learning/tasks/${task.id}/students/${student.id}/comments`,
  }
  return { ...w, clock, coTeacher, announcement: announcement.data as { id: string }, task: task as { id: string }, draft: draft as { id: string }, otherTask: otherTask as { id: string }, paths }
}
export type CommentWorld = Awaited<ReturnType<typeof commentWorld>>

/** Posts a comment and insists it worked. */
export async function comment(w: CommentWorld, path: string, who: Account, content = '<p>Hi</p>') {
  const r = await w.api.post(path, { token: who.token, json: { content } })
  if (r.status !== 201) throw new Error(`comment: ${r.status} ${JSON.stringify(r.body)}`)
  return r.data as { id: string; content: string; hidden: boolean; editedAt: string | null }
}
