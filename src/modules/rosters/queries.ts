import type { Sql, TxSql } from '../../db/connect.ts'
import type { Role } from '../../http/guards.ts'

type Db = Sql | TxSql

export async function findAccount(sql: Db, identifier: string) {
  const [row] = await sql<{ id: string; username: string; display_name: string; role: Role; by_email: boolean; email_verified: boolean }[]>`
    select id, username, display_name, role, lower(email) = lower(${identifier}) as by_email, email_verified
      from users
     where lower(username) = lower(${identifier}) or lower(email) = lower(${identifier})
     limit 1`
  return row ?? null
}

/** Adds a co-teacher; null when they already were one (the primary key decides, race-free). */
export async function insertCoTeacher(sql: Db, courseId: string, userId: string, addedBy: string, now: Date) {
  const [row] = await sql<{ added_at: Date }[]>`
    insert into course_teachers (course_id, user_id, added_at, added_by)
    values (${courseId}, ${userId}, ${now}, ${addedBy})
    on conflict (course_id, user_id) do nothing
    returning added_at`
  return row ?? null
}

export async function deleteCoTeacher(sql: Db, courseId: string, userId: string) {
  const res = await sql`delete from course_teachers where course_id = ${courseId} and user_id = ${userId}`
  return res.count === 1
}

/** Whether the user teaches the course (owner or co-teacher). */
export async function teachesCourse(sql: Db, courseId: string, userId: string) {
  const [row] = await sql<{ teaches: boolean }[]>`
    select exists (select 1 from courses where id = ${courseId} and teacher_id = ${userId})
        or exists (select 1 from course_teachers where course_id = ${courseId} and user_id = ${userId}) as teaches`
  return row!.teaches
}

/** Deletes a membership; false when there was none. */
export async function deleteMember(sql: Db, courseId: string, userId: string) {
  const res = await sql`delete from course_members where course_id = ${courseId} and user_id = ${userId}`
  return res.count === 1
}

/** Imports of one course run one at a time (the lock ends with the transaction). */
export async function lockRoster(tx: TxSql, courseId: string) {
  await tx`select pg_advisory_xact_lock(hashtext('course-roster:' || ${courseId}::text))`
}

/** The accounts of these (lower-cased) addresses: one index probe each (users_email_lower_key). */
export async function accountsByEmail(sql: Db, emails: string[]) {
  return sql<{ id: string; email: string; role: Role; email_verified: boolean }[]>`
    select u.id, lower(u.email) as email, u.role, u.email_verified
      from unnest(${emails}::text[]) as e (email)
      join users u on lower(u.email) = e.email`
}

/**
 * Enrols students in bulk, in user order (two imports of one list lock the same rows in the same
 * order); returns the memberships this statement created.
 */
export async function insertMembers(sql: Db, courseIds: string[], userIds: string[], now: Date) {
  if (userIds.length === 0) return []
  return sql<{ course_id: string; user_id: string }[]>`
    insert into course_members (course_id, user_id, joined_at)
    select j.course_id, j.user_id, ${now}
      from unnest(${courseIds}::uuid[], ${userIds}::uuid[]) as j (course_id, user_id)
     order by j.course_id, j.user_id
    on conflict (course_id, user_id) do nothing
    returning course_id, user_id`
}

/**
 * Invites addresses (without an account, or of an unverified one); an address already invited
 * keeps its invitation. `mail`: whether its mail waits to be sent (sql/052), in which language.
 */
export async function insertInvitations(
  sql: Db,
  courseId: string,
  emails: string[],
  invitedBy: string,
  now: Date,
  mail: { state: 'WAITING' | 'NONE'; locale: string | null },
) {
  if (emails.length === 0) return []
  return sql<{ id: string; email: string }[]>`
    insert into course_invitations (id, course_id, email, invited_by, created_at, mail_state, mail_locale)
    select gen_uuid_v7(), ${courseId}, e.email, ${invitedBy}, ${now}, ${mail.state}, ${mail.locale}
      from unnest(${emails}::text[]) as e (email)
     order by e.email
    on conflict (course_id, email) do nothing
    returning id, email`
}

/** Which of these addresses' invitations to the course still wait for their mail. */
export async function waitingInvitations(sql: Db, courseId: string, emails: string[]) {
  if (emails.length === 0) return []
  const rows = await sql<{ email: string }[]>`
    select email from course_invitations
     where course_id = ${courseId} and email = any(${emails}::text[]) and mail_state = 'WAITING'`
  return rows.map((r) => r.email)
}

export async function listInvitations(sql: Db, courseId: string, limit: number, offset: number) {
  return sql<{ id: string; email: string; created_at: Date }[]>`
    select id, email, created_at
      from course_invitations
     where course_id = ${courseId}
     order by created_at, id
     limit ${limit} offset ${offset}`
}

export async function invitationCount(sql: Db, courseId: string) {
  const [row] = await sql<{ n: number }[]>`select coalesce((select invitations from course_counters where course_id = ${courseId}), 0) as n`
  return row!.n
}

export async function deleteInvitation(sql: Db, courseId: string, invitationId: string) {
  const res = await sql`delete from course_invitations where id = ${invitationId} and course_id = ${courseId}`
  return res.count === 1
}

/** The invitations of one address, taken (deleted) for enrolment: their courses. */
export async function takeInvitations(tx: TxSql, email: string) {
  return tx<{ course_id: string }[]>`
    delete from course_invitations where email = lower(${email}) returning course_id`
}
