import postgres from 'postgres'
import type { Fanout } from '../../lib/fanout.ts'
import type { Sql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { AppError, conflict, forbidden, invalidField, notFound } from '../../http/errors.ts'
import { courseArchived, type CurrentUser } from '../../http/guards.ts'
import { offsetOf, page, type PageQuery } from '../../http/pagination.ts'
import { newId } from '../../lib/ids.ts'
import { courseArchived as courseArchivedHook, courseUnarchived, studentJoined } from '../reminders/hooks.ts'
import { normaliseInviteCode, randomInviteCode, type CodeGenerator } from './invite-code.ts'
import type { CreateCourseBody, MembersQuery, UpdateCourseBody } from './model.ts'
import * as q from './queries.ts'

/** A collision among ~8.5e11 codes is rare; several in a row means something else is wrong. */
const CODE_ATTEMPTS = 5

/** The one row → API mapping for courses. The invite code and joining switch are the teacher's only. */
export const toCourse = (r: q.CourseRow, viewerId: string) => {
  // Co-teachers see what the owner sees (sql/034).
  const isTeacher = r.teacher_id === viewerId || r.co_teacher
  return {
    id: r.id,
    title: r.title,
    description: r.description,
    teacher: { id: r.teacher_id, username: r.teacher_username, displayName: r.teacher_display_name },
    memberCount: r.member_count,
    studentCount: r.student_count,
    createdAt: iso(r.created_at)!,
    ...(isTeacher ? { inviteCode: r.invite_code, joiningOpen: r.joining_open } : {}),
    myRole: isTeacher ? ('TEACHER' as const) : ('STUDENT' as const),
    archived: r.archived,
    studentComments: r.student_comments,
  }
}
export type Course = ReturnType<typeof toCourse>

const toMember = (r: q.MemberRow) => ({
  userId: r.user_id,
  username: r.username,
  displayName: r.display_name,
  role: r.role,
  owner: r.owner,
  joinedAt: iso(r.joined_at)!,
})

// Wider than the generated codes (older or fixture codes may be longer or use 0/1): anything
// else cannot name a course and is answered without a query.
const INVITE_CODE_SHAPE = /^[A-Z0-9]{1,64}$/
const unknownCode = () => notFound('COURSE_NOT_FOUND', 'No course has this invite code. Check the code with your teacher.')

const codesExhausted = () => new AppError('UNAVAILABLE', 'Could not allocate a unique invite code; please retry.')

async function courseFor(sql: Sql, courseId: string, viewerId: string) {
  const row = await q.findCourse(sql, courseId, viewerId)
  if (!row) throw notFound('COURSE_NOT_FOUND', 'This course does not exist.')
  return toCourse(row, viewerId)
}

export async function createCourse(
  sql: Sql,
  teacher: CurrentUser,
  body: CreateCourseBody,
  now: Date,
  codes: CodeGenerator = randomInviteCode,
): Promise<Course> {
  const id = newId()
  for (let i = 0; i < CODE_ATTEMPTS; i++) {
    const inserted = await q.insertCourse(sql, { id, teacherId: teacher.id, ...body, inviteCode: codes(), now })
    if (inserted) return courseFor(sql, id, teacher.id)
  }
  throw codesExhausted()
}

export async function listMyCourses(sql: Sql, user: CurrentUser, archived = false) {
  return (await q.listCoursesOf(sql, user, archived)).map((r) => toCourse(r, user.id))
}

export const getCourse = (sql: Sql, courseId: string, user: CurrentUser) => courseFor(sql, courseId, user.id)

/**
 * Edits a course. Archiving cancels its pending reminders and unarchiving creates those still
 * ahead, in the same transaction as the flag. An archived course accepts only `archived: false`
 * (with other edits alongside) or `archived: true` alone (a repeat): anything else is a write in
 * a read-only course (409, 40908).
 */
export async function updateCourse(sql: Sql, courseId: string, user: CurrentUser, body: UpdateCourseBody, now: Date, fanout?: Fanout) {
  let queued = false
  await sql.begin(async (tx) => {
    const before = await q.lockCourseState(tx, courseId)
    if (!before) throw notFound('COURSE_NOT_FOUND', 'This course does not exist.')
    const archivingAgain = body.archived === true && Object.values(body).filter((v) => v !== undefined).length === 1
    if (before.archived && body.archived !== false && !archivingAgain) throw courseArchived()
    await q.updateCourse(tx, courseId, body)
    if (body.archived === true && !before.archived) await courseArchivedHook(tx, courseId)
    if (body.archived === false && before.archived) queued = await courseUnarchived(tx, courseId, now, fanout)
  })
  if (queued) fanout!.kick()
  return courseFor(sql, courseId, user.id)
}

const isUniqueViolation = (e: unknown) => e instanceof postgres.PostgresError && e.code === '23505'

/** A new code replaces the old one at once: the old code stops working. */
export async function rotateInviteCode(sql: Sql, courseId: string, user: CurrentUser, codes: CodeGenerator = randomInviteCode) {
  for (let i = 0; i < CODE_ATTEMPTS; i++) {
    try {
      await q.setInviteCode(sql, courseId, codes())
      return courseFor(sql, courseId, user.id)
    } catch (e) {
      if (!isUniqueViolation(e)) throw e
    }
  }
  throw codesExhausted()
}

/**
 * Joins a student by invite code. Idempotent: joining again returns the course unchanged.
 * The membership insert and the reminder hook share one transaction, so a student who joins
 * gets the pending homework reminders exactly when the membership exists.
 */
export async function joinCourse(sql: Sql, user: CurrentUser, inviteCode: string, now: Date) {
  if (user.role !== 'STUDENT') {
    throw forbidden('Teacher accounts cannot join courses by invite code; only student accounts can join.')
  }
  const code = normaliseInviteCode(inviteCode)
  if (!INVITE_CODE_SHAPE.test(code)) throw unknownCode()
  const courseId = await sql.begin(async (tx) => {
    // One join of a student at a time: with the membership written last (below), two joins of
    // the same student at once would otherwise both find "not a member" and both run the hook.
    await q.lockJoinsOf(tx, user.id)
    const course = await q.findByInviteCodeForJoin(tx, code, user.id)
    if (!course) throw unknownCode()
    if (course.already_member) return course.id
    if (course.archived) throw courseArchived()
    if (!course.joining_open) {
      throw conflict('JOINING_CLOSED', 'This course is not accepting new members right now. Ask your teacher to open joining.')
    }
    // Events first, the membership last: its insert updates the course's counter and gradebook
    // version rows (statement triggers), which every join of the course waits for; written last,
    // they are held only for the commit (100 joins at once into a 100,000-student course waited
    // in line behind each other's event inserts).
    await studentJoined(tx, course.id, user.id, now)
    await q.insertMember(tx, course.id, user.id, now)
    return course.id
  })
  return courseFor(sql, courseId, user.id)
}

/** An opaque keyset cursor: the last student row of a page, (joined_at as text, user id). */
const encodeCursor = (r: q.MemberRow) => Buffer.from(JSON.stringify([r.joined_key, r.user_id])).toString('base64url')

function decodeCursor(cursor: string): q.StudentCursor {
  try {
    const [joinedKey, userId] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[]
    const at = typeof joinedKey === 'string' ? PG_TIMESTAMPTZ.exec(joinedKey) : null
    // Checked as a real instant here, so a forged cursor is a 400, never a database error.
    if (at && typeof userId === 'string' && UUID.test(userId) && !Number.isNaN(Date.parse(`${at[1]}T${at[2]}${at[3]}:${at[4] ?? '00'}`))) {
      return { joinedKey: joinedKey as string, userId }
    }
  } catch {}
  throw invalidField('after', 'is not a cursor from this list')
}
const PG_TIMESTAMPTZ = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d{1,6})?)([+-]\d\d)(?::?(\d\d))?$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The owner, the co-teachers, then the students in join order, paged. Every read costs the
 * same at 30 and 100,000 students: the total comes from the course's counter row, the teachers
 * are a handful of keyed rows, and students are read from an index in order (sql/034): page N
 * walks the index alone; `after` (the `nextCursor` of the previous page) seeks to its row.
 * `q` filters by name or username (case-insensitive, contains): the one read that walks the
 * course's index entries, which the class list's search needs.
 */
export async function listMembers(sql: Sql, courseId: string, query: MembersQuery) {
  const search = query.q ? query.q.toLowerCase() : null
  const after = query.after ? decodeCursor(query.after) : null
  const offset = offsetOf(query)
  // The teachers and the course's student count in one statement (the owner's row is always there).
  const teachers = await q.listTeachers(sql, courseId)
  const matching = search
    ? teachers.filter((t) => t.display_name.toLowerCase().includes(search) || t.username.toLowerCase().includes(search))
    : teachers
  // With a cursor the page holds students only (the teachers came on the first page).
  const teacherItems = after ? [] : matching.slice(offset, offset + query.pageSize)
  const limit = query.pageSize - teacherItems.length
  const studentOffset = after ? 0 : Math.max(0, offset - matching.length)
  const [students, studentTotal] = await Promise.all([
    limit > 0 ? q.listStudents(sql, courseId, { limit, offset: studentOffset, after, search }) : Promise.resolve([] as q.MemberRow[]),
    search ? q.countMatchingStudents(sql, courseId, search) : Promise.resolve(teachers[0]?.course_students ?? 0),
  ])
  const last = students.length === limit && limit > 0 ? students[students.length - 1] : undefined
  return {
    ...page([...teacherItems, ...students].map(toMember), matching.length + studentTotal, query),
    nextCursor: last ? encodeCursor(last) : null,
  }
}
