import { beforeAll, describe, expect, test } from 'bun:test'
import { HOSTILE } from '../learning/helpers.ts'
import { comment, commentWorld, type CommentWorld } from './world.ts'

/*
 * The course's conversation (issue 53): class threads, private threads and who sees them, the
 * edit window, moderation, the course switch, the rate limit and archived courses. Permissions
 * and bad input of every endpoint: permissions.test.ts; notifications: notifications.test.ts.
 */

let w: CommentWorld
beforeAll(async () => {
  w = await commentWorld()
}, 30_000)

const list = (path: string, token: string, query = '') => w.api.get(`${path}${query}`, { token })
const ids = (r: { data: { items: { id: string }[] } }) => r.data.items.map((c) => c.id)

describe('class comments', () => {
  test('a student comments under an announcement and a task: 201, the comment, sanitised; every member reads it', async () => {
    w.clock.set('2031-05-01T09:00:00.000Z')
    const r = await w.api.post(w.paths.announcement, { token: w.student.token, json: { content: HOSTILE } })
    expect(r.status).toBe(201)
    expect(r.code).toBe(0)
    expect(r.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      content: '<p>Hi <a rel="noopener noreferrer nofollow">x</a></p>',
      author: { id: w.student.id, username: w.student.username, displayName: 'Alice', role: 'STUDENT' },
      createdAt: '2031-05-01T09:00:00.000Z',
      editedAt: null,
      hidden: false,
    })
    const [row] = await w.deps.sql<{ content: string }[]>`select content from comments where id = ${r.data.id}`
    expect(row!.content).toBe(r.data.content)
    for (const reader of [w.teacher, w.coTeacher, w.student, w.student2]) {
      const page = await list(w.paths.announcement, reader.token)
      expect(page.status).toBe(200)
      expect(page.data).toEqual({ items: [r.data], nextCursor: null })
    }
    const t = await w.api.post(w.paths.task, { token: w.coTeacher.token, json: { content: '<p>Ask here</p>' } })
    expect(t.status).toBe(201)
    expect(t.data.author.role).toBe('TEACHER')
    expect(ids(await list(w.paths.task, w.student2.token))).toEqual([t.data.id])
  })

  test('a draft or scheduled announcement has no thread for students (404 40409); its teachers comment on it', async () => {
    for (const extra of [{ state: 'DRAFT' }, { state: 'SCHEDULED', publishAt: '2099-01-01T08:00:00.000Z' }]) {
      const a = await w.api.post(`/courses/${w.course.id}/announcements`, { token: w.teacher.token, json: { title: 'Not yet', content: '<p>Soon</p>', ...extra } })
      expect(a.status).toBe(201)
      const path = `/courses/${w.course.id}/announcements/${a.data.id}/comments`
      for (const r of [await list(path, w.student.token), await w.api.post(path, { token: w.student.token, json: { content: '<p>Seen it</p>' } })]) {
        expect(r.status).toBe(404)
        expect(r.code).toBe(40409)
        expect(r.data).toBeNull()
      }
      const own = await w.api.post(path, { token: w.coTeacher.token, json: { content: '<p>Check the date</p>' } })
      expect(own.status).toBe(201)
      expect(ids(await list(path, w.teacher.token))).toEqual([own.data.id])
    }
  })

  test('content with nothing allowed left → 400; over 10,000 characters → 400; exactly 10,000 → 201', async () => {
    const empty = await w.api.post(w.paths.task, { token: w.student.token, json: { content: '<script>alert(1)</script>' } })
    expect(empty.status).toBe(400)
    expect(empty.code).toBe(40001)
    expect(empty.data.fields[0].field).toBe('content')
    const huge = await w.api.post(w.paths.task, { token: w.student.token, json: { content: 'x'.repeat(10_001) } })
    expect(huge.status).toBe(400)
    expect(huge.code).toBe(40001)
    const max = await w.api.post(w.paths.task, { token: w.student.token, json: { content: 'y'.repeat(10_000) } })
    expect(max.status).toBe(201)
    expect(max.data.content).toBe('y'.repeat(10_000))
  })

  test('pages oldest first with a cursor; a forged cursor → 400', async () => {
    const path = `/courses/${w.course.id}/announcements/${w.announcement.id}/comments`
    const a = await w.api.post(`/courses/${w.course.id}/announcements`, { token: w.teacher.token, json: { title: 'Paged', content: '<p>x</p>' } })
    const thread = path.replace(w.announcement.id, a.data.id)
    const written: string[] = []
    for (let i = 0; i < 5; i++) {
      w.clock.advance(1000)
      written.push((await comment(w, thread, i % 2 ? w.teacher : w.student2, `<p>${i}</p>`)).id)
    }
    const p1 = await list(thread, w.student.token, '?pageSize=2')
    expect(ids(p1)).toEqual(written.slice(0, 2))
    expect(p1.data.nextCursor).toEqual(expect.any(String))
    const p2 = await list(thread, w.student.token, `?pageSize=2&after=${p1.data.nextCursor}`)
    expect(ids(p2)).toEqual(written.slice(2, 4))
    const p3 = await list(thread, w.student.token, `?pageSize=2&after=${p2.data.nextCursor}`)
    expect(ids(p3)).toEqual(written.slice(4))
    expect(p3.data.nextCursor).toBeNull()
    for (const bad of ['?after=garbage', `?after=${Buffer.from('yesterday|x').toString('base64url')}`, '?pageSize=0', '?pageSize=201', '?pageSize=abc']) {
      const r = await list(thread, w.student.token, bad)
      expect(r.status).toBe(400)
      expect(r.code).toBe(40001)
    }
  })
})

describe('private threads', () => {
  test('the student and every teacher of the course (co-teachers too) read and write it; another student → 403', async () => {
    const mine = w.paths.private(w.student)
    const q = await comment(w, mine, w.student, '<p>Is my answer right?</p>')
    const a = await comment(w, mine, w.coTeacher, '<p>Almost.</p>')
    for (const reader of [w.student, w.teacher, w.coTeacher]) {
      expect(ids(await list(mine, reader.token))).toEqual([q.id, a.id])
    }
    for (const method of ['get', 'post'] as const) {
      const r = await w.api[method](mine, { token: w.student2.token, json: method === 'post' ? { content: 'peek' } : undefined })
      expect(r.status).toBe(403)
      expect(r.code).toBe(40300)
    }
    // Threads are per student: Bob's is empty, and not Alice's.
    expect(ids(await list(w.paths.private(w.student2), w.student2.token))).toEqual([])
    // ...and never mixed into the class thread.
    expect(ids(await list(w.paths.task, w.teacher.token))).not.toContain(q.id)
  })

  test("another student can neither edit nor delete a private comment, nor learn it exists (404); the class thread's students neither", async () => {
    const c = await comment(w, w.paths.private(w.student), w.student, '<p>secret</p>')
    for (const r of [
      await w.api.patch(`/comments/${c.id}`, { token: w.student2.token, json: { content: 'x' } }),
      await w.api.del(`/comments/${c.id}`, { token: w.student2.token }),
      await w.api.patch(`/comments/${c.id}`, { token: w.outsider.token, json: { content: 'x' } }),
      await w.api.del(`/comments/${c.id}`, { token: w.otherTeacher.token }),
    ]) {
      expect(r.status).toBe(404)
      expect(r.code).toBe(40410)
    }
  })

  test('a removed student loses their thread and the class threads (403); a removed co-teacher too', async () => {
    const gone = await comment(w, w.paths.private(w.student2), w.student2, '<p>before leaving</p>')
    const ex = await w.api.post(`/courses/${w.course.id}/announcements`, { token: w.teacher.token, json: { title: 't', content: '<p>t</p>' } })
    expect(ex.status).toBe(201)
    const res = await w.api.del(`/courses/${w.course.id}/members/${w.student2.id}`, { token: w.teacher.token })
    expect(res.status).toBe(200)
    for (const path of [w.paths.private(w.student2), w.paths.task, w.paths.announcement]) {
      const r = await list(path, w.student2.token)
      expect(r.status).toBe(403)
      const p = await w.api.post(path, { token: w.student2.token, json: { content: 'still here?' } })
      expect(p.status).toBe(403)
    }
    expect((await w.api.patch(`/comments/${gone.id}`, { token: w.student2.token, json: { content: 'x' } })).status).toBe(404)
    // The teachers no longer find a private thread of someone who is not a student of the course.
    const t = await list(w.paths.private(w.student2), w.teacher.token)
    expect(t.status).toBe(404)
    expect(t.code).toBe(40400)

    const co = await w.api.post(w.paths.task, { token: w.coTeacher.token, json: { content: 'x' } })
    expect(co.status).toBe(201)
    await w.deps.sql`delete from course_teachers where course_id = ${w.course.id} and user_id = ${w.coTeacher.id}`
    expect((await list(w.paths.private(w.student), w.coTeacher.token)).status).toBe(403)
    expect((await w.api.del(`/comments/${co.data.id}`, { token: w.coTeacher.token })).status).toBe(404)
    await w.deps.sql`insert into course_teachers (course_id, user_id, added_at) values (${w.course.id}, ${w.coTeacher.id}, now())`
    await w.deps.sql`insert into course_members (course_id, user_id) values (${w.course.id}, ${w.student2.id})`
  })
})

describe('editing and deleting', () => {
  test('its author edits within 15 minutes (editedAt set, sanitised); after that → 409 40910; someone else → 403', async () => {
    w.clock.set('2031-05-02T10:00:00.000Z')
    const c = await comment(w, w.paths.task, w.student, '<p>typo</p>')
    w.clock.set('2031-05-02T10:14:59.000Z')
    const ok = await w.api.patch(`/comments/${c.id}`, { token: w.student.token, json: { content: '<p onclick="x()">fixed</p>' } })
    expect(ok.status).toBe(200)
    expect(ok.data).toMatchObject({ id: c.id, content: '<p>fixed</p>', editedAt: '2031-05-02T10:14:59.000Z', createdAt: '2031-05-02T10:00:00.000Z' })
    const other = await w.api.patch(`/comments/${c.id}`, { token: w.teacher.token, json: { content: 'teacher rewrites' } })
    expect(other.status).toBe(403)
    expect(other.code).toBe(40300)
    w.clock.set('2031-05-02T10:15:00.001Z')
    const late = await w.api.patch(`/comments/${c.id}`, { token: w.student.token, json: { content: 'too late' } })
    expect(late.status).toBe(409)
    expect(late.code).toBe(40910)
    expect((await w.deps.sql`select content from comments where id = ${c.id}`)[0]!.content).toBe('<p>fixed</p>')
  })

  test('its author deletes it at any time; a student cannot delete another\'s class comment (403)', async () => {
    const mine = await comment(w, w.paths.task, w.student2, '<p>mine</p>')
    const theirs = await comment(w, w.paths.task, w.student, '<p>theirs</p>')
    w.clock.advance(3_600_000)
    const no = await w.api.del(`/comments/${theirs.id}`, { token: w.student2.token })
    expect(no.status).toBe(403)
    const yes = await w.api.del(`/comments/${mine.id}`, { token: w.student2.token })
    expect(yes.status).toBe(200)
    expect(yes.data).toBeNull()
    expect(ids(await list(w.paths.task, w.teacher.token))).not.toContain(mine.id)
    const again = await w.api.del(`/comments/${mine.id}`, { token: w.student2.token })
    expect(again.status).toBe(404)
    expect(again.code).toBe(40410)
  })
})

describe('moderation', () => {
  test('a teacher (co-teachers too) hides a class comment: students see it no more, its author still does, marked; unhide', async () => {
    const c = await comment(w, w.paths.announcement, w.student, '<p>rude</p>')
    const hid = await w.api.patch(`/comments/${c.id}`, { token: w.coTeacher.token, json: { hidden: true } })
    expect(hid.status).toBe(200)
    expect(hid.data).toMatchObject({ id: c.id, hidden: true, editedAt: null })
    expect(ids(await list(w.paths.announcement, w.student2.token))).not.toContain(c.id)
    const own = (await list(w.paths.announcement, w.student.token)).data.items.find((x: { id: string }) => x.id === c.id)
    expect(own).toMatchObject({ hidden: true, content: '<p>rude</p>' })
    expect((await list(w.paths.announcement, w.teacher.token)).data.items.find((x: { id: string }) => x.id === c.id).hidden).toBe(true)
    // Another student cannot reach it by id either.
    expect((await w.api.del(`/comments/${c.id}`, { token: w.student2.token })).status).toBe(404)
    const back = await w.api.patch(`/comments/${c.id}`, { token: w.teacher.token, json: { hidden: false } })
    expect(back.data.hidden).toBe(false)
    expect(ids(await list(w.paths.announcement, w.student2.token))).toContain(c.id)
  })

  test('students cannot hide (403); private comments cannot be hidden (403, or 400 for its own author); a teacher deletes any class comment, not a student\'s private one', async () => {
    const c = await comment(w, w.paths.task, w.student, '<p>spam</p>')
    const s = await w.api.patch(`/comments/${c.id}`, { token: w.student.token, json: { hidden: true } })
    expect(s.status).toBe(403)
    const p = await comment(w, w.paths.private(w.student), w.student, '<p>private</p>')
    const ph = await w.api.patch(`/comments/${p.id}`, { token: w.teacher.token, json: { hidden: true } })
    expect([ph.status, ph.code]).toEqual([403, 40300])
    const own = await comment(w, w.paths.private(w.student), w.teacher, '<p>mine</p>')
    const oh = await w.api.patch(`/comments/${own.id}`, { token: w.teacher.token, json: { hidden: true } })
    expect([oh.status, oh.code]).toEqual([400, 40001])
    const pd = await w.api.del(`/comments/${p.id}`, { token: w.teacher.token })
    expect(pd.status).toBe(403)
    const d = await w.api.del(`/comments/${c.id}`, { token: w.coTeacher.token })
    expect(d.status).toBe(200)
    expect((await w.deps.sql`select 1 from comments where id = ${c.id}`).length).toBe(0)
  })
})

describe('the course switch', () => {
  test('studentComments false: students cannot write class comments (403 40303) but read them; private threads and teachers go on', async () => {
    const before = await comment(w, w.paths.task, w.student, '<p>before</p>')
    const off = await w.api.patch(`/courses/${w.course.id}`, { token: w.teacher.token, json: { studentComments: false } })
    expect(off.status).toBe(200)
    expect(off.data.studentComments).toBe(false)
    expect((await w.api.get(`/courses/${w.course.id}`, { token: w.student.token })).data.studentComments).toBe(false)
    for (const path of [w.paths.task, w.paths.announcement]) {
      const r = await w.api.post(path, { token: w.student.token, json: { content: 'x' } })
      expect(r.status).toBe(403)
      expect(r.code).toBe(40303)
    }
    const edit = await w.api.patch(`/comments/${before.id}`, { token: w.student.token, json: { content: 'x' } })
    expect(edit.code).toBe(40303)
    expect(ids(await list(w.paths.task, w.student.token))).toContain(before.id)
    expect((await w.api.post(w.paths.private(w.student), { token: w.student.token, json: { content: 'x' } })).status).toBe(201)
    expect((await w.api.post(w.paths.task, { token: w.teacher.token, json: { content: 'x' } })).status).toBe(201)
    // A student cannot flip it.
    expect((await w.api.patch(`/courses/${w.course.id}`, { token: w.student.token, json: { studentComments: true } })).status).toBe(403)
    const on = await w.api.patch(`/courses/${w.course.id}`, { token: w.teacher.token, json: { studentComments: true } })
    expect(on.data.studentComments).toBe(true)
    expect((await w.api.post(w.paths.task, { token: w.student.token, json: { content: 'x' } })).status).toBe(201)
  })
})

describe('the rate limit', () => {
  test('30 comments a minute per user (429 42900 with Retry-After); another user is not held; the next minute is free again', async () => {
    w.clock.set('2031-05-03T08:00:00.000Z')
    const t = w.teacher
    for (let i = 0; i < 30; i++) expect((await w.api.post(w.paths.task, { token: t.token, json: { content: `${i}` } })).status).toBe(201)
    const r = await w.api.post(w.paths.announcement, { token: t.token, json: { content: 'one more' } })
    expect(r.status).toBe(429)
    expect(r.code).toBe(42900)
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await w.api.post(w.paths.task, { token: w.coTeacher.token, json: { content: 'me' } })).status).toBe(201)
    const [n] = await w.deps.sql<{ n: number }[]>`select count(*)::int as n from comments where author_id = ${t.id} and content = '<p>one more</p>'`
    expect(n!.n).toBe(0)
    w.clock.advance(60_000)
    expect((await w.api.post(w.paths.task, { token: t.token, json: { content: 'later' } })).status).toBe(201)
  })
})

describe('archived courses', () => {
  test('read-only: reading works, posting, editing, hiding and deleting → 409 40908', async () => {
    w.clock.set('2031-05-04T08:00:00.000Z')
    const c = await comment(w, w.paths.task, w.student, '<p>last words</p>')
    expect((await w.api.patch(`/courses/${w.course.id}`, { token: w.teacher.token, json: { archived: true } })).status).toBe(200)
    try {
      expect(ids(await list(w.paths.task, w.student.token))).toContain(c.id)
      expect((await list(w.paths.private(w.student), w.teacher.token)).status).toBe(200)
      for (const r of [
        await w.api.post(w.paths.task, { token: w.student.token, json: { content: 'x' } }),
        await w.api.post(w.paths.private(w.student), { token: w.teacher.token, json: { content: 'x' } }),
        await w.api.patch(`/comments/${c.id}`, { token: w.student.token, json: { content: 'x' } }),
        await w.api.patch(`/comments/${c.id}`, { token: w.teacher.token, json: { hidden: true } }),
        await w.api.del(`/comments/${c.id}`, { token: w.student.token }),
      ]) {
        expect(r.status).toBe(409)
        expect(r.code).toBe(40908)
      }
    } finally {
      await w.api.patch(`/courses/${w.course.id}`, { token: w.teacher.token, json: { archived: false } })
    }
  })
})

describe('copies carry no comments', () => {
  test('a copied course has the task but no comment under it', async () => {
    await comment(w, w.paths.task, w.student, '<p>stays behind</p>')
    const copy = await w.api.post(`/courses/${w.course.id}/copy`, { token: w.teacher.token, json: { title: 'Next term', shiftDays: 0 } })
    expect(copy.status).toBe(201)
    const [n] = await w.deps.sql<{ n: number }[]>`select count(*)::int as n from comments where course_id = ${copy.data.id}`
    expect(n!.n).toBe(0)
    const [t] = await w.deps.sql<{ id: string }[]>`select id from learning_tasks where course_id = ${copy.data.id} and title = 'Read chapter 1'`
    const r = await w.api.get(`/courses/${copy.data.id}/learning/tasks/${t!.id}/comments`, { token: w.teacher.token })
    expect(r.data).toEqual({ items: [], nextCursor: null })
  })
})
