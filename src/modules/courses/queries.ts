import type { Sql, TxSql } from '../../db/connect.ts'
import type { RowWindow } from '../../http/pagination.ts'

type Db = Sql | TxSql

export interface CourseRow {
  id: string
  title: string
  description: string
  invite_code: string
  joining_open: boolean
  archived: boolean
  created_at: Date
  teacher_id: string
  teacher_username: string
  teacher_display_name: string
  /** The teacher plus the students. */
  member_count: number
}

/** Inserts a course unless its invite code is taken; null means "draw another code". */
export async function insertCourse(
  sql: Db,
  c: { id: string; teacherId: string; title: string; description: string; inviteCode: string; now: Date },
) {
  const [row] = await sql<{ id: string }[]>`
    insert into courses (id, teacher_id, title, description, invite_code, joining_open, created_at)
    values (${c.id}, ${c.teacherId}, ${c.title}, ${c.description}, ${c.inviteCode}, true, ${c.now})
    on conflict (invite_code) do nothing
    returning id`
  return row ?? null
}

export async function findCourse(sql: Db, courseId: string) {
  const [row] = await sql<CourseRow[]>`
    select c.id, c.title, c.description, c.invite_code, c.joining_open, c.archived, c.created_at,
           t.id as teacher_id, t.username as teacher_username, t.display_name as teacher_display_name,
           1 + (select count(*) from course_members m where m.course_id = c.id)::int as member_count
      from courses c
      join users t on t.id = c.teacher_id
     where c.id = ${courseId}`
  return row ?? null
}

/** The courses a user teaches or has joined (active or archived ones), most recently created/joined first. */
export async function listCoursesOf(sql: Db, userId: string, archived = false) {
  return sql<CourseRow[]>`
    with mine as (
      select id as course_id, created_at as since from courses where teacher_id = ${userId}
      union all
      select course_id, joined_at from course_members where user_id = ${userId}
    )
    select c.id, c.title, c.description, c.invite_code, c.joining_open, c.archived, c.created_at,
           t.id as teacher_id, t.username as teacher_username, t.display_name as teacher_display_name,
           1 + (select count(*) from course_members m where m.course_id = c.id)::int as member_count
      from mine
      join courses c on c.id = mine.course_id
      join users t on t.id = c.teacher_id
     where c.archived = ${archived}
     order by mine.since desc, c.id desc`
}

export async function updateCourse(
  sql: Db,
  courseId: string,
  patch: { title?: string; description?: string; joiningOpen?: boolean; archived?: boolean },
) {
  await sql`
    update courses
       set title = coalesce(${patch.title ?? null}::text, title),
           description = coalesce(${patch.description ?? null}::text, description),
           joining_open = coalesce(${patch.joiningOpen ?? null}::boolean, joining_open),
           archived = coalesce(${patch.archived ?? null}::boolean, archived)
     where id = ${courseId}`
}

/** The course row locked for a change of its archived state; its state before the change. */
export async function lockCourseState(sql: Db, courseId: string) {
  const [row] = await sql<{ archived: boolean }[]>`select archived from courses where id = ${courseId} for no key update`
  return row ?? null
}

/** Throws 23505 when the code is taken (the caller draws another). */
export async function setInviteCode(sql: Db, courseId: string, inviteCode: string) {
  await sql`update courses set invite_code = ${inviteCode} where id = ${courseId}`
}

/**
 * The course behind an invite code, locked against a concurrent close/rotation until the
 * join commits, with whether the user is already in it.
 */
export async function findByInviteCodeForJoin(sql: Db, inviteCode: string, userId: string) {
  const [row] = await sql<{ id: string; teacher_id: string; joining_open: boolean; archived: boolean; already_member: boolean }[]>`
    select c.id, c.teacher_id, c.joining_open, c.archived,
           exists (select 1 from course_members m where m.course_id = c.id and m.user_id = ${userId}) as already_member
      from courses c
     where c.invite_code = ${inviteCode}
       for share of c`
  return row ?? null
}

/** Adds a student; false when they were already a member (the primary key decides, race-free). */
export async function insertMember(sql: Db, courseId: string, userId: string, now: Date) {
  const res = await sql`
    insert into course_members (course_id, user_id, joined_at)
    values (${courseId}, ${userId}, ${now})
    on conflict (course_id, user_id) do nothing`
  return res.count === 1
}

export interface MemberRow {
  user_id: string
  username: string
  display_name: string
  role: 'TEACHER' | 'STUDENT'
  joined_at: Date
}

/** Teacher first (joined = course creation), then students by join time. */
export async function listMembers(sql: Db, courseId: string, limit: number, offset: number) {
  return sql<MemberRow[]>`
    with people as (
      select c.teacher_id as user_id, 'TEACHER' as role, c.created_at as joined_at, 0 as rank
        from courses c where c.id = ${courseId}
      union all
      select m.user_id, 'STUDENT', m.joined_at, 1
        from course_members m where m.course_id = ${courseId}
    )
    select p.user_id, u.username, u.display_name, p.role, p.joined_at
      from people p
      join users u on u.id = p.user_id
     order by p.rank, p.joined_at, p.user_id
     limit ${limit} offset ${offset}`
}

export async function countMembers(sql: Db, courseId: string) {
  const [row] = await sql<{ total: number }[]>`
    select 1 + count(*)::int as total from course_members where course_id = ${courseId}`
  return row!.total
}

/**
 * The courses a user teaches or has joined, as the body of a `with my_courses as (…)` CTE with
 * columns (id, title, is_teacher): two index lookups (taught, joined) rather than an OR over
 * every course. Shared by the homework centre, the experiments list and the calendar feed.
 */
export function myCourses(sql: Sql | TxSql, userId: string) {
  // (A fragment, not a statement: tests that count statements skip text starting with a comment.)
  return sql`
      -- taught, then joined
      select c.id, c.title, true as is_teacher
        from courses c
       where c.teacher_id = ${userId}
      union all
      select c.id, c.title, false
        from course_members m
        join courses c on c.id = m.course_id
       where m.user_id = ${userId} and c.teacher_id <> ${userId}`
}

/**
 * The course's students (or just `studentId`) in name order, one window of them: read in
 * order from course_members_roster_idx (sql/028), the limit applied before anything is joined.
 */
export function roster(sql: Db, courseId: string, studentId: string | null, window: RowWindow) {
  return sql`(
    select r.user_id, r.username, r.display_name, lower(r.display_name) as sort_name, lower(r.username) as sort_username
      from course_members r
     where r.course_id = ${courseId} ${studentId ? sql`and r.user_id = ${studentId}` : sql``}
     order by lower(r.display_name), lower(r.username), r.user_id
     ${window ? sql`limit ${window.limit} offset ${window.offset}` : sql``})`
}
