import { beforeAll, describe, expect, test } from 'bun:test'
import type { Sql } from '../../src/db/connect.ts'
import { MARK_ALL_READ } from '../../src/modules/notifications/queries.ts'
import { insertNotifications, notifyCourseStudents, type RawNotification } from '../support/notifications.ts'
import { addStudent, insertCourse } from '../support/fixtures.ts'
import { ManualClock, signUp, testApp, testDatabase, type Account, type Client } from '../support/harness.ts'

/*
 * Issue 11.7: per-user counters (sql/012) kept by triggers in the writing transaction. A
 * randomized history of every kind of write (single and bulk inserts, fan-out, mark read,
 * read-all, deletes, a deleted user) must leave them equal to a count from scratch, and
 * GET /notifications and the homework centre must report them.
 */

const T0 = new Date('2030-06-01T08:00:00.000Z')
const clock = new ManualClock(T0)
let api: Client
let sql: Sql
let users: Account[]
let courseId: string

beforeAll(async () => {
  sql = (await testDatabase()).sql
  ;({ api } = await testApp({ clock }))
  users = await Promise.all(Array.from({ length: 6 }, () => signUp(api)))
  const teacher = await signUp(api, 'TEACHER')
  courseId = (await insertCourse(sql, teacher.id)).id
  for (const u of users.slice(0, 4)) await addStudent(sql, courseId, u.id)
}, 30_000)

/** Deterministic PRNG (mulberry32), so a failure reproduces. */
function rng(seed: number) {
  return () => {
    seed |= 0
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const TYPES: RawNotification['type'][] = ['HOMEWORK_REMINDER', 'SUBMISSION_GRADED', 'ANNOUNCEMENT']

async function fromScratch(ids: string[]) {
  return sql<{ user_id: string; total: number; unread: number; unread_reminders: number }[]>`
    select u.id as user_id, count(n.id)::int as total,
           (count(n.id) filter (where n.read_at is null))::int as unread,
           (count(n.id) filter (where n.read_at is null and n.notification_type = 'HOMEWORK_REMINDER'))::int as unread_reminders
      from unnest(${ids}::uuid[]) as u (id)
      left join notifications n on n.user_id = u.id
     group by u.id order by u.id`
}
async function kept(ids: string[]) {
  return sql<{ user_id: string; total: number; unread: number; unread_reminders: number }[]>`
    select u.id as user_id, coalesce(c.total, 0) as total, coalesce(c.unread, 0) as unread, coalesce(c.unread_reminders, 0) as unread_reminders
      from unnest(${ids}::uuid[]) as u (id)
      left join notification_counters c on c.user_id = u.id
     order by u.id`
}

describe('per-user notification counters', () => {
  test('a randomized history of writes leaves the counters equal to a count from scratch', async () => {
    const rand = rng(20301)
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!
    const ids = users.map((u) => u.id)
    for (let step = 0; step < 120; step++) {
      const r = rand()
      const u = pick(users)
      if (r < 0.3) {
        const n = 1 + Math.floor(rand() * 4)
        const rows = Array.from({ length: n }, () => ({ userId: pick(users).id, type: pick(TYPES), title: `s${step}`, content: '', actionPath: null }))
        await insertNotifications(sql, rows, clock.now())
      } else if (r < 0.4) {
        await notifyCourseStudents(sql, courseId, { type: pick(TYPES), title: `a${step}`, content: '', actionPath: null }, clock.now())
      } else if (r < 0.6) {
        const [one] = await sql<{ id: string }[]>`select id from notifications where user_id = ${u.id} order by random() limit 1`
        if (one) expect((await api.patch(`/notifications/${one.id}/read`, { token: u.token })).status).toBe(200)
      } else if (r < 0.68) {
        expect((await api.patch('/notifications/read-all', { token: u.token })).status).toBe(200)
      } else if (r < 0.8) {
        await sql`delete from notifications where id in (select id from notifications where user_id = any(${ids}::uuid[]) order by random() limit 3)`
      } else if (r < 0.9) {
        // A bulk statement touching several users at once, read and unread.
        await sql`update notifications set read_at = case when read_at is null then ${clock.now()}::timestamptz else null end
                   where id in (select id from notifications where user_id = any(${ids}::uuid[]) order by random() limit 5)`
      } else {
        await sql`update notifications set notification_type = 'HOMEWORK_REMINDER' where id in (select id from notifications where user_id = ${u.id} order by random() limit 2)`
      }
      if (step % 20 === 19) expect(await kept(ids)).toEqual(await fromScratch(ids))
    }
    expect(await kept(ids)).toEqual(await fromScratch(ids))
    expect((await fromScratch(ids)).some((c) => c.total > 0 && c.unread < c.total)).toBe(true)

    // The API reports the counters.
    for (const u of users) {
      const [c] = await fromScratch([u.id])
      const inbox = await api.get('/notifications?pageSize=1', { token: u.token })
      expect(inbox.data).toMatchObject({ total: c!.total, unreadCount: c!.unread })
      const unreadOnly = await api.get('/notifications?unreadOnly=true', { token: u.token })
      expect(unreadOnly.data.total).toBe(c!.unread)
      expect(unreadOnly.data.items).toHaveLength(c!.unread)
      const centre = await api.get('/homeworks/mine', { token: u.token })
      expect(centre.data.unreadReminderCount).toBe(c!.unread_reminders)
    }
  })

  test('deleting a user removes their counter row with their notifications', async () => {
    const gone = await signUp(api)
    await insertNotifications(sql, [{ userId: gone.id, type: 'ANNOUNCEMENT', title: 'x', content: '', actionPath: null }], clock.now())
    expect(await kept([gone.id])).toMatchObject([{ total: 1, unread: 1 }])
    await sql`delete from users where id = ${gone.id}`
    expect(await sql`select 1 from notification_counters where user_id = ${gone.id}`).toHaveLength(0)
  })

  test('mark-all-read does not visit what earlier reads left behind (its cost is independent of history)', async () => {
    // Issue 11 soak: with no VACUUM (the embedded database has none; some servers run without
    // autovacuum) every read leaves a dead entry in the unread index, and the old statement
    // (a bitmap scan of every entry of the user) visited the heap page of each on every read-all.
    // Ten other users' rows interleave with this user's, so those pages are many, as in a real inbox.
    const u = await signUp(api)
    const others = (await Promise.all(Array.from({ length: 9 }, () => signUp(api)))).map((o) => o.id)
    const round = (n: number, tag: string, ids: string[]) =>
      Array.from({ length: n * ids.length }, (_, i) => ({ userId: ids[i % ids.length]!, type: 'ANNOUNCEMENT' as const, title: `${tag}${i}`, content: '', actionPath: null }))
    for (let r = 0; r < 4; r++) {
      clock.advance(60_000)
      await insertNotifications(sql, round(400, `r${r}-`, [u.id, ...others]), clock.now())
      const read = await api.patch('/notifications/read-all', { token: u.token })
      expect(read.status).toBe(200)
      expect(read.data).toEqual({ updated: 400 })
    }
    clock.advance(60_000)
    await insertNotifications(sql, round(2, 'new-', [u.id]), clock.now())
    // An individual read in between leaves a dead entry among the live ones: still all found.
    const [older] = await sql<{ id: string }[]>`select id from notifications where user_id = ${u.id} and title = 'new-0'`
    expect((await api.patch(`/notifications/${older!.id}/read`, { token: u.token })).status).toBe(200)
    clock.advance(60_000)
    await insertNotifications(sql, round(3, 'newer-', [u.id]), clock.now())

    const plan = await sql.begin(async (tx) => {
      const [row] = await tx.unsafe(`explain (analyze, buffers, format json) ${MARK_ALL_READ}`, [u.id, clock.now()])
      await tx`rollback and chain` // undo what EXPLAIN ANALYZE wrote
      return (row as any)['QUERY PLAN'][0].Plan
    })
    // Finding the 4 unread rows (the update's input, below the writes themselves): the old
    // statement touched the heap pages of all 1,600 dead versions, hundreds of blocks.
    const find = plan.Plans[0]
    expect(find['Actual Rows']).toBe(4)
    expect(find['Shared Hit Blocks'] + find['Shared Read Blocks']).toBeLessThan(40)

    const read = await api.patch('/notifications/read-all', { token: u.token })
    expect(read.data).toEqual({ updated: 4 })
    expect(await kept([u.id, ...others])).toEqual(await fromScratch([u.id, ...others]))
    expect(await kept([u.id])).toMatchObject([{ total: 1605, unread: 0 }])
    expect((await api.patch('/notifications/read-all', { token: u.token })).data).toEqual({ updated: 0 })
  }, 30_000)

  test('the inbox page is an index scan keyed by user, newest first, with LIMIT (no sort, no count)', async () => {
    const u = users[0]!
    // A small test table makes any plan cheap; with sorts and bitmap scans priced out, the
    // planner shows whether an index delivers the page in order.
    const plan = (q: string) =>
      sql.begin(async (tx) => {
        await tx`set local enable_sort = off`
        await tx`set local enable_bitmapscan = off`
        await tx`set local enable_seqscan = off`
        return (await tx.unsafe(`explain ${q}`, [u.id])).map((r: any) => r['QUERY PLAN']).join('\n')
      })
    const all = await plan(`select id from notifications where user_id = $1 order by delivered_at desc, id desc limit 50 offset 0`)
    expect(all).toMatch(/Index (Only )?Scan using notifications_user_idx/)
    expect(all).not.toMatch(/Sort|Seq Scan/)
    const unread = await plan(`select id from notifications where user_id = $1 and read_at is null order by delivered_at desc, id desc limit 50 offset 0`)
    expect(unread).toMatch(/Index (Only )?Scan using notifications_user_(unread_)?idx/)
    expect(unread).not.toMatch(/Sort|Seq Scan/)
  })
})
