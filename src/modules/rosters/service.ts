import { z } from 'zod'
import type { Sql, TxSql } from '../../db/connect.ts'
import { iso } from '../../http/envelope.ts'
import { AppError, conflict, invalidField, notFound } from '../../http/errors.ts'
import type { CourseAccess, CurrentUser } from '../../http/guards.ts'
import { offsetOf, page, type PageQuery } from '../../http/pagination.ts'
import { studentLeft, studentsJoined } from '../reminders/hooks.ts'
import { ROSTER_MAX_ROWS, type AddTeacherBody, type InvalidReason, type RosterReport } from './model.ts'
import { queueTeacherInvitationMails, type WaitReason } from './invitation-mail.ts'
import * as q from './queries.ts'

/** A co-teacher as a member of the course (the shape of GET /courses/{id}/members items). */
export async function addCoTeacher(sql: Sql, course: CourseAccess, owner: CurrentUser, body: AddTeacherBody, now: Date, mailOn: boolean) {
  const account = await q.findAccount(sql, body.identifier)
  if (!account) throw notFound('NOT_FOUND', 'No account has this username or e-mail.')
  // An address only names its owner once the owner proved it: anyone may register a colleague's
  // address and wait to be added by it (issue 48). A username names the account itself.
  if (account.by_email && !account.email_verified && mailOn) {
    throw conflict(
      'CONFLICT',
      'The account with this e-mail address has not confirmed the address, so it cannot be added by address. Add the teacher by username, or ask them to confirm their address first.',
    )
  }
  if (account.role === 'STUDENT') {
    throw conflict('STUDENT_ACCOUNT', 'This is a student account; only teacher accounts can become co-teachers.')
  }
  const added = account.id === course.teacherId ? null : await q.insertCoTeacher(sql, course.id, account.id, owner.id, now)
  if (!added) throw conflict('ALREADY_TEACHER', 'This account already teaches this course.')
  return {
    userId: account.id,
    username: account.username,
    displayName: account.display_name,
    role: 'TEACHER' as const,
    owner: false,
    joinedAt: iso(added.added_at)!,
  }
}

export async function removeCoTeacher(sql: Sql, courseId: string, userId: string) {
  if (!(await q.deleteCoTeacher(sql, courseId, userId))) {
    throw notFound('NOT_FOUND', 'This account is not a co-teacher of this course.')
  }
}

/**
 * A student leaves (or is removed): in one transaction the membership goes and so do their
 * pending reminders of the course. Everything that lists students reads course_members, so they
 * leave the roster, the counters (sql/034), the overviews and the gradebook (whose version the
 * delete raises, sql/030) with it; submissions and grades stay and show again on rejoin.
 * False when they were not a member (a second leave racing the first).
 */
async function dropStudent(sql: Sql, courseId: string, userId: string) {
  return sql.begin(async (tx) => {
    if (!(await q.deleteMember(tx, courseId, userId))) return false
    await studentLeft(tx, courseId, userId)
    return true
  })
}

export async function leaveCourse(sql: Sql, courseId: string, student: CurrentUser) {
  await dropStudent(sql, courseId, student.id)
}

export async function removeMember(sql: Sql, courseId: string, userId: string) {
  if (await q.teachesCourse(sql, courseId, userId)) {
    throw conflict('CONFLICT', 'Teachers of the course cannot be removed from its class list; remove a co-teacher from the teachers instead.')
  }
  if (!(await dropStudent(sql, courseId, userId))) throw notFound('NOT_FOUND', 'This account is not a student of this course.')
}

// ---------------------------------------------------------------------------------------------
// Roster import

export interface RosterRow {
  row: number
  value: string
}

const EMAIL = z.email()

/** A roster sent as CSV: the `email` column of a header row (case-insensitive), one row a line. */
export function rowsOfCsv(text: string): RosterRow[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/)
  const headerAt = lines.findIndex((l) => l.trim() !== '')
  const header = headerAt === -1 ? [] : csvFields(lines[headerAt]!).map((h) => h.trim().toLowerCase())
  const column = header.indexOf('email')
  if (column === -1) throw invalidField('email', 'The CSV needs a header row with an "email" column.')
  const rows: RosterRow[] = []
  for (let i = headerAt + 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue
    rows.push({ row: i + 1, value: csvFields(lines[i]!)[column] ?? '' })
  }
  if (rows.length > ROSTER_MAX_ROWS) throw invalidField('email', `A roster import takes at most ${ROSTER_MAX_ROWS} rows.`)
  return rows
}

/** The fields of one CSV line (RFC 4180 quoting; an address never spans lines). */
function csvFields(line: string): string[] {
  const out: string[] = []
  let cur = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') (cur += '"'), i++
      else if (ch === '"') quoted = false
      else cur += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',' || ch === ';') (out.push(cur), (cur = ''))
    else cur += ch
  }
  out.push(cur)
  return out
}

export const rowsOfJson = (emails: string[]): RosterRow[] => emails.map((value, i) => ({ row: i + 1, value }))

/** What a roster import needs to know about the server's mail (null: the server sends no e-mail). */
export interface RosterMail {
  /** The language of invitation mails (the importing request's). */
  locale: string
  /** INVITATION_MAILS_PER_DAY: one teacher's invitation mails in any 24 hours. */
  perDay: number
}

/**
 * Enrols a list of addresses. A STUDENT account is enrolled exactly as a join by code (its
 * late-joiner reminders, in bulk) when its address is verified — or whatever its address on a
 * server without e-mail, where nobody can verify; an unverified one gets a pending invitation
 * instead and is enrolled when it verifies (whoever registered the address first cannot enter a
 * course through someone else's class list, issue 48). A TEACHER account or a malformed address
 * is reported, an unknown address gets a pending invitation. Idempotent: a second import of the
 * same list changes nothing (memberships and invitations are unique). Imports of one course are
 * serialised; the statements are set-based whatever the list's length. With `mail` (the server
 * sends e-mail) each new invitation of an unknown address is mailed once, within the caps of
 * invitation-mail.ts; the report lists the invitations whose mail waits, and why.
 */
export async function importRoster(
  sql: Sql,
  courseId: string,
  teacher: CurrentUser,
  rows: RosterRow[],
  now: Date,
  mail: RosterMail | null = null,
): Promise<RosterReport> {
  const invalid: RosterReport['invalid'] = []
  const rowOf = new Map<string, RosterRow>()
  const reject = (r: RosterRow, reason: InvalidReason) => invalid.push({ row: r.row, value: r.value, reason })
  for (const r of rows) {
    const address = r.value.trim()
    if (!EMAIL.safeParse(address).success) reject(r, 'MALFORMED')
    else if (rowOf.has(address.toLowerCase())) reject(r, 'DUPLICATE')
    else rowOf.set(address.toLowerCase(), r)
  }
  const addresses = [...rowOf.keys()]
  const { report, waiting } = await sql.begin(async (tx) => {
    await q.lockRoster(tx, courseId)
    const accounts = addresses.length ? await q.accountsByEmail(tx, addresses) : []
    const known = new Set(accounts.map((a) => a.email))
    for (const a of accounts) if (a.role === 'TEACHER') reject(rowOf.get(a.email)!, 'TEACHER_ACCOUNT')
    const studentAccounts = accounts.filter((a) => a.role === 'STUDENT')
    const students = studentAccounts.filter((a) => a.email_verified || !mail).map((a) => a.id)
    const unverified = studentAccounts.filter((a) => !a.email_verified && mail).map((a) => a.email)
    const added = await q.insertMembers(tx, students.map(() => courseId), students, now)
    await studentsJoined(
      tx,
      added.map((a) => a.course_id),
      added.map((a) => a.user_id),
      now,
    )
    const unknown = addresses.filter((a) => !known.has(a))
    // An existing account is never mailed by a teacher's import; it joins when it verifies.
    await q.insertInvitations(tx, courseId, unverified, teacher.id, now, { state: 'NONE', locale: null })
    await q.insertInvitations(tx, courseId, unknown, teacher.id, now, { state: mail ? 'WAITING' : 'NONE', locale: mail?.locale ?? null })
    let waiting: { email: string; reason: WaitReason }[] = []
    if (mail) {
      const reason = await queueTeacherInvitationMails(tx, teacher.id, mail.perDay, now, unknown)
      if (reason) waiting = (await q.waitingInvitations(tx, courseId, unknown)).map((email) => ({ email, reason }))
    }
    return {
      report: { enrolled: added.length, alreadyMembers: students.length - added.length, invited: unknown.length + unverified.length, awaitingVerification: unverified.length },
      waiting,
    }
  })
  invalid.sort((a, b) => a.row - b.row)
  const mailWaiting = waiting.map((w) => ({ row: rowOf.get(w.email)!.row, value: rowOf.get(w.email)!.value, reason: w.reason })).sort((a, b) => a.row - b.row)
  return { ...report, invalid, mailWaiting }
}

export async function listInvitations(sql: Sql, courseId: string, query: PageQuery) {
  const [rows, total] = await Promise.all([q.listInvitations(sql, courseId, query.pageSize, offsetOf(query)), q.invitationCount(sql, courseId)])
  return page(
    rows.map((r) => ({ id: r.id, email: r.email, invitedAt: iso(r.created_at)! })),
    total,
    query,
  )
}

export async function revokeInvitation(sql: Sql, courseId: string, invitationId: string) {
  if (!(await q.deleteInvitation(sql, courseId, invitationId))) {
    throw notFound('NOT_FOUND', 'This course has no pending invitation with that id.')
  }
}

/**
 * Enrols a STUDENT account in every course that invited its address (roster import), as a
 * join by code would (late-joiner reminders), and ends those invitations: set-based over the
 * courses, inside the caller's transaction. Called where the address becomes verified (the
 * verification link, a password reset link, an address change) and, on a server without
 * e-mail (nobody can verify there), at registration. Returns the courses joined.
 */
export async function enrolInvitations(tx: TxSql, userId: string, email: string, now: Date): Promise<string[]> {
  const [user] = await tx<{ role: string }[]>`select role from users where id = ${userId}`
  if (user?.role !== 'STUDENT') return []
  const courses = (await q.takeInvitations(tx, email)).map((r) => r.course_id)
  if (courses.length === 0) return []
  const added = await q.insertMembers(tx, courses, courses.map(() => userId), now)
  await studentsJoined(
    tx,
    added.map((a) => a.course_id),
    added.map((a) => a.user_id),
    now,
  )
  return added.map((a) => a.course_id)
}

/** `enrolInvitations` in a transaction of its own. */
export async function enrolInvitedUser(sql: Sql, userId: string, email: string, now: Date): Promise<string[]> {
  return sql.begin((tx) => enrolInvitations(tx, userId, email, now))
}

/** Thrown by the route for a body that is neither JSON nor CSV. */
export const rosterContentType = () =>
  new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the roster as application/json ({ "emails": [...] }) or text/csv with an email column.')
