import type { Sql, TxSql } from '../../db/connect.ts'
import { studentCountLateral, studentCountOf } from '../../db/student-count.ts'
import type { RowWindow } from '../../http/pagination.ts'

type Db = Sql | TxSql

export interface CourseRow {
  id: string
  title: string
  description: string
  invite_code: string
  joining_open: boolean
  archived: boolean
  student_comments: boolean
  created_at: Date
  teacher_id: string
  teacher_username: string
  teacher_display_name: string
  /** The owner, the co-teachers and the students. */
  member_count: number
  /** The students only (whom a course-wide notification reaches). */
  student_count: number
  /** The viewer co-teaches this course. */
  co_teacher: boolean
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

/**
 * Owner + co-teachers + students, from the counters kept by triggers (sql/034, sql/046): a keyed
 * row and at most 16 keyed rows, whatever the size of the course (no count of its members per
 * request). Each read once per course (`left join course_counters cc on cc.course_id = c.id`, the
 * `students` column of studentsOf), not once per column.
 */
const memberCount = (sql: Db) => sql`
           1 + coalesce(cc.co_teachers, 0) + cs.students as member_count,
           cs.students as student_count`
/** The course's students (sql/046's summed counter rows) as `cs.students`, for a FROM list with `c`. */
const studentsOf = (sql: Db) => studentCountLateral(sql, sql`c.id`)

export async function findCourse(sql: Db, courseId: string, viewerId: string) {
  const [row] = await sql<CourseRow[]>`
    select c.id, c.title, c.description, c.invite_code, c.joining_open, c.archived, c.student_comments, c.created_at,
           t.id as teacher_id, t.username as teacher_username, t.display_name as teacher_display_name,
           ${memberCount(sql)},
           exists (select 1 from course_teachers ct where ct.course_id = c.id and ct.user_id = ${viewerId}) as co_teacher
      from courses c
      join users t on t.id = c.teacher_id
      left join course_counters cc on cc.course_id = c.id
      ${studentsOf(sql)}
     where c.id = ${courseId}`
  return row ?? null
}

/**
 * The courses of a user, active or archived ones, most recently created/added/joined first: a
 * teacher's are those they own or co-teach, a student's those they have joined (only students join
 * a course, and only teachers own or co-teach one: joins, roster imports and co-teacher invitations
 * check the role, which never changes). One source per role instead of the union of all three for
 * everyone: the student's statement reads only its memberships (GET /courses, the first request
 * of every page load: 25 % less database CPU for a student's list under pgbench).
 */
export async function listCoursesOf(sql: Db, user: { id: string; role: 'STUDENT' | 'TEACHER' }, archived = false) {
  const mine =
    user.role === 'STUDENT'
      ? sql`select course_id, joined_at as since, false as co_teacher from course_members where user_id = ${user.id}`
      : sql`select id as course_id, created_at as since, false as co_teacher from courses where teacher_id = ${user.id}
            union all
            select course_id, added_at, true from course_teachers where user_id = ${user.id}`
  return sql<CourseRow[]>`
    select c.id, c.title, c.description, c.invite_code, c.joining_open, c.archived, c.student_comments, c.created_at,
           t.id as teacher_id, t.username as teacher_username, t.display_name as teacher_display_name,
           ${memberCount(sql)},
           mine.co_teacher
      from (${mine}) mine
      join courses c on c.id = mine.course_id
      join users t on t.id = c.teacher_id
      left join course_counters cc on cc.course_id = c.id
      ${studentsOf(sql)}
     where c.archived = ${archived}
     order by mine.since desc, c.id desc`
}

export async function updateCourse(
  sql: Db,
  courseId: string,
  patch: { title?: string; description?: string; joiningOpen?: boolean; archived?: boolean; studentComments?: boolean },
) {
  await sql`
    update courses
       set title = coalesce(${patch.title ?? null}::text, title),
           description = coalesce(${patch.description ?? null}::text, description),
           joining_open = coalesce(${patch.joiningOpen ?? null}::boolean, joining_open),
           archived = coalesce(${patch.archived ?? null}::boolean, archived),
           student_comments = coalesce(${patch.studentComments ?? null}::boolean, student_comments)
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

/**
 * Serialises one student's joins until the transaction ends (the next statement's snapshot then
 * sees a membership another join just committed). Other students are not held up.
 */
export async function lockJoinsOf(sql: Db, userId: string) {
  await sql`select pg_advisory_xact_lock(hashtext('cls join'), hashtext(${userId}))`
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
  owner: boolean
  joined_at: Date
  /** joined_at as PostgreSQL's text (microseconds and offset): the exact keyset of a cursor. */
  joined_key: string
}

/**
 * The owner (joined = course creation), then the co-teachers by when they were added: a handful
 * of rows. Each row also carries the course's student count from its counter rows (sql/046), read
 * once for the statement: the members page needs both, in one round trip.
 */
export async function listTeachers(sql: Db, courseId: string) {
  return sql<(MemberRow & { course_students: number })[]>`
    select u.id as user_id, u.username, u.display_name, 'TEACHER' as role, p.owner, p.joined_at, p.joined_at::text as joined_key,
           ${studentCountOf(sql, courseId)} as course_students
      from (select c.teacher_id as user_id, true as owner, c.created_at as joined_at, 0 as rank
              from courses c where c.id = ${courseId}
            union all
            select t.user_id, false, t.added_at, 1
              from course_teachers t where t.course_id = ${courseId}) p
      join users u on u.id = p.user_id
     order by p.rank, p.joined_at, p.user_id`
}

/** Where a page of students starts: after (joined_at, user_id) of the previous page's last row. */
export interface StudentCursor {
  joinedKey: string
  userId: string
}

/**
 * One window of the course's students in join order, walked in course_members_join_order_idx
 * (sql/034) without touching the table: the index carries the names. `after` starts after a
 * row (a keyset, constant cost); otherwise `offset` rows of the index are skipped. `search`
 * keeps the rows whose name or username contains it (case-insensitive), still index-only.
 */
export async function listStudents(
  sql: Db,
  courseId: string,
  w: { limit: number; offset: number; after: StudentCursor | null; search: string | null },
) {
  return sql<MemberRow[]>`
    select m.user_id, m.username, m.display_name, 'STUDENT' as role, false as owner, m.joined_at, m.joined_at::text as joined_key
      from course_members m
     where m.course_id = ${courseId}
       ${w.after ? sql`and (m.joined_at, m.user_id) > (${w.after.joinedKey}::timestamptz, ${w.after.userId}::uuid)` : sql``}
       ${w.search ? sql`and (strpos(lower(m.display_name), ${w.search}) > 0 or strpos(lower(m.username), ${w.search}) > 0)` : sql``}
     order by m.joined_at, m.user_id
     limit ${w.limit} ${w.offset > 0 ? sql`offset ${w.offset}` : sql``}`
}

/** The students whose name or username contains `search` (index-only, bounded by the course). */
export async function countMatchingStudents(sql: Db, courseId: string, search: string) {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from course_members m
     where m.course_id = ${courseId}
       and (strpos(lower(m.display_name), ${search}) > 0 or strpos(lower(m.username), ${search}) > 0)`
  return row!.n
}

/**
 * The courses a user teaches (owns or co-teaches) or has joined, as the body of a `with my_courses as (…)` CTE with
 * columns (id, title, is_teacher, archived): three index lookups (owned, co-taught, joined) rather than an OR over
 * every course. Shared by the homework centre, the experiments list and the calendar feed.
 */
export function myCourses(sql: Sql | TxSql, userId: string) {
  // (A fragment, not a statement: tests that count statements skip text starting with a comment.)
  return sql`
      -- taught, then joined
      select c.id, c.title, true as is_teacher, c.archived
        from courses c
       where c.teacher_id = ${userId}
      union all
      select c.id, c.title, true, c.archived
        from course_teachers t
        join courses c on c.id = t.course_id
       where t.user_id = ${userId}
      union all
      select c.id, c.title, false, c.archived
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

