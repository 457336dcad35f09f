import { beforeAll, describe, expect, test } from 'bun:test'
import { UNKNOWN_ID } from '../courses/world.ts'
import { BIG, NOT_A_UUID } from '../learning/helpers.ts'
import type { Account } from '../support/harness.ts'
import { comment, commentWorld, type CommentWorld } from './world.ts'

/*
 * Every comment endpoint against the permission matrix and bad input: 401 without a login,
 * 403 for non-members and the wrong person, 400 for bad bodies, huge bodies and ids that are
 * not UUIDs, 404 for unknown ids and for a task or announcement of another course. None 500s.
 */

let w: CommentWorld
let classComment: { id: string }
let privateComment: { id: string }
beforeAll(async () => {
  w = await commentWorld()
  classComment = await comment(w, w.paths.task, w.student)
  privateComment = await comment(w, w.paths.private(w.student), w.student)
}, 30_000)

type Method = 'get' | 'post'
const threads = () => [
  { name: 'announcement', path: w.paths.announcement },
  { name: 'task', path: w.paths.task },
  { name: 'private', path: w.paths.private(w.student) },
]
const call = (method: Method, path: string, token?: string, json: unknown = { content: '<p>x</p>' }) =>
  w.api[method](path, { token, json: method === 'post' ? json : undefined })

describe('threads: GET and POST', () => {
  test('401 without a login or with a bad token, whatever the body', async () => {
    for (const { path } of threads()) {
      for (const method of ['get', 'post'] as const) {
        for (const token of [undefined, 'not-a-token']) {
          const r = await call(method, path, token, { junk: BIG })
          expect([r.status, r.code]).toEqual([401, 40100])
        }
      }
    }
  })

  test('403 for a student or a teacher of no part in the course, whatever the body', async () => {
    for (const { path } of threads()) {
      for (const method of ['get', 'post'] as const) {
        for (const who of [w.outsider, w.otherTeacher]) {
          const r = await call(method, path, who.token, { junk: true })
          expect([r.status, r.code]).toEqual([403, 40300])
        }
      }
    }
  })

  test("403 for another student's private thread", async () => {
    for (const method of ['get', 'post'] as const) {
      const r = await call(method, w.paths.private(w.student), w.student2.token)
      expect([r.status, r.code]).toEqual([403, 40300])
    }
  })

  test('400: a missing, empty, non-string, unknown-field or huge body; malformed JSON', async () => {
    for (const { path } of threads()) {
      for (const json of [{}, { content: '' }, { content: 42 }, { content: 'x', extra: 1 }, { content: BIG }, null, []]) {
        const r = await call('post', path, w.teacher.token, json)
        expect(r.status).toBe(400)
        expect([40000, 40001]).toContain(r.code)
      }
      const bad = await w.api.post(path, { token: w.teacher.token, raw: '{"content":', headers: { 'content-type': 'application/json' } })
      expect(bad.status).toBe(400)
    }
  })

  test('400: ids that are not UUIDs, in every position', async () => {
    const c = w.course.id
    const paths = [
      `/courses/${NOT_A_UUID}/announcements/${w.announcement.id}/comments`,
      `/courses/${c}/announcements/${NOT_A_UUID}/comments`,
      `/courses/${NOT_A_UUID}/learning/tasks/${w.task.id}/comments`,
      `/courses/${c}/learning/tasks/${NOT_A_UUID}/comments`,
      `/courses/${c}/learning/tasks/${NOT_A_UUID}/students/${w.student.id}/comments`,
      `/courses/${c}/learning/tasks/${w.task.id}/students/${NOT_A_UUID}/comments`,
    ]
    for (const path of paths) {
      for (const method of ['get', 'post'] as const) {
        const r = await call(method, path, w.teacher.token)
        expect(r.status).toBe(400)
        expect(r.code).toBe(40001)
      }
    }
  })

  test('404: unknown course, announcement, task, student; an announcement or task of another course; a draft task for students', async () => {
    const c = w.course.id
    const cases: [string, Account, number][] = [
      [`/courses/${UNKNOWN_ID}/announcements/${w.announcement.id}/comments`, w.teacher, 40401],
      [`/courses/${c}/announcements/${UNKNOWN_ID}/comments`, w.student, 40409],
      [`/courses/${c}/learning/tasks/${UNKNOWN_ID}/comments`, w.student, 40404],
      [`/courses/${c}/learning/tasks/${w.otherTask.id}/comments`, w.teacher, 40404],
      [`/courses/${c}/learning/tasks/${w.otherTask.id}/students/${w.student.id}/comments`, w.student, 40404],
      [`/courses/${c}/learning/tasks/${w.draft.id}/comments`, w.student, 40404],
      [`/courses/${c}/learning/tasks/${w.draft.id}/students/${w.student.id}/comments`, w.student, 40404],
      [`/courses/${c}/learning/tasks/${w.task.id}/students/${UNKNOWN_ID}/comments`, w.teacher, 40400],
      [`/courses/${c}/learning/tasks/${w.task.id}/students/${w.outsider.id}/comments`, w.teacher, 40400],
      [`/courses/${c}/learning/tasks/${w.task.id}/students/${w.coTeacher.id}/comments`, w.teacher, 40400],
    ]
    const otherAnnouncement = await w.api.post(`/courses/${w.otherCourse.id}/announcements`, { token: w.otherTeacher.token, json: { title: 'x', content: '<p>x</p>' } })
    cases.push([`/courses/${c}/announcements/${otherAnnouncement.data.id}/comments`, w.teacher, 40409])
    for (const [path, who, code] of cases) {
      for (const method of ['get', 'post'] as const) {
        const r = await call(method, path, who.token)
        expect([path, method, r.status, r.code]).toEqual([path, method, 404, code])
      }
    }
    // Teachers see draft tasks: their threads work.
    expect((await call('get', `/courses/${c}/learning/tasks/${w.draft.id}/comments`, w.teacher.token)).status).toBe(200)
  })
})

describe('PATCH and DELETE /comments/{commentId}', () => {
  const one = (method: 'patch' | 'del', id: string, token?: string, json: unknown = { content: 'x' }) =>
    w.api[method](`/comments/${id}`, { token, json: method === 'patch' ? json : undefined })

  test('401 without a login', async () => {
    for (const method of ['patch', 'del'] as const) {
      const r = await one(method, classComment.id, undefined, { junk: BIG })
      expect([r.status, r.code]).toEqual([401, 40100])
    }
  })

  test("404 (40410) for unknown ids, for non-members, and for another student's private comment", async () => {
    for (const method of ['patch', 'del'] as const) {
      for (const [id, who] of [
        [UNKNOWN_ID, w.teacher],
        [classComment.id, w.outsider],
        [classComment.id, w.otherTeacher],
        [privateComment.id, w.student2],
      ] as const) {
        const r = await one(method, id, who.token)
        expect([r.status, r.code]).toEqual([404, 40410])
      }
    }
  })

  test('403 for the wrong person: editing another member\'s comment, a student hiding or deleting one', async () => {
    for (const [method, who, json] of [
      ['patch', w.student2, { content: 'x' }],
      ['patch', w.teacher, { content: 'x' }],
      ['patch', w.student2, { hidden: true }],
      ['patch', w.student, { hidden: true }],
      ['del', w.student2, undefined],
    ] as const) {
      const r = await one(method, classComment.id, who.token, json)
      expect([r.status, r.code]).toEqual([403, 40300])
    }
  })

  test('400: a non-UUID id, an empty or unknown-field or huge or wrongly-typed body', async () => {
    for (const method of ['patch', 'del'] as const) {
      const r = await one(method, NOT_A_UUID, w.student.token)
      expect([r.status, r.code]).toEqual([400, 40001])
    }
    for (const json of [{}, { content: '' }, { content: 'x'.repeat(10_001) }, { hidden: 'yes' }, { content: 'x', id: 'y' }, { content: BIG }]) {
      const r = await one('patch', classComment.id, w.student.token, json)
      expect(r.status).toBe(400)
      expect(r.code).toBe(40001)
    }
  })
})
