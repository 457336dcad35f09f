import type { Sql } from '../../db/connect.ts'
import { myCourses } from '../courses/queries.ts'

export interface FeedOwner {
  user_id: string
  locale: string | null
}

export interface DeadlineRow {
  kind: 'HOMEWORK' | 'EXPERIMENT'
  id: string
  course_id: string
  course_title: string
  title: string
  due_at: Date
  sequence: number
  modified_at: Date
}

/**
 * The user's feed token, created on first use. Concurrent first uses agree on one: the insert
 * that loses the race waits for the winner to commit and does nothing, and the row is then read
 * by a fresh statement, whose snapshot sees it (a select in the insert's own statement does not).
 */
export async function feedToken(sql: Sql, userId: string, fresh: string): Promise<string> {
  const existing = async () => (await sql<{ token: string }[]>`select token from calendar_feeds where user_id = ${userId}`)[0]?.token
  const known = await existing()
  if (known) return known
  const [created] = await sql<{ token: string }[]>`
    insert into calendar_feeds (user_id, token) values (${userId}, ${fresh})
    on conflict (user_id) do nothing
    returning token`
  if (created) return created.token
  const winner = await existing()
  // Only the row's removal between the two statements (the account deleted) gets here: start over.
  return winner ?? feedToken(sql, userId, fresh)
}

/** Replaces the token: the old URL stops working in the same statement. */
export async function rotateToken(sql: Sql, userId: string, fresh: string): Promise<string> {
  const [row] = await sql<{ token: string }[]>`
    insert into calendar_feeds (user_id, token) values (${userId}, ${fresh})
    on conflict (user_id) do update set token = excluded.token, created_at = now()
    returning token`
  return row!.token
}

export async function feedOwner(sql: Sql, token: string): Promise<FeedOwner | null> {
  const [row] = await sql<FeedOwner[]>`
    select f.user_id, u.locale
      from calendar_feeds f join users u on u.id = f.user_id
     where f.token = ${token}`
  return row ?? null
}

/**
 * Every homework and experiment deadline of the courses the user teaches or has joined, in one
 * statement (index lookups per course: learning_tasks_homework_idx, experiments_course_idx).
 */
export async function deadlines(sql: Sql, userId: string): Promise<DeadlineRow[]> {
  return sql<DeadlineRow[]>`
    with my_courses as (${myCourses(sql, userId)})
    select 'HOMEWORK' as kind, t.id, t.course_id, mc.title as course_title, t.title, t.due_at,
           t.calendar_sequence as sequence, coalesce(t.calendar_modified_at, t.created_at) as modified_at
      from my_courses mc
      join learning_tasks t on t.course_id = mc.id and t.task_kind = 'HOMEWORK' and t.publish_state = 'PUBLISHED'
    union all
    select 'EXPERIMENT', e.id, e.course_id, mc.title, e.title, e.due_at,
           e.calendar_sequence, coalesce(e.calendar_modified_at, e.created_at)
      from my_courses mc
      join experiments e on e.course_id = mc.id
    order by due_at, id`
}
